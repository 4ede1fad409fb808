"""Side payments between players' hands: money one hand's hold pays to another hand's holder
outside both hands' settlements with the banker (VU-10: a natural collects one stake from each
other player). Recorded as ``Round.HoldAdjusted`` with a negative amount; the hand paid is its
``to_hand``, or, for events recorded before that field, the hand its memo names. A negative
amount paid to the holder of the hand itself is no side payment but a release (``released``)."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

# The memo ``take_stake_for`` writes for VU-10: "natural on h2 collects one stake".
_MEMO_HAND = re.compile(r"\bnatural on (\S+) collects\b")


class SidePayment(NamedTuple):
    payer: str  # the hand whose hold paid
    payee: str | None  # the hand whose holder was paid (None if the record does not say)
    amount: int  # > 0
    clause: str
    memo: str


def side_payment(event: Any) -> SidePayment | None:
    """The side payment a ``HoldAdjusted`` records, or None (a hold that grew, VU-21, or was
    released to its own holder, H13-5)."""
    if event.amount >= 0 or released(event):
        return None
    payee = getattr(event, "to_hand", "") or memo_hand(event.memo)
    return SidePayment(event.hand, payee, -event.amount, event.clause, event.memo)


def released(event: Any) -> bool:
    """Whether a ``HoldAdjusted`` gives part of a hold back to the hand's own holder (once
    Hoyle's naturals are settled, H13-5): paid to the holder of its own hand, no side payment."""
    return event.amount < 0 and getattr(event, "to_hand", "") == event.hand


def memo_hand(memo: str | None) -> str | None:
    """The hand a VU-10 memo names as collecting ("natural on h2 collects one stake")."""
    found = _MEMO_HAND.search(memo or "")
    return found.group(1) if found else None
