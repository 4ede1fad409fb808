"""What a round will accept now: every decision someone may take, and whose it is.

A decision is listed when the ledger, asked to take it now, would: each candidate is decided
by the very code its command runs (``Rounds._decide``), and nothing is saved. So the list
can never disagree with the rules, in any family or option mix, nor with a 409 a client gets
for trying; a front end needs no copy of the rules to grey out its buttons.

Candidates are the round's ordinary decisions: a stake (tried at the least stake the table
takes, or Hoyle's fixed bet), each player's move on each unsettled hand, an answer to two
cards served at once (VU-23), an ace's value (OC-7), and the discretionary dealer's own
moves. The dealer's irregularities (serving two, out of order, a false division: VU-23..25)
are mistakes recorded when they happen, not choices offered, and are not listed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ledger.domain.round import Round
from ledger.errors import LedgerError
from ledger.games import staking
from ledger.games.play import Play
from ledger.rules import RuleSet
from ledger.unit_of_work import UnitOfWork
from ledger.use_cases.actions import IRREGULAR, apply_action

# A player's decisions on one of his hands that take no more than the hand (insurance is
# tried as declined: listed, it says the round waits for his answer either way).
HAND_MOVES = ("hit", "stand", "double_down", "split", "surrender", "insurance", "take", "throw_up")
DEALER_MOVES = ("dealer_draw", "dealer_stand", "dealer_split")
# Answers to two cards served at once (VU-23), whoever's turn it is.
_ANSWERS = ("take", "reject", "throw_up")
# The decisions each phase takes (a phase not named here: every one is asked about).
_BY_PHASE = {
    "betting": ("stake",),
    "staking": ("stake",),
    "dealer_double": ("dealer_double",),
    "insurance": ("insurance",),
    "play": (*HAND_MOVES, "reject", "ace_value"),
    "dealer": (*DEALER_MOVES, "ace_value"),
}


@dataclass(frozen=True)
class Choice:
    """One decision as the action body that takes it (``amount`` is the caller's own)."""

    action: str
    actor: str
    hand: str | None = None
    index: int | None = None
    value: int | None = None
    called: bool | None = None
    card: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action, "actor": self.actor, "hand": self.hand}
        for name in ("index", "value", "called", "card"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out


class Choices:
    """A part of ``TwentyOneLedger`` (ledger/application.py); ``Rounds`` supplies
    ``_decide`` and ``_rules_of``."""

    def allowed_actions(self, round_id: str, actor: str | None = None) -> list[dict[str, Any]]:
        """Every decision the round would accept now (of ``actor`` only, when given), in the
        order of the hands, the dealer's last; empty once the round has ended."""
        ahead = self._read_ahead(round_id)
        rnd = ahead.round(round_id)
        if rnd.ended:
            return []
        rules = self._rules_of(rnd)
        return [
            choice.as_dict()
            for choice in candidates(rnd, rules)
            if (actor is None or choice.actor == actor)
            and self._accepts(round_id, choice, rules, ahead.newer)
        ]

    def _read_ahead(self, round_id: str) -> UnitOfWork:
        """The round and those it names (its table, its players' and banker's wallets), up to
        date in one read of the store, for every candidate to copy from (not one read each)."""
        neighbours = self._round_neighbours(round_id)
        if not neighbours:  # not cached here: read it first, to learn whom it names
            self.get_round(round_id, copy=False)
            neighbours = self._round_neighbours(round_id)
        ahead = UnitOfWork(self)
        ahead.prefetch(*neighbours, whole=round_id)
        return ahead

    def _accepts(self, round_id: str, choice: Choice, rules: RuleSet, newer: dict) -> bool:
        step = _step(choice, rules)
        uow = UnitOfWork(self)
        uow.newer = dict(newer)
        try:
            self._decide(uow, round_id, choice.actor, step)
        except LedgerError:
            return False
        finally:
            # A decision that needed a new shoe sealed its secret for a save that never comes.
            for undo in uow.if_refused:
                undo()
        return True


def candidates(rnd: Round, rules: RuleSet) -> Iterator[Choice]:
    """The decisions worth asking the ledger about now: of ``every_candidate``, those of the
    round's phase, and in play only those on the hand whose turn it is (or one waiting to
    answer two cards served at once, VU-23). A narrowing for speed that never decides
    anything itself: tests/property/test_allowed_actions.py sends every shape of decision in
    random rounds and finds none accepted that this leaves out."""
    phase = _BY_PHASE.get(rnd.phase)
    if phase is None:
        yield from every_candidate(rnd, rules)
        return
    turn = rnd.current_turn() if rnd.phase == "play" else None
    for choice in every_candidate(rnd, rules):
        if choice.action not in phase:
            continue
        if (
            turn is None
            or choice.hand in (None, turn)
            or choice.action in _ANSWERS
            or rnd.hands.get(choice.hand, {}).get("pending_two")
        ):
            yield choice


def every_candidate(rnd: Round, rules: RuleSet) -> Iterator[Choice]:
    """Each decision of the round's shape (its hands, its family), whatever its phase."""
    if rnd.phase in ("betting", "staking"):
        waiting = [rnd.hands[h]["player"] for h in rnd.order if rnd.hands[h]["stake"] == 0]
        for player in dict.fromkeys(waiting):
            yield Choice("stake", player)
    for hand_id in rnd.order:
        hand = rnd.hands[hand_id]
        if hand.get("settled"):
            continue
        player = hand["player"]
        for action in HAND_MOVES:
            yield Choice(action, player, hand_id)
        for card in dict.fromkeys(hand.get("pending_two") or ()):
            yield Choice("reject", player, hand_id, card=card)
        if rules.family == "ochko":
            yield from _aces(hand_id, hand["cards"], player)
    if rules.house_banked:
        return  # the casino dealer's play is automatic (CB-8, CB-9)
    dealer = rnd.dealer
    if rules.family == "vingt-un":
        yield Choice("dealer_double", dealer, called=True)
        yield Choice("dealer_double", dealer, called=False)
    for action in DEALER_MOVES:
        yield Choice(action, dealer)
    if rules.family == "ochko":
        for hand_id in rnd.dealer_hand_ids():
            yield from _aces(hand_id, rnd.rules_hand(hand_id)["cards"], dealer)


def _aces(hand_id: str, cards: list[str], holder: str) -> Iterator[Choice]:
    for index, card in enumerate(cards):
        if card.startswith("A"):
            for value in (1, 11):
                yield Choice("ace_value", holder, hand_id, index=index, value=value)


def _step(choice: Choice, rules: RuleSet) -> Callable[[Play], Any]:
    if choice.action == "stake":
        amount = getattr(rules, "fixed_bet", None) or rules.min_stake
        return lambda play: {"hand": staking.place_stake(play, choice.actor, amount)}
    if choice.action in IRREGULAR:
        return lambda play: IRREGULAR[choice.action](play, choice.hand, choice.actor, choice.card)
    amount = 0 if choice.action == "insurance" else None
    return lambda play: apply_action(
        play,
        choice.action,
        choice.actor,
        choice.hand,
        amount,
        choice.index,
        choice.value,
        choice.called,
    )
