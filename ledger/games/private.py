"""What the three private games share: a player deals and banks, decides his own draws,
and settles with each player still standing (VU-13, H13-8, OC-6)."""

from __future__ import annotations

from collections.abc import Callable

from ledger import accounts
from ledger.cards import same_denomination
from ledger.domain.hands import DEALER
from ledger.domain.round import Round
from ledger.errors import NotAPair
from ledger.games import staking
from ledger.games.play import Play

# Hooks of the flow that Hoyle and Очко answer alike.


def begin(play: Play) -> None:
    return None


def stakes_after_first_card(play: Play) -> bool:
    return play.rules.stake_after_first_card  # H13-3, OC-3: an option at these tables


def has_dealer_double(play: Play) -> bool:
    return False  # only the Vingt-un dealer calls "double" (VU-6)


def face_up(round_no: int, dealer: bool) -> bool:
    return False  # every card of the deal goes face down


def bust_waits(play: Play) -> bool:
    return False  # an over-draw pays at once (VU-12, H13-7); Очко may keep it (OC-11)


def turn_ends_openly(play: Play, hand: dict) -> bool:
    """Whether the hand's turn is over for a reason the whole table sees, whatever its cards
    make (a draw limit, a player content): with ``holder_ends_turn`` such a turn still passes
    at once. Hoyle has none."""
    return False


def declare_dealer_natural(play: Play, clause: str) -> None:
    play.rnd.trigger_event(Round.NaturalDeclared, hand=DEALER, clause=clause)
    play.rnd.trigger_event(Round.CardsShown, hand=DEALER, clause=clause)


def declare_natural(play: Play, hand_id: str, clause: str) -> None:
    play.rnd.trigger_event(Round.NaturalDeclared, hand=hand_id, clause=clause)
    play.rnd.trigger_event(Round.CardsShown, hand=hand_id, clause=clause)


def check_pair(
    play: Play,
    hand: dict,
    amount: int | None,
    clause: str,
    pair_clause: str,
    third_clause: str | None = None,
    default: Callable[[Play, dict], int] | None = None,
) -> int:
    """The stake of a division of ``hand``'s pair: ``amount``, or when none is named the
    book's ``default`` (the hand's own stake unless the book says otherwise), within the
    limits."""
    cards = hand["cards"]
    if len(cards) != 2 or hand["draws"]:
        raise NotAPair(
            "only the first two cards dealt may be divided; a later matching card gives no right",
            third_clause or pair_clause,
        )
    if not same_denomination(cards[0], cards[1]):
        raise NotAPair(
            f"{cards[0]} and {cards[1]} are not of one denomination "
            "(a king and a queen are not a pair)",
            pair_clause,
        )
    if amount is None:
        amount = default(play, hand) if default else hand["stake"]
    staking.check_limits(play, amount, clause)
    return amount


def deal_on_each(play: Play, hand_id: str, new_id: str, clause: str) -> None:
    play.deal(hand_id, face_up=False, drawn=False, clause=clause, asked=True)
    play.deal(new_id, face_up=False, drawn=False, clause=clause, asked=True)


def take_stake_for(
    play: Play, hand_id: str, to_hand: str, amount: int, clause: str, memo: str
) -> None:
    """Pay ``amount`` of a hand's hold to the holder of ``to_hand`` (side payments between
    players): the event names both hands, so each hand's net can count its part.

    On a credit table only the stake is held, which one natural's collection (VU-10) takes
    whole: a hold short of ``amount`` first grows by the rest from the wallet (into debt, as
    a loss beyond the hold is taken), so the escrow never pays out what it does not hold and
    the hand's hold never falls below zero (which no settlement could then release)."""
    hand = play.rnd.hands[hand_id]
    short = amount - hand["held"]
    if short > 0:
        grown = f"{memo}: beyond the hold"
        play.books.transfer(accounts.player(hand["player"]), play.escrow, short, clause, grown)
        play.rnd.trigger_event(
            Round.HoldAdjusted, hand=hand_id, amount=short, clause=clause, memo=grown
        )
    to_player = play.rnd.hands[to_hand]["player"]
    play.books.transfer(play.escrow, accounts.player(to_player), amount, clause, memo)
    play.rnd.trigger_event(
        Round.HoldAdjusted,
        hand=hand_id,
        amount=-amount,
        clause=clause,
        memo=memo,
        to_hand=to_hand,
    )


def pay_to_pool(play: Play, payer_account: str, amount: int, clause: str, memo: str) -> None:
    if amount:
        play.books.transfer(payer_account, accounts.pool(play.rnd.table_id), amount, clause, memo)
