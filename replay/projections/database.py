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
                self._conn().rollback()
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

    def read(self, statement: str, params: Sequence[Any] = ()) -> list[tuple]:
        """A read outside any write transaction (it sees only committed rows)."""
        with self._lock:
            rows = self.execute(statement, params)
            self._conn().commit()  # end the implicit read transaction
            return rows

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
        # connection beyond its ledger's pool.
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
        return self._connection

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def _sql(self, statement: str) -> str:
        return statement.replace("?", "%s")

    def _begin(self, lock_timeout: float) -> None:
        conn = self._conn()
        conn.rollback()  # psycopg opens a transaction on the first statement
        conn.execute(f"SET LOCAL lock_timeout = '{int(lock_timeout * 1000)}ms'")
        try:
            conn.execute("SELECT name FROM view_tracking FOR UPDATE")
        except self._psycopg.errors.LockNotAvailable as error:
            conn.rollback()
            raise ProjectionBusy(str(error).strip()) from None


def open_views(env: Mapping[str, str]) -> ViewDatabase:
    """The read models' database for the store an eventsourcing env names."""
    kind = store_kind(env)
    if kind == "postgres":
        return PostgresViews(env)
    if kind == "sqlite":
        return SQLiteViews(env.get("SQLITE_DBNAME", ":memory:"))
    return SQLiteViews(":memory:")
