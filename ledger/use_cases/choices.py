"""What a round will accept now: every decision someone may take, and whose it is.

A decision is listed when the ledger, asked to take it now, would: each candidate is decided
by the very code its command runs (``Rounds._decide``) in a dry run, which saves nothing,
seals no shoe and draws on no randomness. So the list can never disagree with the rules, in
any family or option mix, nor with a 409 a client gets for trying; a front end needs no copy
of the rules to grey out its buttons.

Candidates are the round's ordinary decisions: a stake (tried at the least stake the table
takes, or Hoyle's fixed bet), each player's move on each unsettled hand, an answer to two
cards served at once (VU-23), an ace's value (OC-7), and the discretionary dealer's own
moves. The dealer's irregularities (serving two, out of order, a false division: VU-23..25)
are mistakes recorded when they happen, not choices offered, and are not listed.

The list tells a key nothing about a card it cannot see because no refusal of a decision it
lists depends on one: tests/property/test_refusals_blind_to_undealt_cards.py holds every
command to that for the cards not yet dealt, test_refusals_blind_to_face_down_cards.py holds
every command and the list itself to it for the cards dealt face down (the two dealer's
irregularities README names as telling are not listed). A dry run that would need a card from
a new shoe stops there, accepted (a round that runs out of cards is completed from the used
ones, VU-29)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ledger.domain.round import Round
from ledger.errors import LedgerError
from ledger.games import staking
from ledger.games.play import Play
from ledger.rules import RuleSet
from ledger.shoes import DecidedBeforeTheCard
from ledger.unit_of_work import UnitOfWork
from ledger.use_cases.actions import IRREGULAR, apply_action
from ledger.use_cases.rounds import neighbours_of

logger = logging.getLogger(__name__)

# A player's decisions on one of his hands that take nothing but the hand (insurance is tried
# as declined: listed, it says the round waits for his answer either way, ``_step``).
HAND_MOVES = ("hit", "stand", "double_down", "split", "surrender", "insurance", "take", "throw_up")
DEALER_MOVES = ("dealer_draw", "dealer_stand", "dealer_split")
# The one family whose book has each of these (the others refuse it whatever the round).
_FAMILY_OF = {
    "surrender": "casino",
    "insurance": "casino",
    "take": "vingt-un",
    "throw_up": "vingt-un",
    "reject": "vingt-un",
    "dealer_double": "vingt-un",
    "dealer_split": "vingt-un",
    "ace_value": "ochko",
}
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
        out: dict[str, Any] = {"action": self.action, "actor": self.actor}
        for name in ("hand", "index", "value", "called", "card"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out


class Choices:
    """A part of ``TwentyOneLedger`` (ledger/application.py); ``Rounds`` supplies
    ``_decide`` and ``_rules_of``."""

    def allowed_actions(
        self,
        round_id: str,
        actor: str | None = None,
        *,
        as_of: Round | None = None,
        just_saved: bool = False,
        exhaustive: bool = False,
    ) -> list[dict[str, Any]]:
        """Every decision the round would accept now (of ``actor`` only, when given), in the
        order of the hands, the dealer's last; empty once the round has ended. ``as_of``: the
        round as the caller read it, so that the list answers the same version (its wallets
        and table are read fresh, unless ``just_saved``: the answer to the command that saved
        ``as_of`` takes them as that command left them, with no read). ``exhaustive`` asks
        about every shape of decision, not only those the round's phase and turn leave
        (``candidates``): for the tests that hold the narrowing to losing nothing."""
        rnd = as_of if as_of is not None else self.get_round(round_id, copy=False)
        ahead = self._read_ahead(rnd, just_saved)
        if rnd.ended:
            return []
        rules = self._rules_of(rnd)
        asked = every_candidate if exhaustive else candidates
        return [
            choice.as_dict()
            for choice in asked(rnd, rules)
            if (actor is None or choice.actor == actor)
            and self._accepts(round_id, choice, rules, ahead.newer)
        ]

    def _read_ahead(self, rnd: Round, just_saved: bool) -> UnitOfWork:
        """The round's table and its players' and banker's wallets, up to date in one read of
        the store (or, ``just_saved``, as cached), for every candidate to copy from with the
        round itself (not one read each)."""
        ahead = UnitOfWork(self)
        if just_saved:
            ahead.newer.update(self.repository.as_cached(neighbours_of(rnd)))
        else:
            ahead.prefetch(*neighbours_of(rnd))
        ahead.newer[rnd.id] = (rnd, [])  # copied by each candidate, never changed
        return ahead

    def _accepts(self, round_id: str, choice: Choice, rules: RuleSet, newer: dict) -> bool:
        uow = UnitOfWork(self)
        uow.dry = True
        uow.newer = dict(newer)
        try:
            self._decide(uow, round_id, choice.actor, _step(choice, rules))
        except DecidedBeforeTheCard:
            return True
        except LedgerError:
            return False
        except Exception:
            # A fault in one rarely taken path must not fail the whole view (nor the answer
            # to a command already saved): that decision is left out, and the fault logged.
            # Sent as a command, it would fail the same way.
            logger.exception("allowed_actions: deciding %s on round %s failed", choice, round_id)
            return False
        return True


def candidates(rnd: Round, rules: RuleSet) -> Iterator[Choice]:
    """The decisions worth asking the ledger about now: of ``every_candidate``, those of the
    table's family and of the round's phase, and in play only those of the hand whose turn it
    is, with three exceptions the book makes (an Очко ace may be valued out of turn under
    ``ace_value_binds``, OC-7; a hand given two cards at once answers in its turn, VU-23; a
    hand the dealer passed over may throw up, VU-24). A narrowing for speed that decides
    nothing itself: tests/property/test_allowed_actions.py checks, at every step of random
    rounds in every family, that it leaves out nothing ``every_candidate`` finds accepted."""
    phase = _BY_PHASE.get(rnd.phase)
    turn = rnd.current_turn() if rnd.phase == "play" else None
    for choice in every_candidate(rnd, rules):
        if _FAMILY_OF.get(choice.action, rules.family) != rules.family:
            continue
        if phase is None or (
            choice.action in phase and (turn is None or _may_act_now(rnd, choice, turn))
        ):
            yield choice


def _may_act_now(rnd: Round, choice: Choice, turn: str) -> bool:
    if choice.hand in (None, turn) or choice.action == "ace_value":
        return True
    if choice.action == "throw_up":
        return bool(rnd.out_of_order_served)
    return choice.action in ("take", "reject") and bool(rnd.hands[choice.hand].get("pending_two"))


def every_candidate(rnd: Round, rules: RuleSet) -> Iterator[Choice]:
    """Each decision of the round's shape (its hands, its dealer), whatever its phase and
    family."""
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
        yield from _aces(hand_id, hand["cards"], player)
    if rules.house_banked:
        return  # the casino dealer's play is automatic (CB-8, CB-9)
    dealer = rnd.dealer
    yield Choice("dealer_double", dealer, called=True)
    yield Choice("dealer_double", dealer, called=False)
    for action in DEALER_MOVES:
        yield Choice(action, dealer)
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
