"""The phases a round enters and the outcomes a hand is settled with are the ones
``ledger.domain.hands`` names (``PHASES``, ``OUTCOMES``), which the OpenAPI document lists as
enums: read from the books' source, so a path no test plays is held to them too, and a name
no book uses any more is not left in the lists."""

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from ledger.domain.hands import ENDED, OUTCOMES, PHASES, STARTED
from ledger.games import phases

GAMES = Path(__file__).resolve().parents[2] / "ledger" / "games"


def words_given(function: str, position: int) -> Iterator[tuple[str, str]]:
    """(module, text) for every string constant in the argument at ``position`` of a call to
    ``function`` (``phases.enter``, ``play.pay_hand``) in the books, or, when the argument is
    a variable, in what the module assigns to it."""
    for path in sorted(GAMES.glob("*.py")):
        module = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(module):
            if not isinstance(node, ast.Call) or len(node.args) <= position:
                continue
            if getattr(node.func, "attr", getattr(node.func, "id", None)) != function:
                continue
            given = node.args[position]
            sources = [given]
            if isinstance(given, ast.Name):
                sources = [
                    assigned.value
                    for assigned in ast.walk(module)
                    if isinstance(assigned, ast.Assign)
                    and any(getattr(t, "id", None) == given.id for t in assigned.targets)
                ]
                assert sources, f"{path.name}: where does {given.id} come from?"
            for source in sources:
                for const in ast.walk(source):
                    if isinstance(const, ast.Constant) and isinstance(const.value, str):
                        yield path.name, const.value


def test_the_phases_the_books_enter_are_the_named_ones():
    entered = {word for _, word in words_given("enter", 1)}
    assert entered == set(PHASES) - {STARTED, ENDED}  # those two the round's own events set


def test_the_outcomes_the_books_settle_with_are_the_named_ones():
    settled = list(words_given("pay_hand", 2))
    assert {word for _, word in settled} == set(OUTCOMES), settled
    assert len(OUTCOMES) == len(set(OUTCOMES))


def test_a_phase_not_named_is_refused_before_anything_is_recorded():
    class Refusing:
        phase = "play"

        def trigger_event(self, *args, **kwargs):
            raise AssertionError("nothing may be recorded")

    play = type("Play", (), {"rnd": Refusing()})()
    with pytest.raises(ValueError, match="no round phase is named 'showdown'"):
        phases.enter(play, "showdown", "VU-1")
