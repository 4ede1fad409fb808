"""Where the read models live: the events' own database, reached with a connection of ours.

The read models sit beside the events (the same SQLite file, the same PostgreSQL database and
schema) so that a backup of one is a backup of both and a projector needs no second server.
On the in-memory store they live in an in-memory SQLite database of their own.

The SQL is written once with ``?`` placeholders and the subset both engines share
(``INSERT … ON CONFLICT … DO UPDATE``, ``BIGINT``, ``TEXT``); the PostgreSQL connection
rewrites the placeholders. One connection per process, guarded by a lock: projecting is one
writer's work, and the reads are short. Each engine's own ways (its lock, its fastest bulk
writes) are in ``sqlite_views`` and ``postgres_views``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

CHUNK = 400  # values per IN (…): well under SQLite's and PostgreSQL's parameter limits


class ProjectionBusy(Exception):
    """Another process holds the projections' lock; try again shortly."""


class ViewDatabase:
    """A connection to the read models' database and the one transaction at a time on it."""

    kind: str

    def __init__(self) -> None:
        self._lock = threading.RLock()

    # -- what each engine does differently ---------------------------------------------------

    def _begin(self, lock_timeout: float) -> None:
        raise NotImplementedError

    def _sql(self, statement: str) -> str:
        return statement

    def _conn(self) -> Any:
        raise NotImplementedError

    # -- shared ------------------------------------------------------------------------------

    @contextmanager
    def transaction(self, lock_timeout: float = 5.0) -> Iterator[ViewDatabase]:
        """One write transaction holding the projections' lock (the tracking rows): a second
        projector, in this process or another, waits up to ``lock_timeout`` seconds, then
        :class:`ProjectionBusy`."""
        with self._lock:
            self._begin(lock_timeout)
            try:
                yield self
            except BaseException:
                self.rollback()
                raise
            else:
                self._conn().commit()

    def execute(self, statement: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            cursor = self._conn().cursor()
            cursor.execute(self._sql(statement), params)
            rows = cursor.fetchall() if cursor.description else []
            cursor.close()
            return rows

    def executemany(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        with self._lock:
            cursor = self._conn().cursor()
            cursor.executemany(self._sql(statement), rows)
            cursor.close()

    # -- the bulk reads and writes of a batch (each engine's fastest way to the same rows) ----

    def select_keys(
        self,
        table: str,
        key: Sequence[str],
        columns: Sequence[str],
        keys: Sequence[Any],
    ) -> list[tuple]:
        """The rows (key columns first, then ``columns``) of the given ``keys`` that exist:
        values of a one-column key, tuples of a wider one."""
        head = f"SELECT {', '.join((*key, *columns))} FROM {table} WHERE "
        found: list[tuple] = []
        for start in range(0, len(keys), CHUNK):
            chunk = keys[start : start + CHUNK]
            if len(key) == 1:
                where = f"{key[0]} IN ({', '.join('?' * len(chunk))})"
                params = list(chunk)
            else:
                # Not ``(a, b) IN (VALUES …)``: SQLite answers that by scanning the table.
                one = "(" + " AND ".join(f"{k} = ?" for k in key) + ")"
                where = " OR ".join([one] * len(chunk))
                params = [part for k in chunk for part in k]
            found += self.execute(head + where, params)
        return found

    def insert(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """Append ``rows`` (a plain INSERT: a key already there is an error)."""
        if rows:
            marks = ", ".join("?" * len(columns))
            self.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    def upsert(
        self,
        table: str,
        key: Sequence[str],
        columns: Sequence[str],
        rows: Sequence[Sequence[Any]],
        merge: Mapping[str, str] | None = None,
    ) -> None:
        """Write ``rows`` (the key's values, then the columns'), replacing rows with the same
        key, or where ``merge`` gives a column an expression (of ``{table}.column`` and
        ``excluded.column``), setting it to that. No two of ``rows`` may share a key."""
        if rows:
            self.executemany(_upsert(table, key, columns, merge), rows)

    def is_empty(self, table: str) -> bool:
        return not self.execute(f"SELECT 1 FROM {table} LIMIT 1")

    def delete_in(self, table: str, column: str, values: Sequence[Any]) -> None:
        """Delete every row whose ``column`` is one of ``values``."""
        for start in range(0, len(values), CHUNK):
            chunk = values[start : start + CHUNK]
            marks = ", ".join("?" * len(chunk))
            self.execute(f"DELETE FROM {table} WHERE {column} IN ({marks})", chunk)

    def read(self, statement: str, params: Sequence[Any] = ()) -> list[tuple]:
        """A read outside any write transaction (it sees only committed rows)."""
        with self._lock:
            try:
                rows = self.execute(statement, params)
            except BaseException:
                self.rollback()  # or every later statement on this connection fails too
                raise
            self._conn().commit()  # end the implicit read transaction
            return rows

    def rollback(self) -> None:
        with self._lock:
            try:
                self._conn().rollback()
            except Exception:  # a connection already gone: the next use opens another
                self.close()

    def close(self) -> None:
        with self._lock:
            self._conn().close()


def set_clause(table: str, columns: Sequence[str], merge: Mapping[str, str] | None) -> str:
    """The ``SET`` of an upsert: each column from ``excluded``, or as ``merge`` says."""
    merge = merge or {}
    return ", ".join(
        f"{c} = {merge[c].format(table=table)}" if c in merge else f"{c} = excluded.{c}"
        for c in columns
    )


def _upsert(
    table: str, key: Sequence[str], columns: Sequence[str], merge: Mapping[str, str] | None
) -> str:
    """``INSERT … VALUES (…) ON CONFLICT (key) DO UPDATE`` of one row."""
    every = ", ".join((*key, *columns))
    marks = ", ".join("?" * (len(key) + len(columns)))
    updates = set_clause(table, columns, merge)
    return (
        f"INSERT INTO {table} ({every}) VALUES ({marks}) "
        f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}"
    )
