"""``allowed_actions`` tells the truth: random legal rounds in every family (the harness of
test_random_rounds.py, its probes of illegal commands included), and before every decision
sent to a round the list is asked for. Then, for every command of a shape the list covers
(any move with no amount; a stake of the table's least stake, or Hoyle's fixed bet; insurance
declined), the ledger accepts it exactly when it was listed. Asking writes nothing: not the
ledger's store, not the shoe vault's."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_random_rounds import (
    FAMILIES,
    PROPERTY_SETTINGS,
    Dice,
    Draws,
    Harness,
    Refused,
    options_for,
    seeded_shoes,
)

from ledger.use_cases.choices import Choice, every_candidate

ROUNDS = 12


def _key(choice: dict[str, Any]) -> tuple:
    return tuple(choice.get(k) for k in ("action", "actor", "hand", "index", "value", "called"))


class Checked(Harness):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.compared = 0
        self.listed = 0
        super().__init__(*args, **kwargs)

    def command(self, method: Any, *args: Any, round_id: str | None = None, **kwargs: Any):
        sent = self._as_choice(method, args, kwargs)
        if sent is None:
            return super().command(method, *args, round_id=round_id, **kwargs)
        rid = args[0]
        app = self.app
        written = (app.recorder.max_notification_id(), app.vault.recorder.max_notification_id())
        allowed = app.allowed_actions(rid)
        assert (
            app.recorder.max_notification_id(),
            app.vault.recorder.max_notification_id(),
        ) == written, "allowed_actions wrote to a store"
        self.listed += len(allowed)
        rnd = app.get_round(rid)
        tried = {_key(c.as_dict()) for c in every_candidate(rnd, app._rules_of(rnd))}
        listed = {_key(c) for c in allowed}
        assert listed <= tried
        key = _key(sent.as_dict())
        try:
            result = super().command(method, *args, round_id=round_id, **kwargs)
        except Refused as refused:
            if key in tried:
                self.compared += 1
                assert key not in listed, f"{sent} was listed, then refused: {refused}"
            raise
        if key in tried:
            self.compared += 1
            assert key in listed, f"{sent} was accepted, but not listed ({allowed})"
        return result

    def _as_choice(self, method: Any, args: tuple, kwargs: dict) -> Choice | None:
        """The command as a ``Choice``, when it is one the list could hold."""
        name = getattr(method, "__name__", "")
        if name == "place_stake":
            _, player, amount = args[:3]
            least = getattr(self.rules, "fixed_bet", None) or self.rules.min_stake
            if amount != least or kwargs.get("actor", player) != player:
                return None
            return Choice("stake", player)
        if name != "act":
            return None
        action = args[1]
        amount = kwargs.get("amount")
        if amount is not None and not (action == "insurance" and amount == 0):
            return None
        return Choice(
            action,
            kwargs["actor"],
            kwargs.get("hand"),
            index=kwargs.get("index"),
            value=kwargs.get("value"),
            called=kwargs.get("called"),
            card=kwargs.get("card"),
        )


def play(draws: Any, family: str, options: dict[str, Any], rounds: int) -> Checked:
    with seeded_shoes(draws.number("shoe seed", 0, 2**32)):
        harness = Checked(draws, family, options, draws.number("players", 1, 3))
        try:
            for _ in range(rounds):
                harness.play_round()
        finally:
            harness.close()
    return harness


@settings(PROPERTY_SETTINGS, max_examples=30)
@given(data=st.data())
def test_listed_exactly_when_accepted_in_any_option_mix(data):
    family = data.draw(st.sampled_from(FAMILIES), label="family")
    options = data.draw(options_for(family), label="options")
    play(Draws(data), family, options, data.draw(st.integers(2, 6), label="rounds"))


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("family", FAMILIES)
def test_listed_exactly_when_accepted(family, seed):
    harness = play(Dice(seed * 10 + FAMILIES.index(family)), family, {}, ROUNDS)
    # Not vacuous: many commands were compared, and the lists were not all empty.
    assert harness.compared >= 20
    assert harness.listed >= harness.compared
