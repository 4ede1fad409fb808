"""Three decks and more play the 4-8-deck basic-strategy chart as before."""

from __future__ import annotations

import hashlib
import itertools

import pytest

from ledger.strategy import TableView, basic_strategy

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
