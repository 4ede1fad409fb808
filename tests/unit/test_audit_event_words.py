"""The audit page's one line per event, where it says more than the event's type."""

from api.audit_event_words import describe, timeline
from api.audit_value_words import money


def _started(**data):
    return describe({"type": "Started", "data": {"number": 7, **data}})


def test_a_private_rounds_start_says_which_round_of_the_deal_it_is():
    assert _started(round_of_deal=3, rules={"family": "vingt-un"}) == (
        "Round 7 started, round 3 of the deal"
    )


def test_a_casino_round_or_one_recorded_before_the_count_says_only_its_number():
    assert _started(round_of_deal=9, rules={"family": "casino"}) == "Round 7 started"
    assert _started(round_of_deal=0, rules={"family": "ochko"}) == "Round 7 started"
    assert _started(rules={"family": "hoyle-1913"}) == "Round 7 started"


def _held(**data):
    return describe({"type": "HoldAdjusted", "data": {"hand": "h1", "clause": "X", **data}})


def test_a_hold_released_to_its_own_holder_is_no_payment_to_another_player():
    # Hoyle, once the deal shows no natural (H13-5): paid to the holder of the hand itself.
    assert _held(amount=-20000, to_hand="h1") == (
        "Money held for hand 1 lowered by " + money(20000) + ", released to its holder"
    )
    assert _held(amount=-20000, to_hand="h2").endswith("to the holder of hand 2")


def _covered(amount, clause):
    return describe({"type": "BankCovered", "data": {"amount": amount, "clause": clause}})


def test_the_dealers_cover_for_a_penalty_says_what_it_is_for():
    # ledger/games/dealer_penalties.py: held for VU-27 (b), released to pay it or VU-26.
    assert _covered(50, "VU-27") == (
        "The bank's cover was set aside for the dealer's over-draw penalty (VU-27 b)"
    )
    assert _covered(-50, "VU-27") == (
        f"{money(50)} of the bank's cover was released back to the banker to pay the "
        "dealer's over-draw penalty (VU-27 b)"
    )
    assert _covered(-50, "VU-26").endswith(
        "to pay the dealer's penalty (VU-26), from cover the round could no longer cost him"
    )
    assert _covered(400, "VU-5") == "The bank's cover was set aside"
    assert _covered(-300, "VU-14") == (
        f"The rest of the bank's cover, {money(300)}, was released back to the banker"
    )


def _released_for(rules, *events):
    """What each release of the dealer's cover under VU-27 says it pays, on the timeline of a
    round of ``events`` (type, data) at a table of ``rules``."""
    report = {"rules": rules, "events": [{"type": t, "data": d} for t, d in events]}
    lines = [describe(e) for e in timeline(report) if e["type"] == "BankCovered"]
    return [line.split(" to pay ")[1] for line in lines if " to pay " in line]


OVERDREW = ("HandOverdrawn", {"hand": "dealer2", "total": 25})
RELEASED = ("BankCovered", {"amount": -50, "clause": "VU-27"})
OVERDRAW_WORDS = "the dealer's over-draw penalty (VU-27 b)"
TIE_WORDS = "the dealer's share of his receipts on ties (VU-27 c)"


def test_a_release_of_cover_for_the_tie_share_is_told_from_the_over_draw_penaltys():
    # ledger/games/dealer_penalties.py: at settlement the over-draw penalty's release comes
    # first, only when a dealer hand over-drew at a table taking it; the tie share's next.
    both = {"pool_dealer_overdraw": 50, "pool_tie_share": "1/3"}
    assert _released_for(both, OVERDREW, RELEASED, RELEASED) == [OVERDRAW_WORDS, TIE_WORDS]
    assert _released_for(both, OVERDREW, RELEASED) == [OVERDRAW_WORDS]  # no tie
    assert _released_for(both, RELEASED) == [TIE_WORDS]  # he over-drew no hand
    no_penalty = {"pool_dealer_overdraw": 0, "pool_tie_share": "1/3"}
    assert _released_for(no_penalty, OVERDREW, RELEASED) == [TIE_WORDS]
    a_player_overdrew = ("HandOverdrawn", {"hand": "h1", "total": 24})
    assert _released_for(both, a_player_overdrew, RELEASED) == [TIE_WORDS]
