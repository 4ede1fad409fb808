"""The 1- and 2-deck basic-strategy charts (ledger/strategy_charts_few_decks.py): every cell in
which they differ from the 4-8-deck chart, pinned by the play it makes, and the 4-8-deck play
left as it was for three decks or more."""

from __future__ import annotations

import hashlib
import itertools

import pytest
from test_strategy import play

from ledger.strategy import Decision, TableView, basic_strategy, charts_for
from ledger.strategy_charts import MULTI_DECK
from ledger.strategy_charts_few_decks import ONE_DECK, TWO_DECKS

H, S, D, P, R = (
    Decision.HIT,
    Decision.STAND,
    Decision.DOUBLE_DOWN,
    Decision.SPLIT,
    Decision.SURRENDER,
)
S17, H17 = False, True


def view(decks, h17, das=True, surrender=False):
    return TableView(
        decks=decks, dealer_hits_soft_17=h17, double_after_split=das, surrender=surrender
    )


# The chart cells each test below pins: (decks, h17, chart, row, up-card).  The last test checks
# that together they are every cell in which a 1- or 2-deck chart differs from the 4-8-deck one.
PINNED: set[tuple[int, bool, str, str, str]] = set()


def pins(*cells):
    PINNED.update(cells)
    return cells


# ------------------------------------------------------------------------------ doubling


@pytest.mark.parametrize(
    "decks, h17, _chart, _row, up",
    pins(*[(1, h17, "hard", "8", up) for h17 in (S17, H17) for up in "56"]),
)
def test_one_deck_doubles_eight_against_a_five_or_six(decks, h17, _chart, _row, up):
    table = view(decks, h17)
    assert play("5H 3C", f"{up}D", table) == D
    assert play("5H 3C", f"{up}D", table, dbl=False) == H
    assert play("5H 3C", "4D", table) == H
    assert play("5H 3C", f"{up}D", view(6, h17)) == H


@pytest.mark.parametrize(
    "decks, h17, _chart, _row, _up",
    pins(*[(decks, h17, "hard", "9", "2") for decks in (1, 2) for h17 in (S17, H17)]),
)
def test_one_and_two_decks_double_nine_against_a_two(decks, h17, _chart, _row, _up):
    assert play("5H 4C", "2D", view(decks, h17)) == D
    assert play("5H 4C", "2D", view(3, h17)) == H


@pytest.mark.parametrize(
    "decks, h17, _chart, _row, _up", pins((1, S17, "hard", "11", "A"), (2, S17, "hard", "11", "A"))
)
def test_one_and_two_decks_double_eleven_against_an_ace_when_the_dealer_stands_on_soft_17(
    decks, h17, _chart, _row, _up
):
    assert play("6H 5C", "AD", view(decks, h17)) == D
    assert play("6H 5C", "AD", view(6, h17)) == H


@pytest.mark.parametrize(
    "decks, h17, _chart, row, _up",
    pins(*[(1, h17, "soft", row, "4") for h17 in (S17, H17) for row in ("13", "14")]),
)
def test_one_deck_doubles_soft_13_and_14_against_a_four(decks, h17, _chart, row, _up):
    hand = {"13": "AH 2C", "14": "AH 3C"}[row]
    assert play(hand, "4D", view(decks, h17)) == D
    assert play(hand, "4D", view(2, S17)) == H


@pytest.mark.parametrize("decks, h17, _chart, _row, _up", pins((2, H17, "soft", "14", "4")))
def test_two_decks_double_soft_14_against_a_four_only_when_the_dealer_hits_soft_17(
    decks, h17, _chart, _row, _up
):
    assert play("AH 3C", "4D", view(decks, h17)) == D
    assert play("AH 3C", "4D", view(decks, S17)) == H
    assert play("AH 3C", "4D", view(decks, h17), dbl=False) == H


@pytest.mark.parametrize(
    "decks, h17, _chart, _row, _up", pins(*[(1, h17, "soft", "17", "2") for h17 in (S17, H17)])
)
def test_one_deck_doubles_soft_17_against_a_two(decks, h17, _chart, _row, _up):
    assert play("AH 6C", "2D", view(decks, h17)) == D
    assert play("AH 6C", "2D", view(2, h17)) == H


@pytest.mark.parametrize("decks, h17, _chart, _row, _up", pins((1, S17, "soft", "19", "6")))
def test_one_deck_doubles_soft_19_against_a_six_when_the_dealer_stands_on_soft_17(
    decks, h17, _chart, _row, _up
):
    assert play("AH 8C", "6D", view(decks, h17)) == D
    assert play("AH 8C", "6D", view(decks, h17), dbl=False) == S
    assert play("AH 8C", "6D", view(2, h17)) == S


# --------------------------------------------------------------------- standing, hitting


@pytest.mark.parametrize("decks, h17, _chart, _row, _up", pins((1, S17, "soft", "18", "A")))
def test_one_deck_stands_on_soft_18_against_an_ace_when_the_dealer_stands_on_soft_17(
    decks, h17, _chart, _row, _up
):
    assert play("AH 7C", "AD", view(decks, h17)) == S
    assert play("AH 7C", "AD", view(decks, H17)) == H
    # Two decks hit it: the 2-card soft 18 is the better hit (Wizard, 2-deck page).
    assert play("AH 7C", "AD", view(2, h17)) == H


@pytest.mark.parametrize("decks, h17, _chart, _row, _up", pins((1, H17, "soft", "18", "2")))
def test_one_deck_stands_on_soft_18_against_a_two_when_the_dealer_hits_soft_17(
    decks, h17, _chart, _row, _up
):
    assert play("AH 7C", "2D", view(decks, h17)) == S
    assert play("AH 7C", "2D", view(2, h17)) == D


def test_one_deck_stands_on_soft_20_against_a_six():
    # One copy of Wizard's 1-deck H17 chart doubles it; the chart and the exact EV stand.
    for h17 in (S17, H17):
        assert play("AH 9C", "6D", view(1, h17)) == S


# ------------------------------------------------------------------------------ splitting


@pytest.mark.parametrize(
    "decks, h17, _chart, _row, _up", pins(*[(1, h17, "pairs", "2,2", "3") for h17 in (S17, H17)])
)
def test_one_deck_splits_twos_against_a_three_without_das(decks, h17, _chart, _row, _up):
    assert play("2H 2C", "3D", view(decks, h17, das=False)) == P
    assert play("2H 2C", "2D", view(decks, h17, das=False)) == H
    assert play("2H 2C", "3D", view(2, h17, das=False)) == H


@pytest.mark.parametrize(
    "decks, h17, _chart, _row, _up",
    pins(*[(decks, h17, "pairs", "6,6", "2") for decks in (1, 2) for h17 in (S17, H17)]),
)
def test_one_and_two_decks_split_sixes_against_a_two_without_das(decks, h17, _chart, _row, _up):
    assert play("6H 6C", "2D", view(decks, h17, das=False)) == P
    assert play("6H 6C", "2D", view(6, h17, das=False)) == H


@pytest.mark.parametrize(
    "decks, h17, _chart, row, up",
    pins(
        *[
            (decks, h17, "pairs", row, up)
            for decks in (1, 2)
            for h17 in (S17, H17)
            for row, up in (("6,6", "7"), ("7,7", "8"))
        ]
    ),
)
def test_one_and_two_decks_split_sixes_against_a_seven_and_sevens_against_an_eight_with_das(
    decks, h17, _chart, row, up
):
    hand = {"6,6": "6H 6C", "7,7": "7H 7C"}[row]
    assert play(hand, f"{up}D", view(decks, h17)) == P
    assert play(hand, f"{up}D", view(decks, h17, das=False)) == H
    assert play(hand, f"{up}D", view(6, h17)) == H


@pytest.mark.parametrize(
    "decks, h17, _chart, row, up",
    pins(
        *[
            (1, h17, "pairs", row, up)
            for h17 in (S17, H17)
            for row, up in (("3,3", "8"), ("4,4", "4"))
        ]
    ),
)
def test_one_deck_splits_threes_against_an_eight_and_fours_against_a_four_with_das(
    decks, h17, _chart, row, up
):
    hand = {"3,3": "3H 3C", "4,4": "4H 4C"}[row]
    assert play(hand, f"{up}D", view(decks, h17)) == P
    assert play(hand, f"{up}D", view(decks, h17, das=False)) == H
    assert play(hand, f"{up}D", view(2, h17)) == H


def test_one_deck_doubles_fours_against_a_five_or_six_without_das():
    # Wizard's 1-deck "Pd": split with DAS, otherwise double (the hard 8's play).
    for h17, up in itertools.product((S17, H17), ("5D", "6D")):
        assert play("4H 4C", up, view(1, h17)) == P
        assert play("4H 4C", up, view(1, h17, das=False)) == D
        assert play("4H 4C", up, view(2, h17, das=False)) == H


@pytest.mark.parametrize("decks, h17, _chart, _row, _up", pins((1, H17, "pairs", "9,9", "A")))
def test_one_deck_splits_nines_against_an_ace_with_das_when_the_dealer_hits_soft_17(
    decks, h17, _chart, _row, _up
):
    assert play("9H 9C", "AD", view(decks, h17)) == P
    assert play("9H 9C", "AD", view(decks, h17, das=False)) == S
    assert play("9H 9C", "AD", view(decks, S17)) == S


@pytest.mark.parametrize(
    "decks, h17, _chart, _row, _up", pins(*[(1, h17, "pairs", "7,7", "T") for h17 in (S17, H17)])
)
def test_one_deck_stands_on_sevens_against_a_ten(decks, h17, _chart, _row, _up):
    assert play("7H 7C", "TD", view(decks, h17)) == S
    # A hard 14 of other cards hits; so does 7,7 that cannot be split any more.
    assert play("9H 5C", "TD", view(decks, h17)) == H
    assert play("7H 7C", "TD", view(decks, h17), hands=4) == H
    assert play("7H 7C", "TD", view(2, h17)) == H


# ----------------------------------------------------------------------------- surrender


@pytest.mark.parametrize(
    "decks, h17, _chart, _row, _up",
    pins(*[(1, h17, "surrender", "7,7", "T") for h17 in (S17, H17)]),
)
def test_one_deck_surrenders_sevens_against_a_ten_and_stands_if_it_cannot(
    decks, h17, _chart, _row, _up
):
    table = view(decks, h17, surrender=True)
    assert play("7H 7C", "TD", table) == R
    assert play("7H 7C", "TD", table, hands=2, sur=False) == S
    assert play("7H 7C", "TD", view(2, h17, surrender=True)) == H


@pytest.mark.parametrize("decks, h17, _chart, _row, _up", pins((1, H17, "surrender", "7,7", "A")))
def test_one_deck_surrenders_sevens_against_an_ace_when_the_dealer_hits_soft_17(
    decks, h17, _chart, _row, _up
):
    assert play("7H 7C", "AD", view(decks, h17, surrender=True)) == R
    assert play("7H 7C", "AD", view(decks, h17)) == H
    assert play("7H 7C", "AD", view(decks, S17, surrender=True)) == H


@pytest.mark.parametrize(
    "decks, h17, _chart, _row, _up",
    pins(*[(1, h17, "surrender", "15", "T") for h17 in (S17, H17)]),
)
def test_one_deck_hits_15_against_a_ten_rather_than_surrender(decks, h17, _chart, _row, _up):
    assert play("TH 5C", "TD", view(decks, h17, surrender=True)) == H
    assert play("TH 5C", "TD", view(2, h17, surrender=True)) == R


@pytest.mark.parametrize(
    "decks, h17, _chart, _row, _up",
    pins(*[(decks, h17, "surrender", "16", "9") for decks in (1, 2) for h17 in (S17, H17)]),
)
def test_one_and_two_decks_hit_16_against_a_nine_rather_than_surrender(
    decks, h17, _chart, _row, _up
):
    assert play("TH 6C", "9D", view(decks, h17, surrender=True)) == H
    assert play("TH 6C", "TD", view(decks, h17, surrender=True)) == R
    assert play("TH 6C", "9D", view(4, h17, surrender=True)) == R


@pytest.mark.parametrize("decks, h17, _chart, _row, _up", pins((1, H17, "surrender", "8,8", "A")))
def test_one_deck_splits_eights_against_an_ace_when_the_dealer_hits_soft_17(
    decks, h17, _chart, _row, _up
):
    for das in (True, False):
        assert play("8H 8C", "AD", view(decks, h17, das=das, surrender=True)) == P
    # Eights that cannot be split are a hard 16, which surrenders.
    assert play("8H 8C", "AD", view(decks, h17, surrender=True), hands=4) == R


@pytest.mark.parametrize("decks, h17, _chart, _row, _up", pins((2, H17, "surrender", "8,8", "A")))
def test_two_decks_surrender_eights_against_an_ace_only_without_das_when_the_dealer_hits_soft_17(
    decks, h17, _chart, _row, _up
):
    assert play("8H 8C", "AD", view(decks, h17, das=False, surrender=True)) == R
    assert play("8H 8C", "AD", view(decks, h17, das=True, surrender=True)) == P
    assert play("8H 8C", "AD", view(decks, h17, das=False)) == P
    assert play("8H 8C", "AD", view(decks, S17, das=False, surrender=True)) == P


# ------------------------------------------------------------------- the charts as a whole


def _cells_differing_from_the_multi_deck_chart():
    cells = set()
    for decks, charts in ((1, ONE_DECK), (2, TWO_DECKS)):
        for h17, kind in itertools.product((S17, H17), charts._fields):
            mine, multi = getattr(charts, kind)[h17], getattr(MULTI_DECK, kind)[h17]
            for row in set(mine) | set(multi):
                for up in "23456789TA":
                    ours = mine.get(row, {}).get(up, ".")
                    if ours != multi.get(row, {}).get(up, "."):
                        cells.add((decks, h17, kind, row, up))
    return cells


def test_every_cell_that_differs_from_the_multi_deck_chart_is_pinned_above():
    assert _cells_differing_from_the_multi_deck_chart() == PINNED


# Wizard's codes for the cells the charts write "Pd" (split with DAS): what to do without DAS.
WIZARD_WITHOUT_DAS = {
    (1, "2,2", "2"): H,
    (1, "3,3", "2"): H,
    (1, "3,3", "3"): H,
    (1, "3,3", "8"): H,
    (1, "4,4", "4"): H,
    (1, "4,4", "5"): D,
    (1, "4,4", "6"): D,
    (1, "6,6", "7"): H,
    (1, "7,7", "8"): H,
    (1, "9,9", "A"): S,  # H17 only (Wizard's "Ps")
    (2, "2,2", "2"): H,
    (2, "2,2", "3"): H,
    (2, "3,3", "2"): H,
    (2, "3,3", "3"): H,
    (2, "4,4", "5"): H,
    (2, "4,4", "6"): H,
    (2, "6,6", "7"): H,
    (2, "7,7", "8"): H,
}


def test_split_only_with_das_cells_play_wizards_fallback_without_das():
    seen = set()
    for decks, charts in ((1, ONE_DECK), (2, TWO_DECKS)):
        for h17 in (S17, H17):
            for row, cells in charts.pairs[h17].items():
                for up, code in cells.items():
                    if code != "Pd":
                        continue
                    seen.add((decks, row, up))
                    hand = f"{row[0]}H {row[0]}C"
                    assert play(hand, f"{up}D", view(decks, h17)) == P
                    expected = WIZARD_WITHOUT_DAS[(decks, row, up)]
                    assert play(hand, f"{up}D", view(decks, h17, das=False)) == expected
    assert seen == set(WIZARD_WITHOUT_DAS)


def test_charts_are_chosen_by_the_tables_decks():
    assert charts_for(1) is ONE_DECK
    assert charts_for(2) is TWO_DECKS
    for decks in range(3, 9):
        assert charts_for(decks) is MULTI_DECK


# A digest of every decision below as main played it before the 1- and 2-deck charts (commit
# f756982, when every deck count played the 4-8-deck chart): three decks and more still do.
MULTI_DECK_DECISIONS = "a150d1fffc63a892ab952d0a8fb4517da2278c1dec2821ebc4417ea101e51ea6"
PERMISSIONS = [  # hands in play, can double, can split, can surrender
    (1, True, True, True),
    (2, True, True, False),
    (2, False, True, False),
    (4, True, False, False),
    (1, False, False, True),
    (1, True, False, True),
]


def _decisions_digest(decks):
    out = []
    for h17, das, ls in itertools.product((False, True), repeat=3):
        for double_on in ("any_two", "9_11", "none"):
            table = TableView(
                decks=decks,
                dealer_hits_soft_17=h17,
                double_after_split=das,
                surrender=ls,
                double_on=double_on,
            )
            for n in (2, 3):
                for hand in itertools.combinations_with_replacement("A23456789T", n):
                    cards = tuple(r + s for r, s in zip(hand, "SHC"))
                    for up in "A23456789T":
                        for hands, dbl, split, sur in PERMISSIONS:
                            decision = basic_strategy(
                                cards,
                                f"{up}D",
                                table,
                                hands_in_play=hands,
                                can_double=dbl,
                                can_split=split,
                                can_surrender=sur,
                            )
                            out.append(decision.value[:2])
    return hashlib.sha256(",".join(out).encode()).hexdigest()


@pytest.mark.parametrize("decks", [3, 4, 6, 8])
def test_three_decks_and_more_play_the_multi_deck_chart_as_before(decks):
    assert _decisions_digest(decks) == MULTI_DECK_DECISIONS


@pytest.mark.parametrize("decks", [1, 2])
def test_one_and_two_decks_play_otherwise_than_before(decks):
    assert _decisions_digest(decks) != MULTI_DECK_DECISIONS
