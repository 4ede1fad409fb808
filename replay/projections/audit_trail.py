"""The audit trail of each round: every event of the round's stream and every wallet transfer
made for the round, in global order, with UTC time, actor, hand, card, amount, clauses, the
event's own fields and its hash, so a disputed hand can be read (and its chain re-checked)
from one indexed table without replaying the store."""

from __future__ import annotations

from typing import Any

from ledger.domain.chain import canonical
from replay.event_schemas import ENVELOPE_FIELDS
from replay.projections.projector import Handler, Projector

ENVELOPE = tuple(ENVELOPE_FIELDS)


class AuditTrail(Projector):
    name = "audit_trail"
    ddl = (
        "CREATE TABLE IF NOT EXISTS view_audit_trail ("
        " round_id TEXT NOT NULL, position BIGINT NOT NULL, stream TEXT NOT NULL,"
        " version BIGINT NOT NULL, time TEXT NOT NULL, type TEXT NOT NULL, actor TEXT NOT NULL,"
        " hand TEXT NOT NULL, card TEXT NOT NULL, amount BIGINT, clauses TEXT NOT NULL,"
        " data TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL,"
        " PRIMARY KEY (round_id, position))",
    )
    _columns = (
        "round_id", "position", "stream", "version", "time", "type", "actor", "hand", "card",
        "amount", "clauses", "data", "prev_hash", "hash",
    )  # fmt: skip

    def __init__(self) -> None:
        super().__init__()
        self.pending: list[tuple] = []
        self._round_events: dict[str, Handler] = {}

    def handlers(self) -> dict[str, Handler]:
        from ledger.domain.round import Round

        every = {
            f"Round.{name}": self.round_event
            for name, value in vars(Round).items()
            if isinstance(value, type) and issubclass(value, Round.Event)
        }
        return {**every, "Player.FundsTransferred": self.wallet_transfer}

    def round_event(self, event: Any, n: Any) -> None:
        stream = str(n.originator_id)
        self._add(stream, stream, event, n)

    def wallet_transfer(self, event: Any, n: Any) -> None:
        if event.round_id:
            self._add(event.round_id, str(n.originator_id), event, n)

    def _add(self, round_id: str, stream: str, event: Any, n: Any) -> None:
        fields = vars(event)
        data = fields.copy()  # the event's own fields: all but the envelope's
        for name in ENVELOPE:
            data.pop(name, None)
        clauses = fields.get("clauses") or ([fields["clause"]] if fields.get("clause") else [])
        self.pending.append(
            (round_id, n.id, stream, n.originator_version, event.timestamp.isoformat(),
             type(event).__qualname__, fields.get("actor", ""), fields.get("hand", ""),
             fields.get("card", ""), fields.get("amount"), " ".join(clauses),
             canonical(data).decode(), fields["prev_hash"], fields["hash"])
        )  # fmt: skip

    def clear(self) -> None:
        self.pending.clear()

    def flush(self) -> None:
        self.db.insert("view_audit_trail", self._columns, self.pending)
        self.pending.clear()
