"""Where the read models live: the events' own database, reached with a connection of ours.

The read models sit beside the events (the same SQLite file, the same PostgreSQL database and
schema) so that a backup of one is a backup of both and a projector needs no second server.
On the in-memory store they live in an in-memory SQLite database of their own.

The SQL is written once with ``?`` placeholders and the subset both engines share
(``INSERT … ON CONFLICT … DO UPDATE``, ``BIGINT``, ``TEXT``); the PostgreSQL connection
rewrites the placeholders. One connection per process, guarded by a lock: projecting is one
writer's work, and the reads are short.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from ledger.config import store_kind

CHUNK = 400  # values per IN (…): well under SQLite's and PostgreSQL's parameter limits
_ARRAY = {str: "text[]", int: "bigint[]"}  # PostgreSQL array types of key parts, by type


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


class SQLiteViews(ViewDatabase):
    kind = "sqlite"

    def __init__(self, path: str) -> None:
        super().__init__()
        uri = path.startswith("file:")
        # isolation_level=None: we issue BEGIN ourselves, so the lock is taken up front.
        self._connection = sqlite3.connect(
            path, uri=uri, isolation_level=None, check_same_thread=False, timeout=5.0
        )
        if path != ":memory:" and "mode=memory" not in path:
            self._connection.execute("PRAGMA journal_mode=WAL")
            # Checkpoint after 64 MB of log rather than SQLite's 4 MB: a batch rewrites the
            # same index pages again and again, and each checkpoint copies them once.
            self._connection.execute("PRAGMA wal_autocheckpoint=16384")
        self._connection.execute("PRAGMA synchronous=NORMAL")

    def _conn(self) -> Any:
        return self._connection

    def _begin(self, lock_timeout: float) -> None:
        # BEGIN IMMEDIATE takes SQLite's write lock now, waiting up to the busy timeout: the
        # same lock the ledger's writers take, so no projector can interleave with another.
        self._connection.execute(f"PRAGMA busy_timeout={int(lock_timeout * 1000)}")
        try:
            self._connection.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if "locked" in str(error) or "busy" in str(error):
                raise ProjectionBusy(str(error)) from None
            raise

    def execute(self, statement: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            return self._connection.execute(statement, params).fetchall()

    def executemany(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            with self._lock:
                self._connection.executemany(statement, rows)

    def read(self, statement: str, params: Sequence[Any] = ()) -> list[tuple]:
        return self.execute(statement, params)  # autocommit: every read sees the newest


class PostgresViews(ViewDatabase):
    kind = "postgres"

    def __init__(self, env: Mapping[str, str]) -> None:
        super().__init__()
        import psycopg

        self._psycopg = psycopg
        self._env = dict(env)
        self._connection: Any = None

    def _conn(self) -> Any:
        # Opened on first use: an API process that never reads a projection holds no
        # connection beyond its ledger's pool. Opened again when the server dropped it
        # (a restart, an idle timeout): otherwise every later read would fail.
        if self._connection is not None and (self._connection.closed or self._connection.broken):
            self._connection = None
        if self._connection is None:
            env, psycopg = self._env, self._psycopg
            self._connection = psycopg.connect(
                host=env.get("POSTGRES_HOST", "127.0.0.1"),
                port=int(env.get("POSTGRES_PORT", "5432")),
                dbname=env.get("POSTGRES_DBNAME", "test"),
                user=env.get("POSTGRES_USER", "postgres"),
                password=env.get("POSTGRES_PASSWORD", ""),
                connect_timeout=int(env.get("POSTGRES_CONNECT_TIMEOUT", "5") or 5),
                prepare_threshold=None,
            )
            schema = env.get("POSTGRES_SCHEMA")
            if schema:
                statement = psycopg.sql.SQL("SET search_path TO {}")
                self._connection.execute(statement.format(psycopg.sql.Identifier(schema)))
                self._connection.commit()
            self._compress_fast(self._connection)
        return self._connection

    def _compress_fast(self, connection: Any) -> None:
        """Compress long values (the audit trail's entries) with lz4 rather than the default
        pglz: on a rebuild the server spends a fifth of its time compressing with pglz, and
        lz4 is several times faster for a slightly larger table. A server built without lz4,
        or older than PostgreSQL 14 (no such setting), keeps pglz."""
        try:
            connection.execute("SET default_toast_compression = 'lz4'")
        except self._psycopg.Error:
            connection.rollback()
        else:
            connection.commit()

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _sql(self, statement: str) -> str:
        return statement.replace("?", "%s")

    # One statement per batch and table rather than one per row: a round trip each, and
    # psycopg's executemany sends (and PostgreSQL plans) every row's statement apart.

    def select_keys(
        self,
        table: str,
        key: Sequence[str],
        columns: Sequence[str],
        keys: Sequence[Any],
    ) -> list[tuple]:
        # The keys as arrays joined to the table: an index lookup each, where a long OR or
        # ``IN (VALUES …)`` costs PostgreSQL several times as much to plan and run.
        every = ", ".join(f"t.{c}" for c in (*key, *columns))
        if len(key) == 1:
            statement = f"SELECT {every} FROM {table} AS t WHERE t.{key[0]} = ANY(%s)"
            params: list[Any] = [list(keys)]
        else:
            first = keys[0]
            arrays = ", ".join(f"%s::{_ARRAY.get(type(part), 'text[]')}" for part in first)
            names = ", ".join(key)
            statement = (
                f"SELECT {every} FROM {table} AS t"
                f" JOIN unnest({arrays}) AS k ({names}) USING ({names})"
            )
            params = [[k[i] for k in keys] for i in range(len(key))]
        with self._lock:
            with self._conn().cursor() as cursor:
                cursor.execute(statement, params)
                return cursor.fetchall()

    def insert(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        with self._lock:
            with self._conn().cursor() as cursor:
                with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)

    def upsert(
        self,
        table: str,
        key: Sequence[str],
        columns: Sequence[str],
        rows: Sequence[Sequence[Any]],
        merge: Mapping[str, str] | None = None,
    ) -> None:
        # COPY into a scratch table of this session, then one INSERT … SELECT … ON CONFLICT:
        # several times faster than a multi-row VALUES or arrays (psycopg dumps an array's
        # text element by element).
        if not rows:
            return
        every = ", ".join((*key, *columns))
        stage = f"stage_{table}"
        updates = _updates(table, columns, merge)
        with self._lock:
            with self._conn().cursor() as cursor:
                # Created in the transaction (so gone again if it rolls back) when missing;
                # emptied at every commit, and by the DELETE for a second use before one.
                cursor.execute(
                    f"CREATE TEMP TABLE IF NOT EXISTS {stage} (LIKE {table}) ON COMMIT DELETE ROWS"
                )
                with cursor.copy(f"COPY {stage} ({every}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
                cursor.execute(
                    f"INSERT INTO {table} ({every}) SELECT {every} FROM {stage}"
                    f" ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}"
                )
                cursor.execute(f"DELETE FROM {stage}")

    def _begin(self, lock_timeout: float) -> None:
        conn = self._conn()
        conn.rollback()  # psycopg opens a transaction on the first statement
        conn.execute(f"SET LOCAL lock_timeout = '{int(lock_timeout * 1000)}ms'")
        try:
            conn.execute("SELECT name FROM view_projections FOR UPDATE")
        except self._psycopg.errors.LockNotAvailable as error:
            conn.rollback()
            raise ProjectionBusy(str(error).strip()) from None
        # The short wait was for the projections' lock only; the batch itself may wait as
        # long as any writer would.
        conn.execute("SET LOCAL lock_timeout = '30s'")


def _updates(table: str, columns: Sequence[str], merge: Mapping[str, str] | None) -> str:
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
    updates = _updates(table, columns, merge)
    return (
        f"INSERT INTO {table} ({every}) VALUES ({marks}) "
        f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}"
    )


def open_views(env: Mapping[str, str]) -> ViewDatabase:
    """The read models' database for the store an eventsourcing env names."""
    kind = store_kind(env)
    if kind == "postgres":
        return PostgresViews(env)
    if kind == "sqlite":
        return SQLiteViews(env.get("SQLITE_DBNAME", ":memory:"))
    return SQLiteViews(":memory:")
