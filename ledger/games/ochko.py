"""Двадцать одно, "Очко" (seed 003), clause by clause (OC-…)."""

from __future__ import annotations

from ledger.cards import declared_ace_counts, is_ace, is_natural, pip_value
from ledger.domain.hands import BUST, DEALER, OPEN
from ledger.domain.round import Round
from ledger.errors import (
    DrawLimitReached,
    HandClosed,
    InvalidCommand,
    NotPermitted,
    OutOfTurn,
    RuleViolation,
    WrongPhase,
)
from ledger.games import dealer_play, phases, private, turns
from ledger.games.play import Play
from ledger.games.private import (  # noqa: F401 - hooks this book shares
    begin,
    face_up,
    has_dealer_double,
    stakes_after_first_card,  # OC-3: the stake may follow the first card
)
from ledger.rules.ochko import MAX_DRAWS

STAKE_CLAUSE = "OC-3"
DEAL_CLAUSE = SECOND_CARD_CLAUSE = "OC-2"
PLAY_CLAUSE = DRAW_CLAUSE = STAND_CLAUSE = DEALER_CLAUSE = "OC-6"
OVERDRAW_CLAUSE = "OC-9"
SPLIT_CLAUSE = "OC-6"
DRAW_FACE_UP = False  # the punter's draws are his own business until the showdown
DOUBLE_DOWN = False  # the book has no double down
ACE_CHOICE = True  # OC-7: the holder counts each ace 1 or 11 (check_ace_choice)


def after_deal(play: Play) -> None:
    rnd = play.rnd
    if is_natural(rnd.dealer_hand["cards"]):  # OC-4: the banker looks first
        private.declare_dealer_natural(play, "OC-4")
        beats = play.rules.banker_natural_beats_natural
        for hand_id in list(rnd.order):
            if not beats and is_natural(rnd.hands[hand_id]["cards"]):
                play.pay_hand(hand_id, 0, "natural stand-off", ["OC-4"], 21)
            else:
                play.pay_hand(hand_id, -1, "banker's 21", ["OC-4"], 21)
        phases.end_round(play, False, "OC-4")
        return
    for hand_id in list(rnd.order):
        if is_natural(rnd.hands[hand_id]["cards"]):
            private.declare_natural(play, hand_id, "OC-5")
            play.pay_hand(hand_id, 2, "natural", ["OC-5"])


def must_stand(play: Play, hand: dict, total: int) -> str | None:
    if total >= 21:
        return "OC-6"
    if hand["draws"] >= MAX_DRAWS:
        return "OC-6"
    return None


def turn_ends_openly(play: Play, hand: dict) -> bool:
    return hand["draws"] >= MAX_DRAWS  # OC-6: everyone counts the cards drawn


def bust_waits(play: Play) -> bool:
    return not play.rules.punter_bust_pays  # OC-11, reading "false": it waits for the banker


def check_draw(play: Play, hand: dict) -> None:
    if hand["draws"] >= MAX_DRAWS:
        raise DrawLimitReached(f"at most {MAX_DRAWS} cards may be drawn", "OC-6")


def overdraw(play: Play, hand_id: str) -> None:
    if play.rules.punter_bust_pays:  # OC-11, default reading: he loses his stake at once
        play.pay_hand(hand_id, -1, "over-draw", ["OC-9", "OC-11"])


def check_split(play: Play, hand: dict, amount: int | None) -> int:
    raise RuleViolation("Очко has no splitting: each player holds one hand", "OC-6")


def after_split(play: Play, hand_id: str, new_id: str) -> None:  # pragma: no cover
    return None


def check_ace_choice(play: Play, hand_id: str, index: int, value: int, player_id: str) -> None:
    rnd = play.rnd
    if value not in (1, 11):
        raise InvalidCommand(f"an ace counts 1 or 11, not {value}", "OC-7")
    hand = rnd.hand(hand_id)
    if hand_id == DEALER:
        dealer_play.require_dealer(play, "OC-7")
        if rnd.phase != "dealer":
            raise WrongPhase("the banker values his aces on his own turn", "OC-7")
    else:
        if hand["player"] != player_id:
            raise NotPermitted(f"hand {hand_id} belongs to another player", "OC-7")
        if rnd.phase != "play":
            raise WrongPhase(f"aces are valued during play, not in phase {rnd.phase!r}", "OC-7")
    if hand["status"] != OPEN or hand.get("settled"):
        raise HandClosed(f"hand {hand_id} is no longer open", "OC-7")
    binds = play.rules.ace_value_binds
    if hand_id != DEALER and not binds and rnd.current_turn() != hand_id:
        # OC-6: hands play in the order of the deal, a valuation with the rest.
        raise OutOfTurn(f"it is not hand {hand_id}'s turn", "OC-6")
    if hand_id != DEALER:
        # holder_ends_turn: valued afresh, an ace could take back the 21 or the over-draw
        # that ended the turn, which without the option has passed already.
        turns.refuse_unless_standing(play, hand)
    if not 0 <= index < len(hand["cards"]) or not is_ace(hand["cards"][index]):
        raise InvalidCommand(f"card {index} of hand {hand_id} is not an ace", "OC-7")
    if value == 11 and not binds:
        # A choice is the holder's count, not a draw: it may not make an over-draw (OC-9)
        # out of cards already held. Undeclared aces count 1 beside it, as they would.
        cards = hand["cards"]
        counts = declared_ace_counts(cards, {int(k): v for k, v in hand["aces"].items()})
        counts.pop(index, None)
        least = 11 + sum(counts.get(i, pip_value(c)) for i, c in enumerate(cards) if i != index)
        if least > 21:
            raise RuleViolation(
                f"ace {index} of hand {hand_id} counted 11 would make {least}, over 21: count it 1",
                "OC-7",
            )


def dealer_turn(play: Play) -> None:
    dealer_play.enter_dealer_phase(play, "OC-6")


def check_dealer_draw(play: Play) -> None:
    if play.rnd.dealer_hand["draws"] >= MAX_DRAWS:
        raise DrawLimitReached(f"the banker too draws at most {MAX_DRAWS} cards", "OC-6")


def dealer_overdraws(play: Play) -> None:
    rnd = play.rnd
    rnd.trigger_event(Round.HandOverdrawn, hand=DEALER, total=rnd.total(DEALER), clause="OC-9")
    settle(play)


def settle(play: Play) -> None:
    rnd = play.rnd
    banker = rnd.total(DEALER)
    banker_bust = banker > 21
    for hand in rnd.live_hands():
        total = rnd.total(hand["id"])
        if hand["status"] == BUST:  # OC-11, reading "false": settled against the banker
            if banker_bust:
                play.pay_hand(hand["id"], 0, "both over 21", ["OC-10", "OC-11"], banker)
            else:
                play.pay_hand(hand["id"], -1, "over-draw", ["OC-9", "OC-11"], banker)
        elif banker_bust:
            play.pay_hand(hand["id"], 2, "won", ["OC-9"], banker)
        elif total > banker:
            play.pay_hand(hand["id"], 1, "won", ["OC-8"], banker)
        elif total == banker:
            play.pay_hand(hand["id"], 0, "stand-off", ["OC-8"], banker)
        else:
            play.pay_hand(hand["id"], -1, "lost", ["OC-8"], banker)
    phases.end_round(play, False, "OC-8")


def passes_deal(play: Play) -> tuple[bool, str]:
    return False, "OC-12"  # the bank passes when the two packs are played out (application)
