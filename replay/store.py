"""Opening the ledger to read it. The replay tools only ever read events: nothing here (nor
in any module of ``replay/``) calls a command of the application."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any
from uuid import UUID

from eventsourcing.persistence import Notification

from ledger import balances
from ledger.application import TwentyOneLedger
from ledger.config import store_env
from replay.postgres_rows import fetch, rows_where

__all__ = ["ledger", "not_a", "notifications", "open_ledger", "stream_kind"]


def open_ledger(env: Mapping[str, str] | None = None) -> TwentyOneLedger:
    """The application on the store the environment names (``LEDGER_STORE`` …), or on
    ``env`` when given (an eventsourcing environment, as ``ledger.config.store_env`` makes)."""
    return TwentyOneLedger(env=dict(env) if env is not None else store_env())


@contextmanager
def ledger(env: Mapping[str, str] | None = None) -> Iterator[TwentyOneLedger]:
    app = open_ledger(env)
    try:
        yield app
    finally:
        app.close()


def first_event_type(app: TwentyOneLedger, stream: UUID) -> str | None:
    """The type (``Table.Opened``, ``Round.Started`` …) of a stream's first event, told by
    its stored topic without decoding it; None for a stream the log does not hold."""
    first = app.recorder.select_events(stream, lte=1)
    return first[0].topic.rsplit(":", 1)[-1] if first else None


def stream_kind(app: TwentyOneLedger, stream: UUID) -> str | None:
    """What a stream is (``Table``, ``Round``, ``Player``, ``Shoe`` …), told by its first
    stored event's topic without decoding it; None for a stream the log does not hold."""
    first = first_event_type(app, stream)
    return None if first is None else first.partition(".")[0]


def not_a(kind: str | None, stream: Any, wanted: str) -> str:
    """Why ``stream`` (of ``kind``, as :func:`stream_kind` tells it) is not a ``wanted``."""
    if kind is None:
        return f"no {wanted} {stream} in this log"
    return f"{stream} is a {kind}, not a {wanted}"


# -- the log as it is stored ----------------------------------------------------------------

# (first position, most rows, topics) -> the rows from ``first`` on, in order.
RowReader = Callable[[int, int, Sequence[str]], list[Notification]]


def notifications(app: Any, topics: Sequence[str] = (), batch: int = 1000) -> Iterator[Any]:
    """Every stored event (or those of ``topics``) in global order, as notifications, each
    row as it is stored. The store's own reader fails on a whole page for one row it cannot
    convert (on SQLite a stream id that is no UUID; on PostgreSQL a NULL state): here such a
    row comes as it is (a stream id that is no UUID as its text, a NULL as ``None``), for
    ``verify`` to name and ``export`` to refuse (``replay.stored_row``)."""
    read = _row_reader(app.recorder)
    if read is None:  # the memory store holds what the mapper made: nothing to damage
        yield from balances.notifications(app, topics, batch)
        return
    start = 1
    while True:
        rows = read(start, batch, topics)
        if not rows:
            return
        yield from rows
        start = rows[-1].id + 1


def _row_reader(recorder: Any) -> RowReader | None:
    from eventsourcing.sqlite import SQLiteApplicationRecorder

    if isinstance(recorder, SQLiteApplicationRecorder):
        return _sqlite_rows(recorder)
    # Loaded by the application when its store is PostgreSQL; not loaded here otherwise
    # (psycopg is some megabytes a SQLite verify has no use for).
    postgres = sys.modules.get("eventsourcing.postgres")
    if postgres is not None and isinstance(recorder, postgres.PostgresApplicationRecorder):
        return _postgres_rows(recorder)
    return None


def _sqlite_rows(recorder: Any) -> RowReader:
    table = recorder.events_table_name
    as_uuids = recorder.datastore.originator_id_type == "uuid"
    columns = "originator_id, originator_version, topic, state"
    # Text that is no UTF-8 (bytes cast to text by hand) fails the driver's decoding of the
    # whole page: that page is read again with each text column as its bytes, decoded here.
    careful = ", ".join(
        f"typeof({c}) = 'text', CASE WHEN typeof({c}) = 'text' THEN CAST({c} AS BLOB) ELSE {c} END"
        for c in ("originator_id", "originator_version", "topic", "state")
    )

    def read(start: int, limit: int, topics: Sequence[str]) -> list[Notification]:
        among = f" AND topic IN ({','.join('?' * len(topics))})" if topics else ""
        rest = f" FROM {table} WHERE rowid >= ?{among} ORDER BY rowid LIMIT ?"
        params = [start, *topics, limit]
        with recorder.datastore.transaction(commit=False) as cursor:
            try:
                cursor.execute(f"SELECT rowid, {columns}{rest}", params)
                rows = cursor.fetchall()
            except sqlite3.OperationalError:
                cursor.execute(f"SELECT rowid, {careful}{rest}", params)
                rows = [_as_text(row) for row in cursor.fetchall()]
        # Once per stream and page, as the recorder would read them (32 hex digits).
        ids = {row[1]: _stream_id(row[1]) if as_uuids else row[1] for row in rows}
        return [
            Notification(
                id=row[0],
                originator_id=ids[row[1]],
                originator_version=row[2],
                topic=row[3],
                state=row[4],
            )
            for row in rows
        ]

    return read


def _as_text(row: Any) -> tuple[Any, ...]:
    """A row read carefully (each column: whether it is text, and its value, text as bytes)
    as the plain query reads it, bytes that are no UTF-8 shown as ``\\xff``."""
    values = [row[0]]
    for i in range(1, len(row), 2):
        is_text, value = row[i], row[i + 1]
        values.append(value.decode("utf-8", "backslashreplace") if is_text else value)
    return tuple(values)


def _stream_id(stored: Any) -> Any:
    """A stream id stored as the SQLite recorder writes one (``UUID.hex``) as its UUID;
    anything else as it is stored."""
    if isinstance(stored, str):
        try:
            found = UUID(stored)
        except ValueError:
            return stored
        if found.hex == stored:
            return found
    return stored


def _postgres_rows(recorder: Any) -> RowReader:
    def read(start: int, limit: int, topics: Sequence[str]) -> list[Notification]:
        among = " AND topic = ANY(%s)" if topics else ""
        statement = rows_where(
            recorder, f"notification_id >= %s{among} ORDER BY notification_id LIMIT %s"
        )
        params: list[Any] = [start, list(topics), limit] if topics else [start, limit]
        return fetch(recorder, statement, params)

    return read
