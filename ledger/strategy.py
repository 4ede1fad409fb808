"""Player decision policies for the simulator.

Pure functions, standard library only.

Chart variant
-------------
``basic_strategy`` implements the standard total-dependent basic strategy as published by the
Wizard of Odds, with the chart for the table's number of decks:

* 1 deck and 2 decks: their own charts (ledger/strategy_charts_few_decks.py, which says where
  each cell comes from);
* 3 decks or more: the 4-8-deck chart (ledger/strategy_charts.py).  Wizard publishes charts
  for 1, 2 and 4-8 decks and none for 3; the 2-deck chart's extra doubles (9 vs 2, and A,3 vs 4
  under H17) are already hits at 3 decks by an exact two-card calculation, so a 3-deck shoe is
  played by the multi-deck chart;

each with these variations:

* dealer stands on soft 17 (S17) vs dealer hits soft 17 (H17);
* double after split allowed (DAS) vs not allowed (pair entries marked ``Pd``, and the 2-deck
  H17 surrender of 8,8 vs A, ``Rn``);
* late surrender (LS) when the table offers it.

The charts assume double down on any two cards; a narrower doubling rule falls back as each
code says (``D`` hits, ``Ds`` stands).  A pair that cannot be split (four hands already) is
played by its hard total.  What each code means is in ledger/strategy_charts.py.

Insurance / even money is never taken (there is no such decision).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from ledger.strategy_charts import MULTI_DECK, Charts
from ledger.strategy_charts_few_decks import ONE_DECK, TWO_DECKS

__all__ = [
    "Decision",
    "TableView",
    "basic_strategy",
    "charts_for",
    "mimic_dealer",
    "POLICIES",
]


class Decision(str, Enum):
    HIT = "hit"
    STAND = "stand"
    DOUBLE_DOWN = "double_down"
    SPLIT = "split"
    SURRENDER = "surrender"


_DOUBLE_ON = {
    "any_two": None,
    "any": None,
    "9_11": frozenset({9, 10, 11}),
    "9-11": frozenset({9, 10, 11}),
    "10_11": frozenset({10, 11}),
    "10-11": frozenset({10, 11}),
    "none": frozenset(),  # a table that takes no double down
}


@dataclass(frozen=True)
class TableView:
    """The table rules a player policy needs to know about."""

    decks: int
    dealer_hits_soft_17: bool
    double_after_split: bool
    surrender: bool  # late surrender offered
    max_hands: int = 4  # a pair may be split until the player has this many hands
    double_on: str = "any_two"  # "any_two", "9_11", "10_11" (hard totals) or "none"

    def __post_init__(self) -> None:
        if self.decks < 1:
            raise ValueError(f"decks must be >= 1, got {self.decks}")
        if self.max_hands < 1:
            raise ValueError(f"max_hands must be >= 1, got {self.max_hands}")
        if self.double_on not in _DOUBLE_ON:
            raise ValueError(
                f"double_on must be one of {sorted(_DOUBLE_ON)}, got {self.double_on!r}"
            )


# --------------------------------------------------------------------------- cards

_RANK_VALUE = {
    "A": 1,
    "2": 2,
    "3": 3,
    "4": 4,
    "5": 5,
    "6": 6,
    "7": 7,
    "8": 8,
    "9": 9,
    "T": 10,
    "J": 10,
    "Q": 10,
    "K": 10,
}
_SUITS = frozenset("CDHS")


def _value(card: str) -> int:
    """Point value of a card code (ace = 1)."""
    if not isinstance(card, str) or len(card) != 2 or card[1] not in _SUITS:
        raise ValueError(f"invalid card code: {card!r}")
    try:
        return _RANK_VALUE[card[0]]
    except KeyError:
        raise ValueError(f"invalid card code: {card!r}") from None


def _total(cards) -> tuple[int, bool]:
    """Best total of a hand and whether it is soft (an ace counted as 11)."""
    total = 0
    has_ace = False
    for card in cards:
        v = _value(card)
        total += v
        has_ace = has_ace or v == 1
    if has_ace and total + 10 <= 21:
        return total + 10, True
    return total, False


def _up_column(dealer_up: str) -> str:
    v = _value(dealer_up)
    if v == 1:
        return "A"
    if v == 10:
        return "T"
    return str(v)


# --------------------------------------------------------------------------- policies


def charts_for(decks: int) -> Charts:
    """The charts a table of ``decks`` decks is played by (see the module docstring)."""
    if decks == 1:
        return ONE_DECK
    if decks == 2:
        return TWO_DECKS
    return MULTI_DECK


def _double_allowed(
    total: int, soft: bool, view: TableView, hands_in_play: int, can_double: bool
) -> bool:
    if not can_double:
        return False
    if hands_in_play > 1 and not view.double_after_split:
        return False
    allowed = _DOUBLE_ON[view.double_on]
    if allowed is None:
        return True
    return not soft and total in allowed


def basic_strategy(
    cards: tuple[str, ...],
    dealer_up: str,
    view: TableView,
    hands_in_play: int,
    can_double: bool,
    can_split: bool,
    can_surrender: bool,
) -> Decision:
    """Total-dependent basic strategy for the table's rules (see module docstring)."""
    cards = tuple(cards)
    if not cards:
        raise ValueError("cannot decide on an empty hand")
    up = _up_column(dealer_up)
    total, soft = _total(cards)
    if total >= 21:
        return Decision.STAND

    charts = charts_for(view.decks)
    h17 = view.dealer_hits_soft_17
    is_pair = len(cards) == 2 and _value(cards[0]) == _value(cards[1])
    splittable = is_pair and can_split and hands_in_play < view.max_hands
    pair_rank = _up_column(cards[0]) if is_pair else None  # "2".."9","T","A"
    pair_row = f"{pair_rank},{pair_rank}"

    # 1. Late surrender (first two cards only).  A splittable pair with a row of its own
    #    (8,8; 7,7 in one deck) is looked up there, any other hand by its hard total.
    if view.surrender and can_surrender and len(cards) == 2 and not soft:
        chart = charts.surrender[h17]
        row = pair_row if splittable and pair_row in chart else str(total)
        code = chart[row][up] if row in chart else "."
        if code == "R" or (code == "Rn" and not view.double_after_split):
            return Decision.SURRENDER

    # 2. Pair splitting.
    if splittable:
        code = charts.pairs[h17][pair_row][up]
        if code == "P" or (code == "Pd" and view.double_after_split):
            return Decision.SPLIT
        if code == "S":  # 9,9; 7,7 vs T in one deck (which hard 14 would hit)
            return Decision.STAND
        # "-" or "Pd" without DAS: play the total below.

    double_ok = _double_allowed(total, soft, view, hands_in_play, can_double)

    # 3. Soft totals.
    if soft:
        if total < 13:  # A,A that cannot be split (soft 12): always hit.
            return Decision.HIT
        code = charts.soft[h17][str(total)][up]
    # 4. Hard totals.
    else:
        if total < 8:
            return Decision.HIT
        if total >= 17:
            return Decision.STAND
        code = charts.hard[h17][str(total)][up]

    if code == "H":
        return Decision.HIT
    if code == "S":
        return Decision.STAND
    if code == "D":
        return Decision.DOUBLE_DOWN if double_ok else Decision.HIT
    if code == "Ds":
        return Decision.DOUBLE_DOWN if double_ok else Decision.STAND
    raise AssertionError(f"unknown chart code {code!r}")  # pragma: no cover


def mimic_dealer(
    cards: tuple[str, ...],
    dealer_up: str,
    view: TableView,
    hands_in_play: int = 1,
    can_double: bool = False,
    can_split: bool = False,
    can_surrender: bool = False,
    **_: object,
) -> Decision:
    """Hit below 17 (best total, soft or hard), otherwise stand."""
    cards = tuple(cards)
    if not cards:
        raise ValueError("cannot decide on an empty hand")
    _value(dealer_up)  # validate
    total, _soft = _total(cards)
    return Decision.HIT if total < 17 else Decision.STAND


Policy = Callable[..., Decision]

POLICIES: dict[str, Policy] = {"basic": basic_strategy, "mimic": mimic_dealer}
