"""One stream's stored events with their positions in the application's notification log, read
in the one query that reads the events.

A position is the global order ``python -m replay export`` and ``verify`` show and a round's
``/trail`` keeps: the order in which the events were committed (the PostgreSQL store takes a
table lock per append, so ids are allocated in commit order). eventsourcing's
``select_events`` drops it, although each store has it beside the event: SQLite's ``rowid``,
PostgreSQL's ``notification_id``, the memory store's place in its list. So the round's audit
reads its streams here instead, at no extra cost, and can order a shoe's commitment against
the round's first card from the audit alone.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.persistence import Notification

from replay.postgres_rows import fetch, rows_where


def select(
    recorder: Any,
    stream: UUID,
    *,
    lte: int | None = None,
    desc: bool = False,
    limit: int | None = None,
) -> list[Notification]:
    """The stream's stored events as ``select_events`` gives them (versions up to ``lte``,
    ascending or ``desc``, at most ``limit``), as notifications whose ``id`` is their
    position. On a store with no positions (none of the ledger's) ``id`` is 0."""
    from eventsourcing.postgres import PostgresAggregateRecorder
    from eventsourcing.sqlite import SQLiteAggregateRecorder

    if isinstance(recorder, SQLiteAggregateRecorder):
        return _sqlite(recorder, stream, lte, desc, limit)
    if isinstance(recorder, PostgresAggregateRecorder):
        return _postgres(recorder, stream, lte, desc, limit)
    if hasattr(recorder, "_stored_events_index"):
        return _memory(recorder, stream, lte, desc, limit)
    found = recorder.select_events(stream, lte=lte, desc=desc, limit=limit)
    return [_as_notification(0, s) for s in found]


def _as_notification(position: int, stored: Any) -> Notification:
    return Notification(
        id=position,
        originator_id=stored.originator_id,
        originator_version=stored.originator_version,
        topic=stored.topic,
        state=stored.state,
    )


def _where(lte: int | None, desc: bool, limit: int | None, mark: str) -> tuple[str, list[Any]]:
    sql, params = "", []
    if lte is not None:
        sql += f" AND originator_version <= {mark}"
        params.append(lte)
    sql += " ORDER BY originator_version " + ("DESC" if desc else "ASC")
    if limit is not None:
        sql += f" LIMIT {mark}"
        params.append(limit)
    return sql, params


def _sqlite(recorder: Any, stream: UUID, lte: Any, desc: bool, limit: Any) -> list[Notification]:
    rest, params = _where(lte, desc, limit, "?")
    statement = (
        "SELECT rowid, originator_id, originator_version, topic, state"
        f" FROM {recorder.events_table_name} WHERE originator_id = ?{rest}"
    )
    key = stream.hex if isinstance(stream, UUID) else stream
    with recorder.datastore.transaction(commit=False) as cursor:
        cursor.execute(statement, [key, *params])
        rows = cursor.fetchall()
    return [
        Notification(
            id=row[0],
            originator_id=recorder.convert_originator_id(row[1]),
            originator_version=row[2],
            topic=row[3],
            state=row[4],
        )
        for row in rows
    ]


def _postgres(recorder: Any, stream: UUID, lte: Any, desc: bool, limit: Any) -> list[Notification]:
    rest, params = _where(lte, desc, limit, "%s")
    statement = rows_where(recorder, f"originator_id = %s{rest}")
    return fetch(recorder, statement, [stream, *params])


def _memory(recorder: Any, stream: UUID, lte: Any, desc: bool, limit: Any) -> list[Notification]:
    # The memory store's notification id of an event is its place in the store's list, from 1
    # (eventsourcing.popo's select_notifications), which its per-stream index holds.
    with recorder._database_lock:
        index = dict(recorder._stored_events_index.get(str(stream), {}))
        versions = sorted((v for v in index if lte is None or v <= lte), reverse=desc)
        if limit is not None:
            versions = versions[:limit]
        return [_as_notification(index[v] + 1, recorder._stored_events[index[v]]) for v in versions]
