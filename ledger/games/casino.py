"""Modern casino Blackjack (CB-1..CB-9) and the usual table options. The options have no
clause in the seed text; the ledger cites them as CB-X-… (see README, "Rule families")."""

from __future__ import annotations

from fractions import Fraction

from ledger import accounts
from ledger.cards import hand_total, is_ace, is_natural, is_soft, pip_value
from ledger.domain.hands import DEALER
from ledger.domain.round import Round
from ledger.errors import (
    HandClosed,
    InvalidCommand,
    NotAPair,
    NotPermitted,
    RuleViolation,
    WrongPhase,
)
from ledger.games import phases, turns
from ledger.games.play import Play

STAKE_CLAUSE = "CB-1"
DEAL_CLAUSE = SECOND_CARD_CLAUSE = "CB-2"
PLAY_CLAUSE = DRAW_CLAUSE = STAND_CLAUSE = OVERDRAW_CLAUSE = "CB-7"
DEALER_CLAUSE = "CB-8"
SPLIT_CLAUSE = "CB-X-SPLIT"
DOUBLE_CLAUSE = "CB-X-DOUBLE"
INSURANCE_CLAUSE = "CB-X-INSURANCE"
SURRENDER_CLAUSE = "CB-X-SURRENDER"
H17_CLAUSE = "CB-X-H17"
SIX_FIVE_CLAUSE = "CB-X-6:5"
_THREE_TO_TWO = Fraction(3, 2)  # made once: a Fraction is slow to make
DRAW_FACE_UP = True
DOUBLE_DOWN = True  # the usual table option (check_double_down)
ACE_CHOICE = False  # an ace counts the best way


def begin(play: Play) -> None:
    return None


def stakes_after_first_card(play: Play) -> bool:
    return False


def has_dealer_double(play: Play) -> bool:
    return False


def face_up(round_no: int, dealer: bool) -> bool:
    return not (dealer and round_no == 2)  # CB-2: the hole card


def after_deal(play: Play) -> None:
    up = play.rnd.dealer_hand["cards"][0]
    if play.rules.insurance and is_ace(up):
        phases.enter(play, "insurance", INSURANCE_CLAUSE)
        return
    peek(play)


def insurance(play: Play, hand_id: str, player_id: str, amount: int) -> None:
    rnd = play.rnd
    if rnd.phase != "insurance":
        raise WrongPhase(
            "insurance is offered only while the dealer shows an ace", INSURANCE_CLAUSE
        )
    hand = rnd.hand(hand_id)
    if hand_id == DEALER or hand["player"] != player_id:
        raise NotPermitted(f"hand {hand_id} belongs to another player", INSURANCE_CLAUSE)
    if hand.get("insurance_decided"):
        raise HandClosed(f"hand {hand_id} has already decided on insurance", INSURANCE_CLAUSE)
    if not 0 <= amount <= hand["stake"] // 2:
        raise InvalidCommand(
            f"insurance must be 0 to half the bet ({hand['stake'] // 2}), got {amount}",
            INSURANCE_CLAUSE,
        )
    play.books.transfer(
        accounts.player(player_id), play.escrow, amount, INSURANCE_CLAUSE, f"insurance on {hand_id}"
    )
    rnd.trigger_event(
        Round.InsuranceDecided,
        hand=hand_id,
        amount=amount,
        clause=INSURANCE_CLAUSE,
        actor=play.actor,
    )
    if all(h.get("insurance_decided") for h in rnd.hands.values()):
        peek(play)
        if not rnd.ended:
            phases.enter(play, "play", PLAY_CLAUSE)
            turns.continue_play(play)


def peek(play: Play) -> None:
    rnd = play.rnd
    dealer_bj = is_natural(rnd.dealer_hand["cards"])
    house = play.banker_account
    for hand_id in rnd.order:
        bet = rnd.hands[hand_id]["insurance"]
        if bet:
            player = accounts.player(rnd.hands[hand_id]["player"])
            for payer, payee, amount, memo in insurance_legs(
                bet, dealer_bj, play.escrow, player, house
            ):
                play.books.transfer(payer, payee, amount, INSURANCE_CLAUSE, memo)
            rnd.trigger_event(
                Round.InsuranceSettled,
                hand=hand_id,
                amount=2 * bet if dealer_bj else -bet,
                clause=INSURANCE_CLAUSE,
            )
    if dealer_bj:
        rnd.trigger_event(Round.NaturalDeclared, hand=DEALER, clause="CB-5")
        rnd.trigger_event(Round.CardsShown, hand=DEALER, clause="CB-5")
        for hand_id in list(rnd.order):
            if is_natural(rnd.hands[hand_id]["cards"]):
                rnd.trigger_event(Round.NaturalDeclared, hand=hand_id, clause="CB-6")
                play.pay_hand(hand_id, 0, "stand-off", ["CB-6"], 21)
            else:
                play.pay_hand(hand_id, -1, "lost", ["CB-5"], 21)
        phases.end_round(play, False, "CB-5")
        return
    ratio = play.rules.blackjack_ratio
    clauses = ["CB-4"] + ([SIX_FIVE_CLAUSE] if ratio != _THREE_TO_TWO else [])
    for hand_id in list(rnd.order):
        if is_natural(rnd.hands[hand_id]["cards"]):
            rnd.trigger_event(Round.NaturalDeclared, hand=hand_id, clause="CB-3")
            play.pay_hand(hand_id, ratio, "blackjack", clauses)


def insurance_legs(
    bet: int, dealer_natural: bool, escrow: str, player: str, house: str
) -> list[tuple[str, str, int, str]]:
    """The transfers (payer, payee, amount, memo) that settle an insurance bet of ``bet``:
    returned with 2:1 when the dealer holds a natural, else lost. Shared with ``replay
    verify``, which holds the recorded transfers to each ``InsuranceSettled``."""
    if dealer_natural:
        return [
            (escrow, player, bet, "insurance returned"),
            (house, player, 2 * bet, "insurance pays 2:1"),
        ]
    return [(escrow, house, bet, "insurance lost")]


def must_stand(play: Play, hand: dict, total: int) -> str | None:
    if total >= 21:
        return "CB-7"
    if _split_ace(hand) and not play.rules.hit_split_aces:
        if _may_resplit_aces(play, hand):
            return None  # the player may split again, or stand
        return SPLIT_CLAUSE  # split aces take one card each
    return None


def _split_ace(hand: dict) -> bool:
    return bool(hand["split_from"]) and is_ace(hand["cards"][0])


def _may_resplit_aces(play: Play, hand: dict) -> bool:
    cards = hand["cards"]
    return (
        play.rules.resplit_aces
        and len(cards) == 2
        and is_ace(cards[1])
        and _hands_from_seat(play, hand) < play.rules.max_split_hands
    )


def turn_ends_openly(play: Play, hand: dict) -> bool:
    return False  # never asked: a casino table has no holder_ends_turn


def bust_waits(play: Play) -> bool:
    return False  # CB-7: a bust loses at once


def check_draw(play: Play, hand: dict) -> None:
    if _split_ace(hand) and not play.rules.hit_split_aces and hand["status"] == "open":
        raise RuleViolation("split aces take one card each at this table", SPLIT_CLAUSE)


def overdraw(play: Play, hand_id: str) -> None:
    play.pay_hand(hand_id, -1, "bust", ["CB-7"])


def _hands_from_seat(play: Play, hand: dict) -> int:
    return sum(1 for h in play.rnd.hands.values() if h["seat"] == hand["seat"])


def check_split(play: Play, hand: dict, amount: int | None) -> int:
    cards = hand["cards"]
    if len(cards) != 2:
        raise NotAPair("only the first two cards of a hand may be split", SPLIT_CLAUSE)
    if pip_value(cards[0]) != pip_value(cards[1]):
        raise NotAPair(f"{cards[0]} and {cards[1]} are not a pair", SPLIT_CLAUSE)
    if _hands_from_seat(play, hand) >= play.rules.max_split_hands:
        raise RuleViolation(
            f"this table splits to at most {play.rules.max_split_hands} hands", SPLIT_CLAUSE
        )
    if hand["split_from"] and is_ace(cards[0]) and not play.rules.resplit_aces:
        raise RuleViolation("split aces may not be split again at this table", SPLIT_CLAUSE)
    if amount is not None and amount != hand["stake"]:
        raise InvalidCommand(
            f"a split hand's bet equals the original bet ({hand['stake']})", SPLIT_CLAUSE
        )
    return hand["stake"]


def after_split(play: Play, hand_id: str, new_id: str) -> None:
    return None  # each split hand gets its second card when its turn comes


def check_double_down(play: Play, hand: dict) -> None:
    rules = play.rules
    if len(hand["cards"]) != 2:
        raise RuleViolation("double down only on the first two cards of a hand", DOUBLE_CLAUSE)
    if hand["split_from"] and not rules.double_after_split:
        raise RuleViolation("this table does not allow doubling after a split", DOUBLE_CLAUSE)
    # A double is a draw: split aces that take one card each are stood on, or split again.
    check_draw(play, hand)
    total = hand_total(hand["cards"])
    if not rules.may_double(total):
        raise RuleViolation(
            f"this table doubles on {rules.double_on}, not on {total}", DOUBLE_CLAUSE
        )


def surrender(play: Play, hand_id: str, player_id: str) -> None:
    hand = turns.check_turn(play, hand_id, player_id, SURRENDER_CLAUSE)
    if not play.rules.late_surrender:
        raise RuleViolation("this table does not offer surrender", SURRENDER_CLAUSE)
    if len(hand["cards"]) != 2 or hand["split_from"]:
        raise RuleViolation(
            "surrender only as the first decision on the first two cards", SURRENDER_CLAUSE
        )
    play.rnd.trigger_event(
        Round.Surrendered, hand=hand_id, clause=SURRENDER_CLAUSE, actor=play.actor
    )
    play.pay_hand(hand_id, Fraction(-1, 2), "surrendered", [SURRENDER_CLAUSE])
    turns.continue_play(play)


def dealer_should_hit(play: Play) -> bool:
    cards = play.rnd.dealer_hand["cards"]
    total = hand_total(cards)
    if total < 17:
        return True
    return total == 17 and play.rules.soft17 == "hit" and is_soft(cards)


def _dealer_clause(play: Play) -> str:
    """The clause deciding the dealer's next step: CB-8, but the H17 option where it is
    what differs from CB-8, at a soft 17 (he hits it, where CB-8 has him stand)."""
    cards = play.rnd.dealer_hand["cards"]
    soft_17 = hand_total(cards) == 17 and is_soft(cards)
    return H17_CLAUSE if soft_17 and play.rules.soft17 == "hit" else DEALER_CLAUSE


def dealer_turn(play: Play) -> None:
    """CB-8/CB-9: the hole card is turned up and the dealer plays by rule, not by choice."""
    rnd = play.rnd
    rnd.trigger_event(Round.CardsShown, hand=DEALER, clause=DEALER_CLAUSE)
    if rnd.live_hands():
        while dealer_should_hit(play):
            play.deal(DEALER, face_up=True, drawn=True, clause=_dealer_clause(play))
        total = rnd.total(DEALER)
        if total > 21:
            dealer_overdraws(play)
            return
        rnd.trigger_event(
            Round.HandStood,
            hand=DEALER,
            total=total,
            clause=_dealer_clause(play),
            actor="ledger",
        )
    settle(play)


# CB-9: the dealer draws and stands by rule (dealer_turn); a dealer's decision asked for is
# refused, by the use case first, in these words.
AUTOMATIC_PLAY = "the casino dealer's play is automatic"


def check_dealer_draw(play: Play) -> None:
    raise RuleViolation(AUTOMATIC_PLAY, "CB-9")


def dealer_overdraws(play: Play) -> None:
    rnd = play.rnd
    rnd.trigger_event(
        Round.HandOverdrawn, hand=DEALER, total=rnd.total(DEALER), clause=DEALER_CLAUSE
    )
    settle(play)


def settle(play: Play) -> None:
    rnd = play.rnd
    dealer = rnd.total(DEALER)
    for hand in rnd.live_hands():
        player = rnd.total(hand["id"])
        if dealer > 21 or player > dealer:
            play.pay_hand(hand["id"], 1, "won", ["CB-8"], dealer)
        elif player == dealer:
            play.pay_hand(hand["id"], 0, "push", ["CB-8"], dealer)
        else:
            play.pay_hand(hand["id"], -1, "lost", ["CB-8"], dealer)
    phases.end_round(play, False, "CB-9")


def passes_deal(play: Play) -> tuple[bool, str]:
    return False, "CB-9"
