"""Every pair of option values of each family played, in seeded random legal rounds.

``test_every_option_value_is_played`` sets one value at a time; hypothesis draws whole mixes,
but at random. Here each family's option table (``CHOICES``) becomes a covering array
(all-pairs, ``allpairspy``): a list of table configurations in which every two values of two
different options meet at least once. Each configuration is played for a few seeded examples
through the property harness (every check of tests/property/test_random_rounds.py, and
``replay verify`` on the store at the end).

A pair the rules refuse at opening would be left out of the array, but only if it is listed
in ``REFUSED_PAIRS`` with its reason: a test opens a table with every pair and fails on a
refusal not listed (or a listed one accepted), so a new refusal cannot silently shrink the
coverage. The tests below also keep ``CHOICES`` complete: every option of every rule set is in
it, or in ``NOT_CHOSEN`` with the reason it is played elsewhere.
"""

from __future__ import annotations

import zlib
from collections import OrderedDict
from dataclasses import MISSING, fields
from itertools import combinations
from typing import Any, get_type_hints

import pytest
from allpairspy import AllPairs
from test_random_rounds import BASE, CHOICES, FAMILIES, Dice, play_example

from ledger.application import TwentyOneLedger
from ledger.config import store_env
from ledger.errors import InvalidRules
from ledger.rules import FAMILIES as RULE_SETS
from ledger.rules.base import ROUNDING_MODES
from ledger.rules.casino import DOUBLE_ON, PAYOUTS, SOFT17
from ledger.rules.hoyle import DEAL_PASSES
from ledger.rules.vingt_un import ANTE_EACH, DEAL_LIMITS, DEALER_CHOICE, TIE_SHARES

Value = tuple[str, Any]  # (option, value)

LIMITS = {"min_stake": 100, "max_stake": 1_000}
# Options that one value of another option needs, with the clause that says so: opened without
# them, the table is refused (``test_an_option_value_needing_another_is_refused_without_it``).
NEEDS: dict[tuple[str, str, Any], tuple[dict[str, Any], str]] = {
    ("vingt-un", "deal_limit", "hands"): ({"deal_hands": 2}, "VU-29: a number of hands"),
}
# Pairs of CHOICES values that the rules refuse when a table opens, by family, with the reason;
# left out of the covering arrays. None today: every pair of values opens a table.
REFUSED_PAIRS: dict[str, dict[frozenset[Value], str]] = {family: {} for family in FAMILIES}
# Every option of a rule set that is not in CHOICES, and why (the option-table tests below).
NOT_CHOSEN: dict[str, dict[str, str]] = {
    "common": {
        "min_stake": "a range: drawn by the strategies' limits(); LIMITS here",
        "max_stake": "a range: drawn by the strategies' limits(); LIMITS here",
        "max_players": "the harness seats at most five at the default seven seats",
        "client_seed": "an input of the shuffle, not of play (tests/unit/test_shuffle.py)",
    },
    "casino": {
        "decks": "a range: drawn by casino_options(); one deck here, so that shoes run out",
        "penetration": "a range: drawn by casino_options()",
        "burn": "a range: drawn by casino_options()",
    },
    "vingt-un": {
        "deal_hands": "needed by deal_limit 'hands' (NEEDS); a range otherwise",
        "natural_collects_from_players": (
            "VU-10 payments between hands are not in the harness's oracle (book_result); "
            "paired with every value above by tests/replay/test_verify_money_random.py"
        ),
        "penalty_amount": (
            "VU-26 penalties follow irregularities, which the harness does not commit; "
            "paired with every value above by tests/replay/test_verify_money_random.py"
        ),
    },
    "hoyle-1913": {
        "fixed_bet": "a range within the limits: drawn by hoyle_options()",
        "natural_takes_table": (
            "H13-6's variation: the natural's holder takes every stake on the table, which "
            "the harness's oracle (book_result) does not model; the clause tests play it"
        ),
    },
    "ochko": {
        "bank_cap": (
            "OC-3 refuses stakes past the cap, which the harness draws freely within the "
            "limits; the clause and rejection tests play it"
        ),
    },
}
# The allowed values of each text option, as the rule modules list them.
ALLOWED_TEXT: dict[str, tuple[str, ...]] = {
    "rounding": ROUNDING_MODES,
    "soft17": SOFT17,
    "blackjack_payout": tuple(PAYOUTS),
    "double_on": DOUBLE_ON,
    "dealer_choice": DEALER_CHOICE,
    "deal_limit": DEAL_LIMITS,
    "ante_each": ANTE_EACH,
    "pool_tie_share": TIE_SHARES,
    "deal_passes": DEAL_PASSES,
}
SEEDS = 4  # seeded examples per configuration
ROUNDS = 8  # rounds per example


def option_table(family: str, extra: dict[str, list[Any]] | None = None) -> OrderedDict:
    """The family's options in CHOICES (and ``extra`` ones), each with its values."""
    return OrderedDict({**CHOICES["common"], **CHOICES[family], **(extra or {})})


def pairs_of(table: dict[str, list[Any]]) -> set[frozenset[Value]]:
    """Every pair of values of two different options of the table."""
    return {
        frozenset({(a, x), (b, y)})
        for a, b in combinations(table, 2)
        for x in table[a]
        for y in table[b]
    }


def pairs_in(configuration: dict[str, Any]) -> set[frozenset[Value]]:
    return {frozenset(pair) for pair in combinations(configuration.items(), 2)}


def opening_options(family: str, chosen: dict[str, Any]) -> dict[str, Any]:
    """The options a table is opened with: the limits, the family's base, the chosen values,
    and what those values need."""
    options = {**LIMITS, **BASE[family], **chosen}
    for name, value in chosen.items():
        options |= NEEDS.get((family, name, value), ({}, ""))[0]
    return options


def covering_array(family: str, extra: dict[str, list[Any]] | None = None) -> list[dict]:
    """Configurations in which every pair of values of the family's options (``extra`` ones
    included) but the refused ones meets at least once."""
    table = option_table(family, extra)
    refused = REFUSED_PAIRS[family]

    def allowed(row: list[Any]) -> bool:
        return not pairs_in(dict(zip(table, row))) & refused.keys()

    return [dict(row._asdict()) for row in AllPairs(table, filter_func=allowed)]


def check_covering(family: str, array: list[dict], extra: dict[str, list[Any]] | None = None):
    """Every allowed pair is in a configuration of ``array``, no refused one is, and each
    configuration sets every option to one of its values."""
    table = option_table(family, extra)
    played = set().union(*(pairs_in(chosen) for chosen in array))
    refused = set(REFUSED_PAIRS[family])
    assert refused <= pairs_of(table), "REFUSED_PAIRS names a pair CHOICES cannot make"
    assert pairs_of(table) - refused - played == set(), "pairs never played"
    assert not played & refused, "a refused pair in a configuration"
    for chosen in array:
        assert list(chosen) == list(table) and all(chosen[n] in table[n] for n in table)


ARRAYS = {family: covering_array(family) for family in FAMILIES}
CONFIGURATIONS = [
    pytest.param(family, chosen, id=f"{family}-{i:02d}")
    for family in FAMILIES
    for i, chosen in enumerate(ARRAYS[family])
]


# --- the option table ---------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_every_option_of_the_rules_is_chosen_from_or_excused(family):
    """An option added to a rule set fails here until CHOICES plays it or NOT_CHOSEN says why."""
    options = {f.name for f in fields(RULE_SETS[family])}
    chosen = set(option_table(family))
    excused = set(NOT_CHOSEN["common"]) | set(NOT_CHOSEN[family])
    assert not chosen & excused, f"both chosen and excused: {sorted(chosen & excused)}"
    assert options - chosen - excused == set(), "options neither in CHOICES nor in NOT_CHOSEN"
    assert (chosen | excused) - options == set(), "CHOICES or NOT_CHOSEN name no option"


@pytest.mark.parametrize("family", FAMILIES)
def test_every_value_an_option_allows_is_chosen(family):
    """A yes/no option offers both; a text option every value its rule module allows; every
    option its default (so a new value in DOUBLE_ON, say, fails here until it is played)."""
    rules = RULE_SETS[family]
    hints = get_type_hints(rules)
    defaults = {f.name: f.default for f in fields(rules) if f.default is not MISSING}
    for name, values in option_table(family).items():
        assert len(set(map(repr, values))) == len(values) > 1, f"{name}: {values}"
        assert defaults[name] in values, f"{name}: the default {defaults[name]!r} not chosen"
        if hints[name] is bool:
            assert sorted(values) == [False, True], name
        elif hints[name] is str:
            assert name in ALLOWED_TEXT, f"text option {name}: add its allowed values above"
            assert sorted(values) == sorted(ALLOWED_TEXT[name]), name


@pytest.mark.parametrize("family", FAMILIES)
def test_every_pair_of_values_opens_a_table_unless_listed_as_refused(family):
    """Each pair of values on its own (the rest at their defaults): opened, or refused with
    ``InvalidRules`` and nothing written if and only if REFUSED_PAIRS lists it."""
    app = TwentyOneLedger(env=store_env("memory", environ={}))
    try:
        refused = set()
        for pair in sorted(pairs_of(option_table(family)), key=repr):
            options = opening_options(family, dict(pair))
            written = app.recorder.max_notification_id()
            try:
                app.open_table(family, options)
            except InvalidRules as error:
                assert app.recorder.max_notification_id() == written, f"{pair} wrote: {error}"
                assert error.details["option"] in {name for name, _ in pair}, (pair, error)
                refused.add(pair)
        assert refused == set(REFUSED_PAIRS[family]), (
            "refused at opening but not listed in REFUSED_PAIRS (or listed but accepted)"
        )
    finally:
        app.close()


@pytest.mark.parametrize(("key", "need"), NEEDS.items(), ids=[k[2] for k in NEEDS])
def test_an_option_value_needing_another_is_refused_without_it(key, need):
    """Why NEEDS adds to a configuration: without it the table is refused (``InvalidRules``
    naming the missing option, nothing written); with it, it opens."""
    family, name, value = key
    app = TwentyOneLedger(env=store_env("memory", environ={}))
    try:
        with pytest.raises(InvalidRules) as refused:
            app.open_table(family, {**LIMITS, name: value})
        assert refused.value.details["option"] in need[0]  # InvalidRules names the option
        assert app.recorder.max_notification_id() is None  # nothing written
        app.open_table(family, {**LIMITS, name: value, **need[0]})  # and opens with it
    finally:
        app.close()


# --- the covering arrays ------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_the_covering_array_holds_every_allowed_pair_and_no_refused_one(family):
    check_covering(family, ARRAYS[family])


@pytest.mark.slow
@pytest.mark.parametrize(("family", "chosen"), CONFIGURATIONS)
def test_every_pair_of_option_values_is_played(family, chosen):
    """One configuration of the covering array: a few seeded examples of random legal play,
    every property of the harness checked after each command and round, and ``replay
    verify`` passing on each example's store."""
    options = opening_options(family, chosen)
    for k in range(SEEDS):
        seed = zlib.crc32(f"pairs/{family}/{sorted(chosen.items())}/{k}".encode())
        play_example(Dice(seed), family, options, rounds=ROUNDS, audit=True)
