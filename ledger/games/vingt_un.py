"""English Vingt-un: the book of seeds 000 and 002, clause by clause (VU-…)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ledger import accounts
from ledger.cards import is_natural, same_denomination
from ledger.domain.hands import DEALER, DEALER_HANDS, NATURAL
from ledger.domain.round import Round
from ledger.errors import NotAPair, RuleViolation, StakeOutOfLimits, WrongPhase
from ledger.games import dealer_penalties, dealer_play, phases, private
from ledger.games.play import Play

STAKE_CLAUSE = "VU-5"
DEAL_CLAUSE = "VU-4"
SECOND_CARD_CLAUSE = "VU-7"
PLAY_CLAUSE = DRAW_CLAUSE = STAND_CLAUSE = "VU-11"
OVERDRAW_CLAUSE = "VU-12"
SPLIT_CLAUSE = "VU-19"
DEALER_CLAUSE = "VU-13"
DRAW_FACE_UP = True  # VU-11: drawn cards are dealt face up
DOUBLE_DOWN = False  # the book has no double down (the dealer's "double" is VU-6)
ACE_CHOICE = False  # an ace counts the best way
TIE_SHARE = {"0": Fraction(0), "1/4": Fraction(1, 4), "1/3": Fraction(1, 3)}


def begin(play: Play) -> None:
    """VU-27 (a): each player seated for the round pays the ante "at the commencement of
    each deal": every round, or with ``ante_each`` "deal" the first round of a dealer's deal
    (``Round.Started.round_of_deal``), after he is chosen (VU-2) or the deal passes to him
    (VU-29, VU-30). A sale (VU-31) starts no deal: the seller parts with "his turn at
    dealing", and "the buyer has to deal the cards", the same turn, still counted from the
    proper dealer's seat, and "when the buyer loses his turn, the deal reverts" as that
    turn's end; so rounds the buyer deals continue the deal the seller was given."""
    ante = play.rules.ante_due(play.rnd.round_of_deal)
    for hand_id in play.rnd.order:
        player = play.rnd.hands[hand_id]["player"]
        private.pay_to_pool(play, accounts.player(player), ante, "VU-27", "ante")
    dealer_penalties.hold_overdraw_penalty(play, "")


def stakes_after_first_card(play: Play) -> bool:
    return True  # VU-5: each player stakes on his first card


def has_dealer_double(play: Play) -> bool:
    return True  # VU-6


def face_up(round_no: int, dealer: bool) -> bool:
    return False


def after_deal(play: Play) -> None:
    rnd = play.rnd
    if is_natural(rnd.dealer_hand["cards"]):
        private.declare_dealer_natural(play, "VU-8")
        for hand_id in list(rnd.order):
            if is_natural(rnd.hands[hand_id]["cards"]):
                private.declare_natural(play, hand_id, "VU-9")
                play.pay_hand(hand_id, 0, "natural stand-off", ["VU-9"], 21)
            else:
                play.pay_hand(hand_id, -2, "dealer natural", ["VU-8"], 21)
        phases.end_round(play, False, "VU-8")
        return
    naturals = [h for h in rnd.order if is_natural(rnd.hands[h]["cards"])]
    for hand_id in naturals:
        private.declare_natural(play, hand_id, "VU-10")
        holder = rnd.hands[hand_id]["player"]
        if play.rules.natural_collects_from_players:
            for other in rnd.order:
                if other not in naturals and rnd.hands[other]["player"] != holder:
                    private.take_stake_for(
                        play,
                        other,
                        hand_id,
                        rnd.hands[other]["stake"],
                        "VU-10",
                        f"natural on {hand_id} collects one stake",
                    )
        play.pay_hand(hand_id, 2, "natural", ["VU-10"])


def must_stand(play: Play, hand: dict, total: int) -> str | None:
    if total >= 21:
        return "VU-11"
    if hand["content"]:
        return "VU-23"
    return None


def turn_ends_openly(play: Play, hand: dict) -> bool:
    return bool(hand["content"])  # VU-23: he rejected one of two cards, seen by all


def bust_waits(play: Play) -> bool:
    return False  # VU-12: an over-draw pays at once


def check_draw(play: Play, hand: dict) -> None:
    return None


def overdraw(play: Play, hand_id: str) -> None:
    # VU-12: pays at once; his first two cards stay face down for everyone.
    play.pay_hand(hand_id, -1, "over-draw", ["VU-12"])


def check_split(play: Play, hand: dict, amount: int | None) -> int:
    amount = private.check_pair(play, hand, amount, "VU-19", "VU-18", "VU-22", default=split_stake)
    family = hand["split_from"] or hand["id"]
    divided = [h for h in play.rnd.hands.values() if (h["split_from"] or h["id"]) == family]
    if len(divided) >= 4:
        raise RuleViolation("four of a kind make at most four hands", "VU-20")
    return amount


def split_stake(play: Play, hand: dict) -> int:
    """The stake on the divided card when the player names none: the first card's stake as
    it stands, the dealer's double (VU-6) included, as a player dividing "the same" means.

    VU-19 gives the second card "a separate stake ... of any amount within the limits": only
    the dealer's call takes a stake past the maximum (VU-1, VU-6), and it was made before
    this stake existed. So a doubled stake above ``max_stake`` is not copied, and not cut
    down to the maximum either, which would stake an amount the player never named (VU-19
    leaves the amount to him): the division is refused, naming the limits, until he names
    his stake."""
    stake, rules = hand["stake"], play.rules
    if stake > rules.max_stake:
        raise StakeOutOfLimits(
            f"hand {hand['id']}'s stake is {stake} after the dealer's double (VU-6), above the "
            f"maximum stake {rules.max_stake}; the divided card takes a stake of its own within "
            f"the limits {rules.min_stake}..{rules.max_stake}: name it (amount)",
            "VU-19",
        )
    return stake


def after_split(play: Play, hand_id: str, new_id: str) -> None:
    private.deal_on_each(play, hand_id, new_id, "VU-19")


def dealer_turn(play: Play) -> None:
    dealer_play.enter_dealer_phase(play, "VU-13")


def check_dealer_draw(play: Play) -> None:
    return None


def dealer_overdraws(play: Play) -> None:
    rnd = play.rnd
    hand = rnd.dealer_in_turn()
    rnd.trigger_event(Round.HandOverdrawn, hand=hand, total=rnd.total(hand), clause="VU-15")
    settle(play)


def dealer_divides(play: Play) -> tuple[str, str]:
    """VU-21: the dealer divides his own pair the same way as a player, the hand he is
    playing, and again when a card so received matches (VU-20), up to four hands; each of his
    hands then meets every stake still standing, so each player's hold and the bank's cover
    grow to match: the cover by what one more dealer hand can pay on each stake as it stands
    (``dealer_hand_exposure``). Returns the divided hand and the new one."""
    rnd = play.rnd
    if rnd.phase != "dealer":
        raise WrongPhase("the dealer divides his pair on his own turn", "VU-21")
    dealer_play.require_dealer(play, "VU-21")
    hand_id = rnd.dealer_in_turn()
    cards = rnd.rules_hand(hand_id)["cards"]
    if rnd.rules_hand(hand_id)["draws"] or len(cards) != 2:
        raise NotAPair(
            "only the first two cards of a hand may be divided; a third matching card gives "
            "no right to divide",
            "VU-22",
        )
    if not same_denomination(*cards):
        raise NotAPair(f"{' and '.join(cards)} are not of one denomination", "VU-18")
    dealer_hands = rnd.dealer_hand_ids()
    if len(dealer_hands) >= len(DEALER_HANDS):
        raise RuleViolation("four of a kind make at most four hands", "VU-20")
    new_id = DEALER_HANDS[len(dealer_hands)]
    for hand in rnd.live_hands():
        # His worst case grows by what one more dealer hand can take from his stake as it
        # stands: a drawn 21 takes double (VU-16). The double (VU-6) and the naturals the
        # first hold also covered are behind him.
        extra = 0 if play.rules.credit else play.rules.dealer_hand_exposure * hand["stake"]
        play.books.transfer(
            accounts.player(hand["player"]),
            play.escrow,
            extra,
            "VU-21",
            "the dealer divided his pair",
        )
        rnd.trigger_event(
            Round.HoldAdjusted,
            hand=hand["id"],
            amount=extra,
            clause="VU-21",
            memo="the dealer divided his pair",
            # Given, not left to the class default: the hash covers every field stored.
            to_hand="",
        )
        play.cover_bank(hand["stake"], "VU-21", exposure=play.rules.dealer_hand_exposure)
    dealer_penalties.hold_overdraw_penalty(play, new_id)
    rnd.trigger_event(
        Round.DealerDivided,
        card=cards[1],
        hand=hand_id,
        new_hand=new_id,
        clause="VU-21",
        actor=play.actor,
    )
    play.deal(hand_id, face_up=True, drawn=False, clause="VU-21")
    play.deal(new_id, face_up=True, drawn=False, clause="VU-21")
    return hand_id, new_id


def versus(total: int, dealer: int, dealer_bust: bool) -> tuple[int, list[str], bool]:
    """The player's net per stake against one dealer hand, its clauses, and whether the
    dealer's receipt was on a tie (VU-27 c). Public: the audit weighs a hand settled against
    his divided hands (VU-21) part by part with it (replay/audit_divided.py)."""
    if dealer_bust:
        return (2, ["VU-15", "VU-17"], False) if total == 21 else (1, ["VU-15"], False)
    if dealer == 21:  # VU-16, a drawn Vingt-un (a natural ended the round at the deal)
        return (-1, ["VU-16"], True) if total == 21 else (-2, ["VU-16"], False)
    if total == 21:
        return 2, ["VU-17"], False
    if total > dealer:
        return 1, ["VU-14"], False
    return -1, ["VU-14"], total == dealer


def settle(play: Play) -> None:
    rnd = play.rnd
    dealers = rnd.dealer_hand_ids()
    _check_standing(rnd)
    live = [hand["id"] for hand in rnd.live_hands()]
    # Divided (VU-21), each hand is settled against all of his: the event names every total.
    totals = {d: rnd.total(d) for d in dealers} if len(dealers) > 1 else None
    for hand_id in live:
        total, mult, clauses = rnd.total(hand_id), 0, []
        for dealer_id in dealers:
            part, why, _ = versus(total, *_dealer(rnd, dealer_id))
            mult += part
            clauses += [c for c in why if c not in clauses]
        if len(dealers) > 1:
            clauses.append("VU-21")
        outcome = "won" if mult > 0 else ("lost" if mult < 0 else "even")
        play.pay_hand(hand_id, mult, outcome, clauses, rnd.total(DEALER), dealer_totals=totals)
    dealer_penalties.pay_overdraw_penalties(play)
    dealer_penalties.pay_tie_share(play, *tie_share(play.rules, tie_receipts(rnd, live)))
    phases.end_round(play, *passes_deal(play))


def _check_standing(rnd: Round) -> None:
    """Every hand settled against the dealer stands at 21 or less: an over-draw pays at
    once (VU-12), and two cards given at once wait for their holder's choice (VU-23). A
    live hand over 21 was never stood by its holder, and paying it as standing (VU-14)
    would pay a hand the book has lost; refused, nothing written."""
    for hand in rnd.live_hands():
        total = rnd.total(hand["id"])
        if total <= 21:
            continue
        if hand.get("pending_two"):
            raise RuleViolation(
                f"hand {hand['id']} is at {total} with two cards given at once still to keep "
                "or reject: it cannot be settled as standing",
                "VU-23",
            )
        raise RuleViolation(
            f"hand {hand['id']} is at {total}, over 21, yet not settled as an over-draw: it "
            "cannot be settled as standing",
            "VU-12",
        )


def _dealer(rnd: Round, dealer_id: str) -> tuple[int, bool]:
    dealer = rnd.total(dealer_id)
    return dealer, dealer > 21


def tie_receipts(rnd: Round, hands: list[str]) -> int:
    """What the dealer received on ties (VU-27 c) from ``hands``, the hands he settled with
    at the end: a hand's stake for each of his hands it tied with."""
    receipts = 0
    for hand_id in hands:
        total = rnd.total(hand_id)
        for dealer_id in rnd.dealer_hand_ids():
            if versus(total, *_dealer(rnd, dealer_id))[2]:
                receipts += rnd.hands[hand_id]["stake"]
    return receipts


def tie_share(rules: Any, tie_receipts: int) -> tuple[int, str]:
    """VU-27 (c): the dealer pays the pool a share of what he received on ties, rounded by
    the table's ``rounding`` like every fractional payout; the memo records the fraction and
    the rounding (as ``HandSettled.rounding`` does), enough to recompute it by hand."""
    fraction = TIE_SHARE[rules.pool_tie_share]
    raw = fraction * tie_receipts
    share = rules.round_payout(raw)
    rounding = "none" if raw.denominator == 1 else f"{rules.rounding}: {raw} -> {share}"
    return share, f"share of receipts on ties: {fraction} of {tie_receipts}, rounding {rounding}"


def passes_deal(play: Play) -> tuple[bool, str]:
    rules = play.rules
    natural = not play.rnd.dealer_hand["natural"] and any(
        h["status"] == NATURAL for h in play.rnd.hands.values()
    )
    if natural and rules.natural_passes_deal and rules.deal_limit == "natural":
        return True, "VU-10"
    return False, "VU-14"
