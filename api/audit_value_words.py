"""How the audit page reads the audit's plain values: a card, an amount of money, a moment.

The page is for someone who has never seen the API, so nothing here may need the JSON field
names to be understood; every value comes from the audit document the JSON endpoint serves.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

RANKS = {"A": "Ace", "T": "10", "J": "Jack", "Q": "Queen", "K": "King"}
SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RED_SUITS = frozenset("DH")
HIDDEN = "??"


def expected_card_name(card: str | None) -> str:
    """The card the shuffle gives at a place: None when none can be derived (the revealed
    seed or order does not match the commitment, or the place is outside the shoe); a card
    masked for this reader (``??``) reads as hidden."""
    if card is None:
        return "none: no card can be derived"
    return card_name(card)


def card_name(card: str | None) -> str:
    """``"TH"`` -> ``"10 of hearts"``; a card hidden from this reader reads as such."""
    if not card or card == HIDDEN or len(card) != 2:
        return "a card hidden from you (face down)"
    rank, suit = card[0], card[1]
    return f"{RANKS.get(rank, rank)} of {SUITS.get(suit, suit)}"


def card_parts(card: str | None) -> dict[str, Any]:
    """What the card picture needs: rank label, suit letter, colour; ``hidden`` for a back."""
    if not card or card == HIDDEN or len(card) != 2 or card[1] not in SUITS:
        return {"hidden": True, "name": card_name(None), "code": "hidden"}
    rank, suit = card[0], card[1]
    return {
        "hidden": False,
        "rank": "10" if rank == "T" else rank,
        "suit": suit,
        "red": suit in RED_SUITS,
        "name": card_name(card),
        "code": card,
    }


def money(minor: Any) -> str:
    """Integer minor units as currency units with two decimals: 1050 -> ``10.50``."""
    if minor is None or minor == "":
        return "—"
    value = int(minor)
    sign = "−" if value < 0 else ""
    whole, cents = divmod(abs(value), 100)
    return f"{sign}{whole:,}.{cents:02d}"


def signed_money(minor: Any) -> str:
    """A change of balance, always signed: ``+4.00``, ``−2.00``, ``0.00``."""
    if minor is None:
        return "—"
    return ("+" if int(minor) > 0 else "") + money(minor)


def net_sentence(amount: int) -> str:
    if amount > 0:
        return f"The player won {money(amount)}."
    if amount < 0:
        return f"The player lost {money(-amount)}."
    return "No money changed hands."


def when(moment: Any) -> str:
    """An ISO 8601 time as ``2026-03-01 14:05:09.123 UTC`` (the audit's times are UTC)."""
    if not moment:
        return "—"
    try:
        parsed = datetime.fromisoformat(str(moment))
    except ValueError:
        return str(moment)
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC)
    return parsed.strftime("%Y-%m-%d %H:%M:%S.") + f"{parsed.microsecond // 1000:03d} UTC"
