"""The audit page's one line per event, where it says more than the event's type."""

from api.audit_words import describe


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
