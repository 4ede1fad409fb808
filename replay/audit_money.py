"""The money of an audited round: each wallet before and after the round, read back from the
end of its own stream to the round; the round's transfers into a Vingt-un pool, read back
from the table's stream; and what moved each wallet (``wallet_parts``)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any
from uuid import UUID

from ledger import accounts
from ledger.domain.chain import event_fields
from ledger.domain.table import Table
from ledger.domain.transfers import FundsTransferredBase
from replay.audit_events import actor_of, event_entry, type_name, utc
from replay.checked_reads import fold
from replay.damage import reported
from replay.stretch import Stretch, read_back

# How far apart the clocks of two ledger processes may be. A wallet's stream is read back to
# an event timed this much before the round, so that a transfer committed after the round's
# first event but timed before it (by a process whose clock is behind) is still weighed by
# its time, as a reading of the whole stream would.
CLOCK_SKEW = timedelta(minutes=1)


def wallet_stretch(app: Any, player_id: str, first: Any) -> Stretch:
    """The wallet's stream read back to an event timed before the round (less the skew)."""
    return read_back(app, UUID(player_id), lambda e: e.timestamp < first.timestamp - CLOCK_SKEW)


def balance_at_anchor(app: Any, stretch: Stretch) -> int:
    """The wallet's balance after the stretch's anchor: rebuilt (from a snapshot) up to the
    event before it, and the anchor, already read, folded on."""
    if stretch.anchor is None:
        return 0
    known, wallet = stretch.known, stretch.anchor.originator_id
    with reported(wallet):  # a damaged snapshot or event is named, in the wallet's stream
        prior = app.repository.get(wallet, version=known - 1) if known > 1 else None
    return fold([stretch.anchor], prior).balance


def wallet_balances(
    round_id: str, player_id: str, first: Any, last: Any, stretch: Stretch, base: int
) -> dict:
    """The wallet before the round's first event and after its last, from its own stream
    read back (``stretch``): before = every transfer timed before the round began; after =
    every transfer up to the later of the last one timed by the round's end and the last one
    the round made. The transfers up to the stretch's anchor are summed by ``base``, the
    wallet's balance there."""
    account = accounts.player(player_id)
    events = [e for e in stretch.newer if isinstance(e, FundsTransferredBase)]
    before = base + sum(e.change(account) for e in events if e.timestamp < first.timestamp)
    ends = [i for i, e in enumerate(events) if e.timestamp <= last.timestamp]
    ends += [i for i, e in enumerate(events) if e.round_id == round_id]
    upto = max(ends, default=-1)
    after = base + sum(e.change(account) for e in events[: upto + 1])
    movements = [
        {
            "version": e.originator_version,
            "position": stretch.positions.get(e.originator_version),
            "time": utc(e.timestamp),
            "from_account": e.from_account,
            "to_account": e.to_account,
            "amount": e.amount,
            "change": e.change(account),
            "clause": e.clause,
            "memo": e.memo,
            "actor": actor_of(type_name(e), event_fields(e)),  # ledger: it records none
        }
        for e in events
        if e.round_id == round_id
    ]
    return {
        "player": player_id,
        "account": account,
        "before": before,
        "after": after,
        "change": after - before,
        "round_movements": movements,
    }


def table_stretch(app: Any, rnd: Any) -> Stretch:
    """The table's stream read back to the event that opened the round."""
    return read_back(
        app, rnd.table_id, lambda e: isinstance(e, Table.RoundOpened) and e.round_id == rnd.id
    )


def pool_transfers(rnd: Any, stretch: Stretch) -> list[dict[str, Any]]:
    """The round's transfers into a Vingt-un table's pool, recorded in the table's stream
    (the pool is guarded there), from the table's events since the round opened."""
    rid = str(rnd.id)
    return [
        event_entry(e, stretch.positions.get(e.originator_version))
        for e in stretch.newer
        if isinstance(e, Table.FundsTransferred) and e.round_id == rid
    ]


def wallet_parts(hands: list[dict], balances: list[dict], transfers: list[dict]) -> None:
    """Split each wallet's change for the round into what moved it (``parts``): his hands'
    nets (side payments between players included), insurance, what he paid into the pool
    (antes, penalties: VU-26/27, never part of a hand's net against the banker), and the rest
    (``banking``: a private dealer's side of every hand; 0 for a punter). A pool payment is
    the wallet's leg of a transfer whose other leg, with the same clause, memo and amount, is
    paid into a pool."""
    pool_legs = Counter(
        (t["data"]["clause"], t["data"]["memo"], t["data"]["amount"])
        for t in transfers
        if str(t["data"].get("to_account", "")).startswith("pool:")
    )
    for b in balances:
        mine = [h for h in hands if h["player"] == b["player"]]
        hands_net = sum(h["net"] or 0 for h in mine)
        insurance = sum((h["insurance"] or {}).get("result") or 0 for h in mine)
        pool = 0
        for m in b["round_movements"]:
            key = (m["clause"], m["memo"], m["amount"])
            if m["change"] < 0 and pool_legs[key]:
                pool_legs[key] -= 1
                pool -= m["amount"]
        rest = b["change"] - hands_net - insurance - pool
        b["parts"] = {"hands": hands_net, "insurance": insurance, "pool": pool, "banking": rest}


# -- balances -----------------------------------------------------------------------------
