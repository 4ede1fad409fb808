"""Events as a round's audit lists them: the event's own fields as JSON-ready data, with its
actor, player, hand, card, amount and clauses (with their texts) copied to the top."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from ledger.domain.chain import event_fields
from replay.clauses import clause_text

_META = ("originator_id", "originator_version", "timestamp", "originator_topic")
SUMMARY_FIELDS = ("actor", "player", "hand", "card", "amount")


def plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, datetime):
        return utc(value)
    return value


def utc(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


def type_name(event: Any) -> str:
    return type(event).__name__


def event_entry(event: Any, position: int | None = None) -> dict[str, Any]:
    """One event as the audit lists it (summary fields filled by :func:`summarize`), with its
    ``position`` in the application's notification log (null where it was not read)."""
    data = {k: plain(v) for k, v in event_fields(event).items() if k not in _META}
    return summarize(
        {
            "position": position,
            "stream": str(event.originator_id),
            "version": event.originator_version,
            "type": type_name(event),
            "time": utc(event.timestamp),
            "data": data,
        }
    )


def summarize(entry: dict[str, Any]) -> dict[str, Any]:
    """Copy the event's actor, hand, card, amount and clauses from its ``data`` to the top
    (run again after masking ``data``, so the summary never says more than the data)."""
    data = entry["data"]
    out = {k: v for k, v in entry.items() if k not in (*SUMMARY_FIELDS, "clauses")}
    for name in SUMMARY_FIELDS:
        if name in data:
            out[name] = data[name]
    clauses = list(data.get("clauses") or ([data["clause"]] if data.get("clause") else []))
    out["clauses"] = [{"id": c, "text": clause_text(c)} for c in clauses]
    return out
