"""What a rederivation compares (``replay.rederive``): the events left out of the walk on
both sides, the releases compared apart, and the fields never compared.

Burn cards and shoe changes are left out (a fixed shoe neither burns nor runs out), and so
are the round's own transfers, which follow from the settlements, and the ``ActedFor`` naming
who gave a command for its actor (an admin's key): not a step of play. The holds and cover a
Hoyle round releases once its naturals are settled (H13-5, H13-6), and the cover a Vingt-un
dealer holds for his over-draw penalty or releases to pay a penalty or the share of his tie
receipts into the pool (VU-26, VU-27 b, c), are compared apart, so a round recorded before
the ledger did so still rederives, with that difference named."""

from __future__ import annotations

from typing import Any

from ledger.domain.round import Round
from replay.side_payments import released

# Left out of the comparison: burns and shoe changes (a fixed shoe has none), the round's
# own transfers (escrow to house or pool), whose number follows from the settlements compared,
# and who gave a command for its actor (an admin's key, ``ActedFor``): not a step of play.
SKIPPED = (Round.CardBurned, Round.ShoeReplaced, Round.FundsTransferred, Round.ActedFor)
# Compared apart (``penalty_cover``), as the Hoyle releases are (``released_after_deal``).
PENALTY_COVER_CLAUSES = ("VU-26", "VU-27")
NOT_COMPARED = frozenset(
    {"originator_id", "originator_version", "timestamp", "hash", "prev_hash", "shoe", "shoe_index"}
)


def penalty_cover(event: Any) -> bool:
    """The Vingt-un dealer's cover held for his over-draw penalty (VU-27 b) or released to
    pay a penalty or the share of his tie receipts (VU-26, VU-27 b, c): a round recorded
    before the ledger paid these from the cover has none, and differs from today's rules in
    that alone."""
    return isinstance(event, Round.BankCovered) and event.clause in PENALTY_COVER_CLAUSES


def released_after_deal(event: Any) -> bool:
    """A hold (H13-5) or bank cover (H13-6) released once Hoyle's naturals are settled."""
    if isinstance(event, Round.HoldAdjusted):
        return event.clause == "H13-5" and released(event)
    if isinstance(event, Round.BankCovered):
        return event.clause == "H13-6" and event.amount < 0
    return False


def left_out(event: Any) -> bool:
    """Not walked step by step: skipped, or compared apart."""
    return isinstance(event, SKIPPED) or released_after_deal(event) or penalty_cover(event)


def release(event: Any) -> list[Any]:
    """A release compared apart, as its lines name it: event, hand, amount, clause."""
    return [event_name(event), getattr(event, "hand", "(bank)"), event.amount, event.clause]


def event_name(event: Any) -> str:
    return type(event).__qualname__


def brief(fields: dict[str, Any]) -> str:
    """The hand and card of an event's fields, as a divergence names the step."""
    return ", ".join(f"{k} {fields[k]}" for k in ("hand", "card") if fields.get(k) is not None)
