"""The stored events as plain rows, read in global order straight from the events table.

A bulk reader (a rebuild, a catch-up) needs each event's position, stream, version, topic and
stored bytes, and nothing more. eventsourcing's ``select_notifications`` gives the same rows
but builds a ``UUID`` and a ``Notification`` per event, and every projector then turns the
``UUID`` back into text: on a million events that costs as much as the projectors' own SQL.
Here the database hands over the stream id as the text it already is (SQLite stores it so,
PostgreSQL casts it), in a tuple with the attribute names of a ``Notification``. The memory
store has no table: its notifications are converted instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple
from uuid import UUID

from eventsourcing.persistence import Notification


class StoredRow(NamedTuple):
    """One stored event, as ``Notification`` names its parts, with ``originator_id`` text."""

    id: int
    originator_id: str
    originator_version: int
    topic: str
    state: bytes


# (first position, most rows, last position) → the rows from ``first`` to ``last``, in order.
PageReader = Callable[[int, int, int], list[StoredRow]]


def page_reader(recorder: Any) -> PageReader:
    """The fastest reader of ``recorder``'s event rows."""
    from eventsourcing.postgres import PostgresApplicationRecorder
    from eventsourcing.sqlite import SQLiteApplicationRecorder

    if isinstance(recorder, SQLiteApplicationRecorder):
        return _sqlite_reader(recorder)
    if isinstance(recorder, PostgresApplicationRecorder):
        return _postgres_reader(recorder)
    return _notification_reader(recorder)


def _sqlite_reader(recorder: Any) -> PageReader:
    statement = (
        "SELECT rowid, originator_id, originator_version, topic, state"
        f" FROM {recorder.events_table_name}"
        " WHERE rowid >= ? AND rowid <= ? ORDER BY rowid LIMIT ?"
    )
    make = StoredRow._make
    as_uuids = recorder.datastore.originator_id_type == "uuid"

    def read(start: int, limit: int, stop: int) -> list[StoredRow]:
        with recorder.datastore.transaction(commit=False) as cursor:
            cursor.execute(statement, (start, stop, limit))
            rows = cursor.fetchall()
        if not as_uuids:
            return list(map(make, rows))
        # Stored as 32 hex digits: spelled as the recorder reads them, once per stream
        # and page (a page holds a few streams' many events).
        text = {stored: str(UUID(stored)) for stored in {row[1] for row in rows}}
        return [make((i, text[o], v, topic, state)) for i, o, v, topic, state in rows]

    return read


def _postgres_reader(recorder: Any) -> PageReader:
    from psycopg.rows import tuple_row
    from psycopg.sql import SQL, Identifier

    statement = SQL(
        "SELECT notification_id, originator_id::text, originator_version, topic, state"
        " FROM {schema}.{table}"
        " WHERE notification_id >= %s AND notification_id <= %s"
        " ORDER BY notification_id LIMIT %s"
    ).format(
        schema=Identifier(recorder.datastore.schema),
        table=Identifier(recorder.events_table_name),
    )
    make = StoredRow._make

    def read(start: int, limit: int, stop: int) -> list[StoredRow]:
        with recorder.datastore.get_connection() as conn:
            with conn.cursor(row_factory=tuple_row) as cursor:
                cursor.execute(statement, (start, stop, limit), prepare=True)
                return list(map(make, cursor.fetchall()))

    return read


def _notification_reader(recorder: Any) -> PageReader:
    def read(start: int, limit: int, stop: int) -> list[StoredRow]:
        page = recorder.select_notifications(start=start, limit=limit, stop=stop)
        return [as_row(n) for n in page]

    return read


def as_row(n: Notification) -> StoredRow:
    return StoredRow(n.id, str(n.originator_id), n.originator_version, n.topic, n.state)
