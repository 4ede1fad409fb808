"""Blackjack as Hoyle gave it in 1913 (seed 001), clause by clause (H13-…)."""

from __future__ import annotations

from fractions import Fraction

from ledger.cards import is_natural
from ledger.domain.hands import DEALER, NATURAL
from ledger.domain.round import Round
from ledger.errors import RuleViolation
from ledger.games import dealer_play, phases, private
from ledger.games.play import Play
from ledger.games.private import (  # noqa: F401 - hooks this book shares
    begin,
    bust_waits,  # H13-7: over 21 pays at once
    face_up,
    has_dealer_double,
    stakes_after_first_card,  # H13-3: the stake may follow the first card
    turn_ends_openly,
)

DEAL_CLAUSE = SECOND_CARD_CLAUSE = "H13-4"
PLAY_CLAUSE = DRAW_CLAUSE = STAND_CLAUSE = OVERDRAW_CLAUSE = "H13-7"
SPLIT_CLAUSE = "H13-3"
DEALER_CLAUSE = "H13-8"
DRAW_FACE_UP = True
DOUBLE_DOWN = False  # the book has no double down
ACE_CHOICE = False  # an ace counts the best way
STAKE_CLAUSE = "H13-2"


def after_deal(play: Play) -> None:
    rnd = play.rnd
    if is_natural(rnd.dealer_hand["cards"]):
        private.declare_dealer_natural(play, "H13-5")
        for hand_id in list(rnd.order):
            if is_natural(rnd.hands[hand_id]["cards"]):
                private.declare_natural(play, hand_id, "H13-5")
                play.pay_hand(hand_id, 0, "natural stand-off", ["H13-5"], 21)
            else:
                play.pay_hand(hand_id, -2, "dealer natural", ["H13-5"], 21)
        passes, clause = passes_deal(play)
        phases.end_round(play, passes, clause if passes else "H13-5")
        return
    naturals = [h for h in rnd.order if is_natural(rnd.hands[h]["cards"])]
    if naturals and play.rules.natural_takes_table:
        natural_takes_table(play, naturals)
        return
    for hand_id in naturals:
        private.declare_natural(play, hand_id, "H13-6")
        play.pay_hand(hand_id, 2, "natural", ["H13-6"])
    # The naturals are settled: a hand still open can only win or lose its single stake
    # (H13-7..H13-10), so what was held for a dealer natural (H13-5) and covered for a player
    # natural (H13-6) goes back now rather than stay locked to the end of the round.
    play.release_beyond(1, "H13-5", "H13-6")


def natural_takes_table(play: Play, naturals: list[str]) -> None:
    """H13-6, locality option ``natural_takes_table``, as the ledger reads it when more than
    one player holds a natural: every natural is declared; the eldest (the first in the order
    of play, from the dealer's left) takes the stakes of the hands that hold no natural; every
    other natural stands off, his stake returned, nothing paid or received. The dealer collects
    the stakes and pays them over, so each settlement shows its own stake x multiplier."""
    rnd = play.rnd
    for hand_id in naturals:
        private.declare_natural(play, hand_id, "H13-6")
    eldest = naturals[0]
    holder = rnd.hands[eldest]["player"]
    taken = 0
    for hand_id in list(rnd.order):
        hand = rnd.hands[hand_id]
        if hand_id == eldest:
            continue
        if hand_id in naturals:
            play.pay_hand(hand_id, 0, "natural stand-off", ["H13-6"])
        elif hand["player"] == holder:
            play.pay_hand(hand_id, 0, "stakes taken by a natural", ["H13-6"])
        else:
            taken += hand["stake"]
            play.pay_hand(hand_id, -1, "stake taken by a natural", ["H13-6"])
    stake = rnd.hands[eldest]["stake"]
    play.pay_hand(eldest, Fraction(taken, stake), "natural takes the table", ["H13-6"])


def must_stand(play: Play, hand: dict, total: int) -> str | None:
    return "H13-7" if total >= 21 else None


def check_draw(play: Play, hand: dict) -> None:
    return None


def overdraw(play: Play, hand_id: str) -> None:
    play.pay_hand(hand_id, -1, "over-draw", ["H13-7"])


def check_split(play: Play, hand: dict, amount: int | None) -> int:
    if not play.rules.allow_split:
        raise RuleViolation(
            "this table does not allow splitting pairs (option allow_split)", "H13-3"
        )
    if hand["split_from"]:
        raise RuleViolation(
            "a pair dealt may be split once; split hands are not split again", "H13-3"
        )
    return private.check_pair(play, hand, amount, "H13-3", "H13-3")


def after_split(play: Play, hand_id: str, new_id: str) -> None:
    private.deal_on_each(play, hand_id, new_id, "H13-3")


def dealer_turn(play: Play) -> None:
    dealer_play.enter_dealer_phase(play, "H13-8")


def check_dealer_draw(play: Play) -> None:
    return None


def dealer_overdraws(play: Play) -> None:
    rnd = play.rnd
    rnd.trigger_event(Round.HandOverdrawn, hand=DEALER, total=rnd.total(DEALER), clause="H13-9")
    settle(play)


def settle(play: Play) -> None:
    rnd = play.rnd
    dealer = rnd.total(DEALER)
    for hand in rnd.live_hands():
        total = rnd.total(hand["id"])
        if dealer > 21:
            play.pay_hand(hand["id"], 1, "won", ["H13-9"], dealer)
        elif total > dealer:
            play.pay_hand(hand["id"], 1, "won", ["H13-10"], dealer)
        elif total == dealer:
            play.pay_hand(hand["id"], 0, "stand-off", ["H13-10"], dealer)
        else:
            play.pay_hand(hand["id"], -1, "lost", ["H13-10"], dealer)
    phases.end_round(play, *passes_deal(play))


def passes_deal(play: Play) -> tuple[bool, str]:
    mode = play.rules.deal_passes
    if mode == "every_round":
        return True, "H13-4"
    natural = not play.rnd.dealer_hand["natural"] and any(
        h["status"] == NATURAL for h in play.rnd.hands.values()
    )
    if mode == "on_natural" and natural:
        return True, "H13-4"
    return False, "H13-10"
