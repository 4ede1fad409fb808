"""The 1-deck and 2-deck basic-strategy charts that ``ledger.strategy.basic_strategy`` reads, in
the form and with the codes of the 4-8-deck charts (ledger/strategy_charts.py, where each code
is explained): S17 and H17 variants, pairs with their double-after-split (DAS) cells, late
surrender.

Source
~~~~~~
Michael Shackleford's charts (Wizard of Odds), the chart images on
https://wizardofodds.com/games/blackjack/strategy/1-deck/ (bj_1d_s17.gif, bj_1d_h17.gif) and
https://wizardofodds.com/games/blackjack/strategy/2-decks/ (bj_2d_s17.gif, bj_2d_h17.gif):
double down on any two cards, DAS or not, late surrender or not, resplit to four hands, the
dealer peeks.  Those pages carry the charts as images only, so the cells were taken from
transcriptions of the images in public repositories: a verified read of all four and the
charts of mhluska/blackjack-simulator agree cell for cell but for two cells (below); partial
ones (jkingsman/quickstrat, a Rust and a Java chart of a single image) agree where they are not
plainly slipped.  The cells were then checked against independent charts:

* 2 decks S17: Wizard's composition-dependent exceptions
  (https://wizardofodds.com/games/blackjack/appendix/3b/) list no two-card change to the chart
  but 11 (9,2 and 8,3) vs A and 12 (T,2) vs 4, and make stand on soft 18 vs A a change for three
  cards: the chart doubles 11 vs A and hits a two-card soft 18 vs A;
* 1 deck, no DAS: the rec.gambling.blackjack chart (Steve Jacobs,
  http://www.moo.ca/blackjack.chart);
* 2 decks: casinoblackjackplay.com's note that only H17 adds the double of A,3 vs 4
  (http://casinoblackjackplay.com/BlackjackRules/blackjack-rules-chart).

The two cells: one copy doubles A,3 vs 4 in 2 decks S17, and one A,9 vs 6 in 1 deck H17; the
other copies, and an exact two-card calculation of our own (hit +0.0852 against double +0.0839;
stand +0.673 against double +0.551), hit and stand.  The same calculation agrees with every soft
cell of the four charts against a 2 to 9, and with every hard one but for a few two-card
compositions (in 2 decks S17 only 12 of T,2 vs 4, the exception Wizard lists).

How Wizard's codes read here
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
* ``Dh`` is ``D``.
* ``Ph`` (split with DAS, else hit), ``Pd`` (… else double) and ``Ps`` (… else stand) are all
  ``Pd`` here: without DAS the pair is played by its hard total, which in each of those cells is
  Wizard's hit, double or stand (tests/unit/test_strategy_few_decks.py checks every one).
* ``Rh`` and ``Rs`` on a total are an ``R`` in the surrender chart and, in the other charts, what
  to do otherwise.  ``Rs`` on 7,7 vs T (1 deck) is ``R`` on the surrender chart's 7,7 row and
  ``S`` (stand, not the hard 14's hit) on the pairs chart.
* ``Rp`` on 8,8 vs A (2 decks H17; Wizard's 2-deck key: surrender if allowed and double after
  split is not, otherwise split) is ``Rn`` on the surrender chart's 8,8 row.
A pair that cannot be split (four hands already) is played by its hard total, surrender
included, as Wizard's "other rules" under the charts say.

Limits: no published chart for 3 decks was found; ``basic_strategy`` plays the 4-8-deck chart
there (ledger/strategy.py says why).  The charts assume doubling on any two cards; with a
table's narrower doubling rule the cells fall back as their codes say, which is not a chart
computed for that rule.
"""

from __future__ import annotations

from ledger.strategy_charts import Charts

__all__ = [
    "ONE_DECK_HARD",
    "ONE_DECK_SOFT_S17",
    "ONE_DECK_SOFT_H17",
    "ONE_DECK_PAIRS_S17",
    "ONE_DECK_PAIRS_H17",
    "ONE_DECK_SURRENDER_S17",
    "ONE_DECK_SURRENDER_H17",
    "TWO_DECKS_HARD",
    "TWO_DECKS_SOFT_S17",
    "TWO_DECKS_SOFT_H17",
    "TWO_DECKS_PAIRS",
    "TWO_DECKS_SURRENDER_S17",
    "TWO_DECKS_SURRENDER_H17",
    "ONE_DECK",
    "TWO_DECKS",
]

# ------------------------------------------------------------------------------ one deck

# Hard totals, 1 deck, S17 and H17 alike.  Against 4-8 decks: 8 doubles vs 5-6, 9 vs 2, and
# 11 vs A under S17 too.
ONE_DECK_HARD = """
        2   3   4   5   6   7   8   9   T   A
  8     H   H   H   D   D   H   H   H   H   H
  9     D   D   D   D   D   H   H   H   H   H
 10     D   D   D   D   D   D   D   D   H   H
 11     D   D   D   D   D   D   D   D   D   D
 12     H   H   S   S   S   H   H   H   H   H
 13     S   S   S   S   S   H   H   H   H   H
 14     S   S   S   S   S   H   H   H   H   H
 15     S   S   S   S   S   H   H   H   H   H
 16     S   S   S   S   S   H   H   H   H   H
 17     S   S   S   S   S   S   S   S   S   S
"""

# Soft totals, 1 deck, S17.  Against 4-8 decks: soft 13-16 double vs 4-6, soft 17 vs 2-6,
# soft 19 vs 6; soft 18 stands vs A.
ONE_DECK_SOFT_S17 = """
        2   3   4   5   6   7   8   9   T   A
 13     H   H   D   D   D   H   H   H   H   H
 14     H   H   D   D   D   H   H   H   H   H
 15     H   H   D   D   D   H   H   H   H   H
 16     H   H   D   D   D   H   H   H   H   H
 17     D   D   D   D   D   H   H   H   H   H
 18     S   Ds  Ds  Ds  Ds  S   S   H   H   S
 19     S   S   S   S   Ds  S   S   S   S   S
 20     S   S   S   S   S   S   S   S   S   S
"""

# Soft totals, 1 deck, H17: as S17 except soft 18 hits vs A (and, unlike 4-8 decks H17,
# soft 18 stands vs 2).
ONE_DECK_SOFT_H17 = """
        2   3   4   5   6   7   8   9   T   A
 13     H   H   D   D   D   H   H   H   H   H
 14     H   H   D   D   D   H   H   H   H   H
 15     H   H   D   D   D   H   H   H   H   H
 16     H   H   D   D   D   H   H   H   H   H
 17     D   D   D   D   D   H   H   H   H   H
 18     S   Ds  Ds  Ds  Ds  S   S   H   H   H
 19     S   S   S   S   Ds  S   S   S   S   S
 20     S   S   S   S   S   S   S   S   S   S
"""

# Pairs, 1 deck, S17.  Against 4-8 decks: 2,2 split vs 3 and 6,6 vs 2 even without DAS, 3,3
# vs 8, 4,4 vs 4, 6,6 vs 7 and 7,7 vs 8 with DAS; 7,7 stands vs T (Wizard: surrender,
# otherwise stand).
ONE_DECK_PAIRS_S17 = """
        2   3   4   5   6   7   8   9   T   A
 2,2    Pd  P   P   P   P   P   -   -   -   -
 3,3    Pd  Pd  P   P   P   P   Pd  -   -   -
 4,4    -   -   Pd  Pd  Pd  -   -   -   -   -
 5,5    -   -   -   -   -   -   -   -   -   -
 6,6    P   P   P   P   P   Pd  -   -   -   -
 7,7    P   P   P   P   P   P   Pd  -   S   -
 8,8    P   P   P   P   P   P   P   P   P   P
 9,9    P   P   P   P   P   S   P   P   S   S
 T,T    -   -   -   -   -   -   -   -   -   -
 A,A    P   P   P   P   P   P   P   P   P   P
"""

# Pairs, 1 deck, H17: as S17 except 9,9 vs A splits with DAS (Wizard's Ps).
ONE_DECK_PAIRS_H17 = """
        2   3   4   5   6   7   8   9   T   A
 2,2    Pd  P   P   P   P   P   -   -   -   -
 3,3    Pd  Pd  P   P   P   P   Pd  -   -   -
 4,4    -   -   Pd  Pd  Pd  -   -   -   -   -
 5,5    -   -   -   -   -   -   -   -   -   -
 6,6    P   P   P   P   P   Pd  -   -   -   -
 7,7    P   P   P   P   P   P   Pd  -   S   -
 8,8    P   P   P   P   P   P   P   P   P   P
 9,9    P   P   P   P   P   S   P   P   S   Pd
 T,T    -   -   -   -   -   -   -   -   -   -
 A,A    P   P   P   P   P   P   P   P   P   P
"""

# Late surrender, 1 deck, S17: 16 vs T and A, 7,7 vs T; nothing at 15.
ONE_DECK_SURRENDER_S17 = """
        2   3   4   5   6   7   8   9   T   A
 15     .   .   .   .   .   .   .   .   .   .
 16     .   .   .   .   .   .   .   .   R   R
 17     .   .   .   .   .   .   .   .   .   .
 7,7    .   .   .   .   .   .   .   .   R   .
 8,8    .   .   .   .   .   .   .   .   .   .
"""

# Late surrender, 1 deck, H17: adds 15, 17 and 7,7 vs A.  Fallbacks: 15/16 and 7,7 vs A hit,
# 17 and 7,7 vs T stand, 8,8 splits.
ONE_DECK_SURRENDER_H17 = """
        2   3   4   5   6   7   8   9   T   A
 15     .   .   .   .   .   .   .   .   .   R
 16     .   .   .   .   .   .   .   .   R   R
 17     .   .   .   .   .   .   .   .   .   R
 7,7    .   .   .   .   .   .   .   .   R   R
 8,8    .   .   .   .   .   .   .   .   .   .
"""

# ----------------------------------------------------------------------------- two decks

# Hard totals, 2 decks, S17 and H17 alike.  Against 4-8 decks: 9 doubles vs 2, 11 vs A (S17 too).
TWO_DECKS_HARD = """
        2   3   4   5   6   7   8   9   T   A
  8     H   H   H   H   H   H   H   H   H   H
  9     D   D   D   D   D   H   H   H   H   H
 10     D   D   D   D   D   D   D   D   H   H
 11     D   D   D   D   D   D   D   D   D   D
 12     H   H   S   S   S   H   H   H   H   H
 13     S   S   S   S   S   H   H   H   H   H
 14     S   S   S   S   S   H   H   H   H   H
 15     S   S   S   S   S   H   H   H   H   H
 16     S   S   S   S   S   H   H   H   H   H
 17     S   S   S   S   S   S   S   S   S   S
"""

# Soft totals, 2 decks, S17: the 4-8-deck S17 chart.
TWO_DECKS_SOFT_S17 = """
        2   3   4   5   6   7   8   9   T   A
 13     H   H   H   D   D   H   H   H   H   H
 14     H   H   H   D   D   H   H   H   H   H
 15     H   H   D   D   D   H   H   H   H   H
 16     H   H   D   D   D   H   H   H   H   H
 17     H   D   D   D   D   H   H   H   H   H
 18     S   Ds  Ds  Ds  Ds  S   S   H   H   H
 19     S   S   S   S   S   S   S   S   S   S
 20     S   S   S   S   S   S   S   S   S   S
"""

# Soft totals, 2 decks, H17: soft 14 doubles vs 4, soft 18 vs 2, soft 19 vs 6.
TWO_DECKS_SOFT_H17 = """
        2   3   4   5   6   7   8   9   T   A
 13     H   H   H   D   D   H   H   H   H   H
 14     H   H   D   D   D   H   H   H   H   H
 15     H   H   D   D   D   H   H   H   H   H
 16     H   H   D   D   D   H   H   H   H   H
 17     H   D   D   D   D   H   H   H   H   H
 18     Ds  Ds  Ds  Ds  Ds  S   S   H   H   H
 19     S   S   S   S   Ds  S   S   S   S   S
 20     S   S   S   S   S   S   S   S   S   S
"""

# Pairs, 2 decks, S17 and H17 alike.  Against 4-8 decks: 6,6 split vs 2 even without DAS and
# vs 7 with it, 7,7 vs 8 with DAS.
TWO_DECKS_PAIRS = """
        2   3   4   5   6   7   8   9   T   A
 2,2    Pd  Pd  P   P   P   P   -   -   -   -
 3,3    Pd  Pd  P   P   P   P   -   -   -   -
 4,4    -   -   -   Pd  Pd  -   -   -   -   -
 5,5    -   -   -   -   -   -   -   -   -   -
 6,6    P   P   P   P   P   Pd  -   -   -   -
 7,7    P   P   P   P   P   P   Pd  -   -   -
 8,8    P   P   P   P   P   P   P   P   P   P
 9,9    P   P   P   P   P   S   P   P   S   S
 T,T    -   -   -   -   -   -   -   -   -   -
 A,A    P   P   P   P   P   P   P   P   P   P
"""

# Late surrender, 2 decks, S17: 15 vs T, 16 vs T and A (not 16 vs 9).
TWO_DECKS_SURRENDER_S17 = """
        2   3   4   5   6   7   8   9   T   A
 15     .   .   .   .   .   .   .   .   R   .
 16     .   .   .   .   .   .   .   .   R   R
 17     .   .   .   .   .   .   .   .   .   .
 8,8    .   .   .   .   .   .   .   .   .   .
"""

# Late surrender, 2 decks, H17: adds 15 and 17 vs A, and 8,8 vs A when doubling after a split
# is not allowed (with DAS 8,8 splits).
TWO_DECKS_SURRENDER_H17 = """
        2   3   4   5   6   7   8   9   T   A
 15     .   .   .   .   .   .   .   .   R   R
 16     .   .   .   .   .   .   .   .   R   R
 17     .   .   .   .   .   .   .   .   .   R
 8,8    .   .   .   .   .   .   .   .   .   Rn
"""

ONE_DECK = Charts.parse(
    hard=ONE_DECK_HARD,
    soft=(ONE_DECK_SOFT_S17, ONE_DECK_SOFT_H17),
    pairs=(ONE_DECK_PAIRS_S17, ONE_DECK_PAIRS_H17),
    surrender=(ONE_DECK_SURRENDER_S17, ONE_DECK_SURRENDER_H17),
)

TWO_DECKS = Charts.parse(
    hard=TWO_DECKS_HARD,
    soft=(TWO_DECKS_SOFT_S17, TWO_DECKS_SOFT_H17),
    pairs=TWO_DECKS_PAIRS,
    surrender=(TWO_DECKS_SURRENDER_S17, TWO_DECKS_SURRENDER_H17),
)
