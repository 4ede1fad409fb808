"""Where ``replay import`` writes: the whole file in one transaction on SQLite and PostgreSQL,
and in one insert on the memory store, so an import that fails while writing leaves the store
as empty as it found it (README.md, section "Import").

Each store's appender takes the events in batches (``insert``, which returns the positions the
store gave them) and commits only when the ``with`` block ends without an error. It uses the
recorder's own insert statements on one cursor, as eventsourcing's ``insert_events`` does on a
transaction of its own per call."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from eventsourcing.persistence import StoredEvent


def is_postgres(app: Any) -> bool:
    from eventsourcing.postgres import PostgresApplicationRecorder

    return isinstance(app.recorder, PostgresApplicationRecorder)


def _is_sqlite(app: Any) -> bool:
    from eventsourcing.sqlite import SQLiteApplicationRecorder

    return isinstance(app.recorder, SQLiteApplicationRecorder)


class Appender:
    """Inserts on one open transaction. ``whole``: the store has no transaction to span
    several inserts, so every event must come in one ``insert`` (the memory store checks
    every event before it records any)."""

    whole = False

    def insert(self, stored: Sequence[StoredEvent]) -> list[int]:
        raise NotImplementedError

    def next_position(self, position: int) -> None:
        """Have the store give ``position`` to the next event (PostgreSQL only)."""
        raise NotImplementedError(f"{type(self).__name__} numbers events 1, 2, 3 …")


class _Whole(Appender):
    whole = True

    def __init__(self, recorder: Any):
        self.recorder = recorder

    def insert(self, stored: Sequence[StoredEvent]) -> list[int]:
        return list(self.recorder.insert_events(stored) or [])


class _SQLite(Appender):
    def __init__(self, recorder: Any, cursor: Any):
        self.recorder, self.cursor = recorder, cursor

    def insert(self, stored: Sequence[StoredEvent]) -> list[int]:
        return list(self.recorder._insert_events(self.cursor, stored) or [])


class _Postgres(Appender):
    def __init__(self, recorder: Any, cursor: Any):
        self.recorder, self.cursor = recorder, cursor

    def insert(self, stored: Sequence[StoredEvent]) -> list[int]:
        # The recorder's own statements (table lock, NOTIFY, insert … RETURNING): the lock is
        # taken by the first batch and held to the commit; the NOTIFYs go out at the commit.
        self.recorder._insert_stored_events(self.cursor, stored)
        return list(self.recorder._fetch_ids_after_insert_events(self.cursor, stored) or [])

    def next_position(self, position: int) -> None:
        # A sequence is not rolled back with the transaction (nor are the ids a rolled-back
        # import used up): it is set before the first event too, so a retry starts where the
        # export does. Safe because the store holds no event.
        recorder = self.recorder
        schema = recorder.datastore.schema or "public"
        quoted = ".".join(
            '"' + p.replace('"', '""') + '"' for p in (schema, recorder.events_table_name)
        )
        self.cursor.execute(
            "SELECT setval(pg_get_serial_sequence(%s, 'notification_id'), %s, false)",
            (quoted, position),
        )


@contextmanager
def appender(app: Any) -> Iterator[Appender]:
    """The store's appender; its writes are committed when the block ends without an error,
    and rolled back (SQLite, PostgreSQL) or never made (memory) when it raises."""
    recorder = app.recorder
    if is_postgres(app) or _is_sqlite(app):
        kind = _Postgres if is_postgres(app) else _SQLite
        with recorder.datastore.transaction(commit=True) as cursor:
            yield kind(recorder, cursor)
    else:
        yield _Whole(recorder)
