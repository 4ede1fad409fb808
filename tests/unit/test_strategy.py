"""Spot checks of ledger.strategy against the published multi-deck basic strategy (the 1- and
2-deck charts: tests/unit/test_strategy_few_decks.py)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.strategy import (
    POLICIES,
    Decision,
    TableView,
    _total,
    basic_strategy,
    mimic_dealer,
)

H, S, D, P, R = (
    Decision.HIT,
    Decision.STAND,
    Decision.DOUBLE_DOWN,
    Decision.SPLIT,
    Decision.SURRENDER,
)

S17 = TableView(decks=6, dealer_hits_soft_17=False, double_after_split=True, surrender=True)
H17 = TableView(decks=6, dealer_hits_soft_17=True, double_after_split=True, surrender=True)
S17_NODAS = TableView(decks=6, dealer_hits_soft_17=False, double_after_split=False, surrender=True)
S17_NOSUR = TableView(decks=6, dealer_hits_soft_17=False, double_after_split=True, surrender=False)

UPS = ["2H", "3D", "4C", "5S", "6H", "7D", "8C", "9S", "TH", "AD"]


def play(cards, up, view=S17, hands=1, dbl=True, split=True, sur=True):
    return basic_strategy(
        tuple(cards.split()),
        up,
        view,
        hands_in_play=hands,
        can_double=dbl,
        can_split=split,
        can_surrender=sur,
    )


# ----------------------------------------------------------------------------- types


def test_decision_values():
    assert [d.value for d in Decision] == ["hit", "stand", "double_down", "split", "surrender"]
    assert Decision("double_down") is Decision.DOUBLE_DOWN
    assert Decision.HIT == "hit"


def test_tableview_defaults_and_frozen():
    v = TableView(decks=1, dealer_hits_soft_17=False, double_after_split=False, surrender=False)
    assert v.max_hands == 4
    assert v.double_on == "any_two"
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.decks = 2  # type: ignore[misc]


@pytest.mark.parametrize("kwargs", [{"decks": 0}, {"max_hands": 0}, {"double_on": "sometimes"}])
def test_tableview_rejects_bad_values(kwargs):
    base = dict(decks=6, dealer_hits_soft_17=False, double_after_split=True, surrender=True)
    base.update(kwargs)
    with pytest.raises(ValueError):
        TableView(**base)


@pytest.mark.parametrize(
    "cards, expected",
    [
        (("TH", "7C"), (17, False)),
        (("AS", "6D"), (17, True)),
        (("AS", "AD"), (12, True)),
        (("AS", "6D", "TC"), (17, False)),
        (("KS", "QD", "2C"), (22, False)),
        (("AS", "KD"), (21, True)),
        (("AS", "AD", "9C"), (21, True)),
        (("5S", "4D"), (9, False)),
    ],
)
def test_total(cards, expected):
    assert _total(cards) == expected


@pytest.mark.parametrize("bad", ["1H", "TX", "T", "10H", ""])
def test_invalid_cards_rejected(bad):
    with pytest.raises(ValueError):
        basic_strategy(("TH", "6C"), bad, S17, 1, True, True, True)
    with pytest.raises(ValueError):
        basic_strategy((bad, "6C"), "TH", S17, 1, True, True, True)


# ----------------------------------------------------------------------- hard totals


@pytest.mark.parametrize("up", UPS)
def test_hard_11_doubles_except_vs_ace_s17(up):
    expected = H if up[0] == "A" else D
    assert play("6H 5C", up) == expected


@pytest.mark.parametrize("up", UPS)
def test_hard_11_always_doubles_h17(up):
    assert play("6H 5C", up, H17) == D


def test_hard_11_vs_6_doubles():
    assert play("7S 4D", "6C") == D


@pytest.mark.parametrize("up, expected", list(zip(UPS, [D, D, D, D, D, D, D, D, H, H])))
def test_hard_10(up, expected):
    assert play("6H 4C", up) == expected


@pytest.mark.parametrize("up, expected", list(zip(UPS, [H, D, D, D, D, H, H, H, H, H])))
def test_hard_9(up, expected):
    assert play("6H 3C", up) == expected


@pytest.mark.parametrize("up, expected", list(zip(UPS, [H, H, S, S, S, H, H, H, H, H])))
def test_hard_12(up, expected):
    assert play("TH 2C", up) == expected


@pytest.mark.parametrize("cards", ["TH 3C", "9D 5S", "8C 7H", "TS 6D"])
@pytest.mark.parametrize("up, expected", list(zip(UPS, [S, S, S, S, S, H, H, H, H, H])))
def test_hard_13_to_16_without_surrender(cards, up, expected):
    assert play(cards, up, sur=False) == expected


@pytest.mark.parametrize("up", UPS)
@pytest.mark.parametrize("cards", ["5H 3C", "2D 3S", "4C 2H 2D"])
def test_hard_8_or_less_hits(cards, up):
    assert play(cards, up, split=False) == H


@pytest.mark.parametrize("up", UPS)
@pytest.mark.parametrize("cards", ["TH 7C", "9D 9S 2C", "TC 8H", "KD 2S 7C"])
def test_hard_17_plus_stands_s17(cards, up):
    assert play(cards, up, split=False) == S


def test_double_not_allowed_falls_back_to_hit():
    assert play("6H 5C", "6D", dbl=False) == H
    assert play("3H 2C 6S", "6D", dbl=False) == H
    assert play("AH 6C", "4D", dbl=False) == H


@pytest.mark.parametrize("view", [S17, H17])
def test_busted_or_21_stands(view):
    assert play("TH 6C 8D", "7S", view) == S
    assert play("AH KC", "AS", view) == S
    assert play("7H 7C 7D", "TS", view) == S


# ----------------------------------------------------------------------- soft totals


@pytest.mark.parametrize(
    "cards, row",
    [
        ("AH 2C", [H, H, H, D, D, H, H, H, H, H]),
        ("AH 3C", [H, H, H, D, D, H, H, H, H, H]),
        ("AH 4C", [H, H, D, D, D, H, H, H, H, H]),
        ("AH 5C", [H, H, D, D, D, H, H, H, H, H]),
        ("AH 6C", [H, D, D, D, D, H, H, H, H, H]),
        ("AH 7C", [S, D, D, D, D, S, S, H, H, H]),
        ("AH 8C", [S, S, S, S, S, S, S, S, S, S]),
        ("AH 9C", [S, S, S, S, S, S, S, S, S, S]),
    ],
)
def test_soft_chart_s17(cards, row):
    assert [play(cards, up) for up in UPS] == row


@pytest.mark.parametrize(
    "cards, row",
    [
        ("AH 7C", [D, D, D, D, D, S, S, H, H, H]),
        ("AH 8C", [S, S, S, S, D, S, S, S, S, S]),
        ("AH 6C", [H, D, D, D, D, H, H, H, H, H]),
    ],
)
def test_soft_chart_h17(cards, row):
    assert [play(cards, up, H17) for up in UPS] == row


def test_soft_18_spot_checks():
    assert play("AH 7C", "9D") == H
    assert play("AH 7C", "2D") == S
    assert play("AH 7C", "3D") == D


@pytest.mark.parametrize("up", ["3D", "4D", "5D", "6D"])
@pytest.mark.parametrize("view", [S17, H17])
def test_soft_18_ds_stands_when_double_not_allowed(up, view):
    assert play("AH 7C", up, view, dbl=False) == S
    assert play("AH 4C 3S", up, view, dbl=False) == S


def test_soft_19_vs_6_h17_stands_when_double_not_allowed():
    assert play("AH 8C", "6D", H17, dbl=False) == S


@pytest.mark.parametrize("up", UPS)
def test_multi_card_soft_hands(up):
    # A,2,2 = soft 15; without doubling it always hits.
    assert play("AH 2C 2D", up, dbl=False) == H
    # A,3,5 = soft 19 stands (S17).
    assert play("AH 3C 5D", up, dbl=False) == S


# ------------------------------------------------------------------------------ pairs


@pytest.mark.parametrize("view", [S17, H17, S17_NODAS, S17_NOSUR])
@pytest.mark.parametrize("up", UPS)
def test_aces_and_eights_always_split(view, up):
    assert play("AH AC", up, view) == P
    if not (view.dealer_hits_soft_17 and view.surrender and up[0] == "A"):
        assert play("8H 8C", up, view) == P


@pytest.mark.parametrize("view", [S17, H17, S17_NODAS])
@pytest.mark.parametrize("up", UPS)
@pytest.mark.parametrize("tens", ["TH TC", "KH QC", "JD TS"])
def test_tens_never_split(view, up, tens):
    assert play(tens, up, view) == S


@pytest.mark.parametrize("up, expected", list(zip(UPS, [D, D, D, D, D, D, D, D, H, H])))
def test_fives_never_split_played_as_hard_10(up, expected):
    assert play("5H 5C", up) == expected


def test_five_five_vs_6_doubles():
    assert play("5H 5C", "6S") == D


@pytest.mark.parametrize("up, expected", list(zip(UPS, [P, P, P, P, P, S, P, P, S, S])))
def test_nines(up, expected):
    assert play("9H 9C", up) == expected


def test_nine_nine_vs_7_stands():
    assert play("9H 9C", "7S") == S


@pytest.mark.parametrize(
    "cards, das_row, nodas_row",
    [
        ("2H 2C", [P, P, P, P, P, P, H, H, H, H], [H, H, P, P, P, P, H, H, H, H]),
        ("3H 3C", [P, P, P, P, P, P, H, H, H, H], [H, H, P, P, P, P, H, H, H, H]),
        ("4H 4C", [H, H, H, P, P, H, H, H, H, H], [H, H, H, H, H, H, H, H, H, H]),
        ("6H 6C", [P, P, P, P, P, H, H, H, H, H], [H, P, P, P, P, H, H, H, H, H]),
        ("7H 7C", [P, P, P, P, P, P, H, H, H, H], [P, P, P, P, P, P, H, H, H, H]),
    ],
)
def test_small_pairs_das_vs_no_das(cards, das_row, nodas_row):
    assert [play(cards, up, S17, sur=False) for up in UPS] == das_row
    assert [play(cards, up, S17_NODAS, sur=False) for up in UPS] == nodas_row


def test_four_four_vs_5():
    assert play("4H 4C", "5D", S17) == P
    assert play("4H 4C", "5D", S17_NODAS) == H


@pytest.mark.parametrize("max_hands", [1, 2, 3, 4])
@pytest.mark.parametrize(
    "cards, up, as_total",
    [
        ("8H 8C", "TD", H),  # hard 16 vs T (surrender not offered here)
        ("8H 8C", "6D", S),  # hard 16 vs 6
        ("AH AC", "6D", H),  # soft 12
        ("9H 9C", "6D", S),  # hard 18
        ("5H 5C", "6D", D),  # hard 10
        ("4H 4C", "5D", H),  # hard 8
        ("6H 6C", "4D", S),  # hard 12 vs 4
        ("2H 2C", "4D", H),  # hard 4
        ("7H 7C", "2D", S),  # hard 14 vs 2
    ],
)
def test_pair_at_max_hands_played_as_total(max_hands, cards, up, as_total):
    view = TableView(
        decks=6,
        dealer_hits_soft_17=False,
        double_after_split=True,
        surrender=False,
        max_hands=max_hands,
    )
    assert play(cards, up, view, hands=max_hands, sur=False) == as_total
    if max_hands > 1:
        assert play(cards, up, view, hands=max_hands - 1, sur=False) in (
            (P,)
            if cards in ("8H 8C", "AH AC", "9H 9C", "4H 4C", "6H 6C", "2H 2C", "7H 7C")
            else (as_total,)
        )


def test_pair_not_split_when_can_split_false():
    assert play("8H 8C", "6D", split=False) == S
    assert play("AH AC", "6D", split=False) == H


def test_no_double_after_split_without_das():
    # 5,5 after a split on a no-DAS table: hard 10 cannot be doubled -> hit.
    assert play("5H 5C", "6D", S17_NODAS, hands=2) == H
    assert play("6H 5C", "6D", S17_NODAS, hands=2) == H
    assert play("6H 5C", "6D", S17, hands=2) == D


# ------------------------------------------------------------------------- surrender


@pytest.mark.parametrize(
    "cards, up, view, fallback",
    [
        ("TH 6C", "9D", S17, H),
        ("TH 6C", "TD", S17, H),
        ("9H 7C", "KD", S17, H),
        ("TH 6C", "AD", S17, H),
        ("TH 5C", "TD", S17, H),
        ("TH 5C", "QD", H17, H),
        ("TH 5C", "AD", H17, H),
        ("TH 6C", "AD", H17, H),
        ("TH 7C", "AD", H17, S),
        ("8H 8C", "AD", H17, P),
    ],
)
def test_surrender_when_allowed_else_fallback(cards, up, view, fallback):
    assert play(cards, up, view, sur=True) == R
    assert play(cards, up, view, sur=False) == fallback
    no_ls = TableView(
        decks=view.decks,
        dealer_hits_soft_17=view.dealer_hits_soft_17,
        double_after_split=True,
        surrender=False,
    )
    assert play(cards, up, no_ls, sur=True) == fallback


def test_hard_16_vs_ten_surrenders_when_allowed_else_hits():
    assert play("TH 6C", "TD", sur=True) == R
    assert play("TH 6C", "TD", sur=False) == H


@pytest.mark.parametrize(
    "cards, up, view",
    [
        ("TH 5C", "AD", S17),  # 15 vs A: S17 does not surrender
        ("TH 7C", "AD", S17),  # 17 vs A: S17 does not surrender
        ("TH 5C", "9D", S17),
        ("TH 6C", "8D", S17),
        ("8H 8C", "TD", S17),  # 8,8 split, not surrendered
        ("8H 8C", "AD", S17),
        ("8H 8C", "TD", H17),
        ("7H 7C", "TD", S17),
        ("AH 5C", "TD", S17),  # soft hands never surrender
        ("TH 4C", "TD", H17),
        ("TH 6C", "6D", H17),
    ],
)
def test_no_surrender(cards, up, view):
    assert play(cards, up, view, sur=True) != R


def test_surrender_only_on_two_cards():
    assert play("TH 3C 3D", "TD", sur=True) == H
    assert play("TH 4C 3D", "AD", H17, sur=True) == S


def test_unsplittable_eights_surrender_as_hard_16():
    assert play("8H 8C", "TD", split=False, sur=True) == R


# ------------------------------------------------------------------------ double_on


@pytest.mark.parametrize(
    "double_on, cards, up, expected",
    [
        ("10_11", "5H 4C", "5D", H),  # 9 not doublable
        ("10_11", "6H 4C", "5D", D),
        ("9_11", "5H 4C", "5D", D),
        ("9_11", "AH 6C", "5D", H),  # soft 17 not doublable
        ("9_11", "AH 7C", "5D", S),  # soft 18 Ds -> stand
        ("any_two", "AH 7C", "5D", D),
        ("none", "6H 5C", "6D", H),  # a table without doubles: 11 hits
        ("none", "AH 7C", "5D", S),
    ],
)
def test_double_on_restrictions(double_on, cards, up, expected):
    view = TableView(
        decks=6,
        dealer_hits_soft_17=False,
        double_after_split=True,
        surrender=True,
        double_on=double_on,
    )
    assert play(cards, up, view) == expected


# ---------------------------------------------------------------------------- mimic


@pytest.mark.parametrize(
    "cards, expected",
    [
        ("TH 6C", H),
        ("TH 7C", S),
        ("AH 6C", S),  # soft 17 stands
        ("AH 5C", H),  # soft 16 hits
        ("AH 5C TD", H),  # hard 16
        ("AH 6C TD", S),  # hard 17
        ("5H 5C", H),
        ("AH AC", H),
        ("TH 9C", S),
        ("TH 6C 9D", S),  # bust: stand
    ],
)
@pytest.mark.parametrize("up", ["2H", "TD", "AS"])
def test_mimic_dealer(cards, up, expected):
    assert mimic_dealer(tuple(cards.split()), up, S17) == expected
    assert (
        mimic_dealer(
            tuple(cards.split()),
            up,
            H17,
            hands_in_play=2,
            can_double=True,
            can_split=True,
            can_surrender=True,
        )
        == expected
    )


def test_policies_uniform_signature():
    assert POLICIES["basic"] is basic_strategy
    assert POLICIES["mimic"] is mimic_dealer
    for name, policy in POLICIES.items():
        d = policy(
            ("TH", "6C"),
            "7D",
            S17,
            hands_in_play=1,
            can_double=True,
            can_split=True,
            can_surrender=False,
        )
        assert d == H, name
        d = policy(("TH", "6C"), "7D", S17, 1, True, True, False)
        assert d == H, name


# ------------------------------------------------------------------------ properties

_card = st.builds(lambda r, s: r + s, st.sampled_from("A23456789TJQK"), st.sampled_from("CDHS"))
_view = st.builds(
    TableView,
    decks=st.integers(1, 8),
    dealer_hits_soft_17=st.booleans(),
    double_after_split=st.booleans(),
    surrender=st.booleans(),
    max_hands=st.integers(1, 4),
    double_on=st.sampled_from(["any_two", "9_11", "10_11"]),
)


@settings(max_examples=400, deadline=None)
@given(
    cards=st.lists(_card, min_size=2, max_size=5).map(tuple),
    up=_card,
    view=_view,
    hands=st.integers(1, 4),
    can_double=st.booleans(),
    can_split=st.booleans(),
    can_surrender=st.booleans(),
)
def test_basic_strategy_respects_permissions(
    cards, up, view, hands, can_double, can_split, can_surrender
):
    d = basic_strategy(cards, up, view, hands, can_double, can_split, can_surrender)
    assert isinstance(d, Decision)
    total, soft = _total(cards)
    if not can_double:
        assert d != D
    if d == P:
        assert can_split and len(cards) == 2 and hands < view.max_hands
        assert _total(cards[:1])[0] == _total(cards[1:])[0]
    if d == R:
        assert can_surrender and view.surrender and len(cards) == 2 and not soft
    if total >= 21:
        assert d == S
    if total >= 17 and not soft:
        assert d in (S, R, P)
    if total <= 11 and not soft:
        assert d in (H, D, P)
