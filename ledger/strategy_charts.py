"""The 4-8-deck basic-strategy charts that ``ledger.strategy.basic_strategy`` reads (the
variant it plays is described there), as text and parsed: hard and soft totals for a dealer who
stands on soft 17 (S17) and one who hits it (H17), the pairs to split, the hands to surrender
late.  The 1- and 2-deck charts, in the same form, are in ledger/strategy_charts_few_decks.py.

The charts below are plain text so they can be compared cell by cell with a
published chart.  Columns are the dealer up-card 2..9, T (any ten-value), A.

Codes
~~~~~
``H``   hit
``S``   stand (in a pairs chart: do not split, stand)
``D``   double if allowed, otherwise hit
``Ds``  double if allowed, otherwise stand
``P``   split
``Pd``  split if double after split is allowed, otherwise do not split (play the hand by its
        hard total)
``-``   do not split (play the hand by its hard total)
``R``   surrender if allowed (rows say what to do otherwise)
``Rn``  surrender if allowed and double after split is not, otherwise split (a pairs row of
        a surrender chart; only the 2-deck H17 chart has one)
``.``   no surrender (use the other charts)
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "Charts",
    "MULTI_DECK",
    "parse_chart",
    "HARD_S17",
    "HARD_H17",
    "SOFT_S17",
    "SOFT_H17",
    "PAIRS",
    "SURRENDER_S17",
    "SURRENDER_H17",
]

_UP = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "A")

# Hard totals, dealer stands on soft 17.  Below 8 always hit, 17+ always stand.
HARD_S17 = """
        2   3   4   5   6   7   8   9   T   A
  8     H   H   H   H   H   H   H   H   H   H
  9     H   D   D   D   D   H   H   H   H   H
 10     D   D   D   D   D   D   D   D   H   H
 11     D   D   D   D   D   D   D   D   D   H
 12     H   H   S   S   S   H   H   H   H   H
 13     S   S   S   S   S   H   H   H   H   H
 14     S   S   S   S   S   H   H   H   H   H
 15     S   S   S   S   S   H   H   H   H   H
 16     S   S   S   S   S   H   H   H   H   H
 17     S   S   S   S   S   S   S   S   S   S
"""

# Hard totals, dealer hits soft 17: as S17 except 11 vs A doubles.
HARD_H17 = """
        2   3   4   5   6   7   8   9   T   A
  8     H   H   H   H   H   H   H   H   H   H
  9     H   D   D   D   D   H   H   H   H   H
 10     D   D   D   D   D   D   D   D   H   H
 11     D   D   D   D   D   D   D   D   D   D
 12     H   H   S   S   S   H   H   H   H   H
 13     S   S   S   S   S   H   H   H   H   H
 14     S   S   S   S   S   H   H   H   H   H
 15     S   S   S   S   S   H   H   H   H   H
 16     S   S   S   S   S   H   H   H   H   H
 17     S   S   S   S   S   S   S   S   S   S
"""

# Soft totals (row = total, A,2 = 13 ... A,9 = 20), dealer stands on soft 17.
SOFT_S17 = """
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

# Soft totals, dealer hits soft 17: soft 18 vs 2 and soft 19 vs 6 double.
SOFT_H17 = """
        2   3   4   5   6   7   8   9   T   A
 13     H   H   H   D   D   H   H   H   H   H
 14     H   H   H   D   D   H   H   H   H   H
 15     H   H   D   D   D   H   H   H   H   H
 16     H   H   D   D   D   H   H   H   H   H
 17     H   D   D   D   D   H   H   H   H   H
 18     Ds  Ds  Ds  Ds  Ds  S   S   H   H   H
 19     S   S   S   S   Ds  S   S   S   S   S
 20     S   S   S   S   S   S   S   S   S   S
"""

# Pair splitting (same for S17 and H17).  "Pd" = split only with DAS.
PAIRS = """
        2   3   4   5   6   7   8   9   T   A
 2,2    Pd  Pd  P   P   P   P   -   -   -   -
 3,3    Pd  Pd  P   P   P   P   -   -   -   -
 4,4    -   -   -   Pd  Pd  -   -   -   -   -
 5,5    -   -   -   -   -   -   -   -   -   -
 6,6    Pd  P   P   P   P   -   -   -   -   -
 7,7    P   P   P   P   P   P   -   -   -   -
 8,8    P   P   P   P   P   P   P   P   P   P
 9,9    P   P   P   P   P   S   P   P   S   S
 T,T    -   -   -   -   -   -   -   -   -   -
 A,A    P   P   P   P   P   P   P   P   P   P
"""
# (9,9 "S" = do not split; stand, as hard 18 does.)

# Late surrender, dealer stands on soft 17.  Hard totals on the first two cards;
# when surrender is not possible hard 15/16 hit.  A splittable 8,8 is never
# surrendered under S17 (it is split).
SURRENDER_S17 = """
        2   3   4   5   6   7   8   9   T   A
 15     .   .   .   .   .   .   .   .   R   .
 16     .   .   .   .   .   .   .   R   R   R
 17     .   .   .   .   .   .   .   .   .   .
 8,8    .   .   .   .   .   .   .   .   .   .
"""

# Late surrender, dealer hits soft 17: adds 15 vs A, 17 vs A and 8,8 vs A.
# Fallbacks: 15/16 hit, 17 stands, 8,8 splits.
SURRENDER_H17 = """
        2   3   4   5   6   7   8   9   T   A
 15     .   .   .   .   .   .   .   .   R   R
 16     .   .   .   .   .   .   .   R   R   R
 17     .   .   .   .   .   .   .   .   .   R
 8,8    .   .   .   .   .   .   .   .   .   R
"""


Chart = dict[str, dict[str, str]]  # row label -> up-card column -> code


def parse_chart(text: str) -> Chart:
    """A text chart as row label -> up-card column -> code (the header must be 2..9, T, A)."""
    lines = [ln.split() for ln in text.strip().splitlines() if ln.strip()]
    header, rows = lines[0], lines[1:]
    if tuple(header) != _UP:
        raise ValueError(f"bad chart header: {header}")
    chart: Chart = {}
    for row in rows:
        label, cells = row[0], row[1:]
        if len(cells) != len(_UP):
            raise ValueError(f"bad chart row: {row}")
        chart[label] = dict(zip(_UP, cells))
    return chart


class Charts(NamedTuple):
    """One deck class's charts, each by whether the dealer hits soft 17."""

    hard: dict[bool, Chart]
    soft: dict[bool, Chart]
    pairs: dict[bool, Chart]
    surrender: dict[bool, Chart]

    @classmethod
    def parse(cls, **texts: str | tuple[str, str]) -> Charts:
        """Each chart from its text: a pair (S17, H17), or one text for both."""
        parsed = {}
        for name, text in texts.items():
            s17, h17 = (text, text) if isinstance(text, str) else text
            parsed[name] = {False: parse_chart(s17), True: parse_chart(h17)}
        return cls(**parsed)


MULTI_DECK = Charts.parse(
    hard=(HARD_S17, HARD_H17),
    soft=(SOFT_S17, SOFT_H17),
    pairs=PAIRS,
    surrender=(SURRENDER_S17, SURRENDER_H17),
)
