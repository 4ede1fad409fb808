"""Rule sets: every option validated when a table opens, recorded whole, rebuilt as recorded."""

from fractions import Fraction

import pytest

from ledger.accounts import MAX_AMOUNT
from ledger.errors import InvalidRules
from ledger.rules import FAMILIES, rules_for, rules_from_record


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_defaults_round_trip_through_the_record(family):
    rules = rules_for(family)

    record = rules.to_dict()

    assert record["family"] == family
    assert rules_from_record(record) == rules


def test_the_record_holds_every_option_so_old_tables_never_use_new_defaults():
    record = rules_for("casino", {"decks": 2}).to_dict()

    assert {"decks", "soft17", "blackjack_payout", "penetration", "min_stake", "credit"} <= set(
        record
    )
    assert record["decks"] == 2


@pytest.mark.parametrize(
    ("family", "options", "named"),
    [
        ("casino", {"decks": 9}, "decks"),
        ("casino", {"soft17": "sometimes"}, "soft17"),
        ("casino", {"blackjack_payout": "2:1"}, "blackjack_payout"),
        ("casino", {"penetration": 99}, "penetration"),
        ("casino", {"double_on": "any"}, "double_on"),
        ("casino", {"decks": "6"}, "decks"),
        ("casino", {"decks": True}, "decks"),
        ("vingt-un", {"deal_limit": "forever"}, "deal_limit"),
        ("vingt-un", {"deal_limit": "hands"}, "deal_hands"),
        ("vingt-un", {"pool_tie_share": "1/2"}, "pool_tie_share"),
        ("vingt-un", {"pool_ante": -1}, "pool_ante"),
        ("hoyle-1913", {"fixed_bet": 5, "min_stake": 10}, "fixed_bet"),
        ("hoyle-1913", {"deal_passes": "sometimes"}, "deal_passes"),
        ("ochko", {"bank_cap": 1}, "bank_cap"),
        ("ochko", {"surrender": True}, "surrender"),
        ("vingt-un", {"min_stake": 500, "max_stake": 100}, "max_stake"),
        ("vingt-un", {"rounding": "bankers"}, "rounding"),
    ],
)
def test_a_bad_option_is_refused_naming_it(family, options, named):
    with pytest.raises(InvalidRules) as refused:
        rules_for(family, options)

    assert named in str(refused.value)


def test_an_unknown_family_is_refused_listing_the_families():
    with pytest.raises(InvalidRules, match="vingt-un, hoyle-1913, ochko, casino"):
        rules_for("baccarat")


@pytest.mark.parametrize(
    ("mode", "value", "expected"),
    [
        ("down", Fraction(615, 2), 307),
        ("half_up", Fraction(615, 2), 308),
        ("up", Fraction(1231, 5), 247),
        ("down", Fraction(1231, 5), 246),
        ("half_up", Fraction(1231, 5), 246),
        ("down", Fraction(300), 300),
    ],
)
def test_fractional_payouts_follow_the_tables_rounding(mode, value, expected):
    assert rules_for("casino", {"rounding": mode}).round_payout(value) == expected


@pytest.mark.parametrize(
    ("family", "options", "packs"),
    [
        ("vingt-un", {}, 1),
        ("vingt-un", {"deal_limit": "two_packs"}, 2),
        ("hoyle-1913", {}, 1),
        ("ochko", {}, 2),
        ("casino", {"decks": 8}, 8),
    ],
)
def test_packs_per_shoe_come_from_the_rules(family, options, packs):
    assert rules_for(family, options).packs == packs


def test_casino_double_on_restricts_totals():
    rules = rules_for("casino", {"double_on": "10-11"})

    assert [t for t in range(4, 21) if rules.may_double(t)] == [10, 11]


def _integer_options():
    for family in sorted(FAMILIES):
        for name, value in sorted(rules_for(family).to_dict().items()):
            if name != "family" and (type(value) is int or name in ("bank_cap", "fixed_bet")):
                yield family, name


@pytest.mark.parametrize(("family", "option"), list(_integer_options()))
@pytest.mark.parametrize("value", [MAX_AMOUNT + 1, 2**63, 10**30])
def test_every_integer_option_is_bounded_by_the_ledgers_amount_bound(family, option, value):
    with pytest.raises(InvalidRules, match=f"{option} must be at most {MAX_AMOUNT}") as info:
        rules_for(family, {option: value})
    assert info.value.details["option"] == option


def test_limits_up_to_the_bound_are_accepted():
    rules = rules_for("vingt-un", {"max_stake": MAX_AMOUNT, "penalty_amount": MAX_AMOUNT})
    assert rules.max_stake == MAX_AMOUNT
