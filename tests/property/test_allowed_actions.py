"""``allowed_actions`` tells the truth: random legal rounds in every family (the harness of
test_random_rounds.py, its probes of illegal commands included), and before every decision
sent to a round the list is asked for. Checked each time:

- the list is what asking about every shape of decision finds accepted (``exhaustive``): the
  narrowing to the round's phase and turn leaves nothing out;
- the command then sent, when of a shape the list covers (any move with no amount; a stake
  of the table's least stake, or Hoyle's fixed bet; insurance declined), is accepted exactly
  when it was listed;
- asking changes nothing: not the ledger's store, not the shoe vault's (its rows, deletes
  included), not the secrets and orders held in memory, not the queue of test shoes."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_random_rounds import (
    CHOICES,
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
    return tuple(
        choice.get(k) for k in ("action", "actor", "hand", "index", "value", "called", "card")
    )


def _held(app: Any) -> tuple:
    """What a dry run must leave as it found it: the stores (the vault's rows, deletes
    included) and the queue of test shoes."""
    vault = app.vault.recorder
    return (
        app.recorder.max_notification_id(),
        [(n.originator_id, n.originator_version) for n in vault.select_notifications(1, 10**6)],
        {k: list(v) for k, v in app.shoes._fixed.items()},
    )


def _cached_secrets(app: Any) -> tuple[dict, dict]:
    return dict(app.vault._cache), dict(app.shoes._orders)


def check_caches(app: Any, before: tuple[dict, dict]) -> None:
    """The secrets and orders held in memory may only have gained recorded shoes' (a read
    fills them, as the command would): none dropped, none of a shoe never recorded."""
    for was, now in zip(before, _cached_secrets(app), strict=True):
        assert all(now.get(k) == v for k, v in was.items()), "a cached secret was dropped"
        for shoe_id in now.keys() - was.keys():
            assert app.recorder.select_events(shoe_id, limit=1), f"{shoe_id} was never recorded"


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
        before, cached = _held(app), _cached_secrets(app)
        allowed = app.allowed_actions(rid)
        every = app.allowed_actions(rid, exhaustive=True)
        assert _held(app) == before, "allowed_actions left something behind"
        check_caches(app, cached)
        listed = {_key(c) for c in allowed}
        assert listed == {_key(c) for c in every}, "the narrowing left out an accepted decision"
        self.listed += len(allowed)
        rnd = app.get_round(rid)
        tried = {_key(c.as_dict()) for c in every_candidate(rnd, app._rules_of(rnd))}
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


def drawn_options(family: str, rng: random.Random) -> dict[str, Any]:
    """One value of each of the family's options the random rounds draw from, small shoes
    so that shoes run out under decisions."""
    options = {k: rng.choice(v) for k, v in {**CHOICES["common"], **CHOICES[family]}.items()}
    if family == "casino":
        options.update(decks=1, penetration=90, burn=rng.randint(0, 3))
    if family == "vingt-un" and options["deal_limit"] == "hands":
        options["deal_hands"] = 2
    return options


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("family", FAMILIES)
def test_listed_exactly_when_accepted(family, seed):
    options = drawn_options(family, random.Random(seed * 7 + len(family)))
    harness = play(Dice(seed * 10 + FAMILIES.index(family)), family, options, ROUNDS)
    # Not vacuous: many commands were compared, and the lists were not all empty.
    assert harness.compared >= 20
    assert harness.listed >= harness.compared
