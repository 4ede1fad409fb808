"""The audit trail of each round: every event of the round's stream and every wallet transfer
made for the round, in global order, with UTC time, actor, hand, card, amount, clauses, the
event's own fields and its hash, so a disputed hand can be read (and its chain re-checked)
from one indexed row without replaying the store.

One row per round, its entries as JSON lines appended batch by batch: a round is always read
whole, and one row written per round and batch, rather than one per event, keeps a rebuild
cheap. Each line holds the event's fields as stored (``FactDecoder.stored_json``: the
recorded bytes, not decoded and encoded again); ``entry`` reads a line into the answer an
auditor gets.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import orjson

from replay.audit_events import actor_of
from replay.event_schemas import ENVELOPE_FIELDS
from replay.projections.facts import unwrap
from replay.projections.projector import Handler, Projector, event_name, stored_only

COLUMNS = ("events", "position", "entries")
MAX_WRITTEN = 2_000_000  # round ids remembered (see ``complete``) before falling back to upserts
# Appending a batch's entries to what earlier batches wrote of the same round.
APPEND = {
    "events": "{table}.events + excluded.events",
    "entries": "{table}.entries || excluded.entries",
}


def entry(line: str | bytes) -> dict[str, Any]:
    """One line of a round's trail as the API and the audit page show it. Its ``actor`` is
    the audit's (``replay.audit_events.actor_of``): the actor the event records, else
    ``ledger`` for an event the ledger writes by the rules of play (a phase, a settlement, a
    transfer, the round's end …). It is derived from the stored event as the line is read:
    the rows hold what they always held, so a store projected by earlier code needs no
    rebuild for it."""
    stored = orjson.loads(line)
    fields = unwrap(stored["event"])
    data = {k: v for k, v in fields.items() if k not in ENVELOPE_FIELDS}
    clauses = fields.get("clauses") or ([fields["clause"]] if fields.get("clause") else [])
    return {
        "position": stored["position"], "stream": stored["stream"],
        "version": stored["version"], "time": fields["timestamp"], "type": stored["type"],
        "actor": actor_of(stored["type"], fields), "hand": fields.get("hand", ""),
        "card": fields.get("card", ""), "amount": fields.get("amount"),
        "clauses": " ".join(clauses), "data": data,
        "prev_hash": fields["prev_hash"], "hash": fields["hash"],
    }  # fmt: skip


class AuditTrail(Projector):
    name = "audit_trail"
    # 2: one row per round, its entries as JSON lines (1 had a row per entry).
    # 3: a round's pool transfers, recorded in its table's stream, are part of it.
    version = 3
    ddl = (
        "CREATE TABLE IF NOT EXISTS view_audit_trail ("
        " round_id TEXT PRIMARY KEY, events BIGINT NOT NULL, position BIGINT NOT NULL,"
        " entries TEXT NOT NULL)",
    )

    def __init__(self) -> None:
        super().__init__()
        self.pending: dict[str, list[bytes]] = defaultdict(list)
        self.last: dict[str, int] = {}
        # As ``Rows.complete``: while the table holds only rows this process wrote since it
        # was empty, ``written`` names them, and a round not among them is inserted whole
        # rather than appended to (on PostgreSQL a COPY, not a staged upsert).
        self.complete = False
        self.written: set[str] = set()

    def handlers(self) -> dict[str, Handler]:
        from ledger.domain.round import Round

        every = {
            f"Round.{name}": self.round_event
            for name, value in vars(Round).items()
            if isinstance(value, type) and issubclass(value, Round.Event)
        }
        return {
            **every,
            "Player.FundsTransferred": self.round_transfer,
            "Table.FundsTransferred": self.round_transfer,
        }

    @stored_only
    def round_event(self, event: Any, n: Any) -> None:
        self._add(n.originator_id, n)

    def round_transfer(self, event: Any, n: Any) -> None:
        """A transfer of the round recorded in the stream of the account it guards."""
        if event.round_id:
            self._add(event.round_id, n)

    def _add(self, round_id: str, n: Any) -> None:
        head = b'{"position":%d,"stream":"%s","version":%d,"type":"%s","event":' % (
            n.id, n.originator_id.encode(), n.originator_version,
            event_name(n.topic).encode(),
        )  # fmt: skip
        self.pending[round_id].append(head + self.decoder.stored_json(n) + b"}")
        self.last[round_id] = n.id

    def clear(self) -> None:
        self.pending.clear()
        self.last.clear()
        self.complete = False
        self.written.clear()

    def begin(self, db: Any) -> None:
        self.complete = db.is_empty("view_audit_trail")

    def flush(self) -> None:
        added, changed = [], []
        written = self.written if self.complete else None
        for round_id, lines in self.pending.items():
            row = (round_id, len(lines), self.last[round_id], b"\n".join(lines).decode() + "\n")
            (changed if written is None or round_id in written else added).append(row)
        self.db.insert("view_audit_trail", ("round_id", *COLUMNS), added)
        self.db.upsert("view_audit_trail", ("round_id",), COLUMNS, changed, APPEND)
        if written is not None:
            written.update(self.pending)
            if len(written) > MAX_WRITTEN:
                self.complete = False
                written.clear()
        self.pending.clear()
        self.last.clear()
