"""The shoe of an audited round: its commitment, cut and, once revealed, its seed, with every
card the round dealt or burned from it checked against the shuffle (``replay.verify_shuffle``'s
rules)."""

from __future__ import annotations

from typing import Any

from ledger.domain.shoe import Shoe
from replay.audit_events import type_name
from replay.verify_report import Where
from replay.verify_shuffle import ShoeRecord, shoe_order

NOT_YET_REVEALED = "not yet revealed"


def shoe_audit(shoe_id: str, events: list[Any], cards: list[tuple[Any, str, int, str]]) -> dict:
    """The shoe's commitment (from its stream's ``events``) and, once revealed, every card of
    ``cards`` (event, shoe id, place, card) of this shoe checked against the shuffle
    (``replay.verify_shuffle``)."""
    committed = next(e for e in events if isinstance(e, Shoe.Committed))
    where = Where(0, shoe_id, committed.originator_version, "Committed")
    record = ShoeRecord.committed_by(committed, where)
    for e in events:
        if isinstance(e, Shoe.Cut):
            record.cut = e.cut
        elif isinstance(e, Shoe.Revealed):
            record.revealed = Where(0, shoe_id, e.originator_version, "Revealed")
            record.server_seed = e.server_seed
            record.fixed_order = list(e.fixed_order)
    mine = [c for c in cards if c[1] == shoe_id]
    out: dict[str, Any] = {
        "shoe_id": shoe_id,
        "commitment": record.commitment,
        "client_seed": record.client_seed,
        "nonce": record.nonce,
        "packs": record.packs,
        "stock": record.stock,  # the used cards a round ran out into (VU-29), else None
        "algorithm": committed.algorithm,
        "fixed": record.fixed,
        "cut": record.cut,
        "revealed": record.revealed is not None,
        "server_seed": record.server_seed or None,
        "cards_of_this_round": len(mine),
    }
    if record.revealed is None:
        out["check"] = {"status": NOT_YET_REVEALED, "ok": None, "cards": []}
        return out
    problems: list[str] = []
    order = shoe_order(record, lambda where, problem: problems.append(problem))
    checked = []
    for event, _, index, card in mine:
        expected = order[index] if order is not None and 0 <= index < len(order) else None
        checked.append(
            {
                "version": event.originator_version,
                "type": type_name(event),
                "shoe_index": index,
                "card": card,
                "expected": expected,
                "ok": expected == card,
            }
        )
    ok = not problems and all(c["ok"] for c in checked)
    out["check"] = {
        "status": "ok" if ok else "failed",
        "ok": ok,
        "commitment_ok": order is not None,
        "problems": problems,
        "cards": checked,
    }
    return out


# -- the audit ----------------------------------------------------------------------------
