"""The read models in SQLite: the events' own file (WAL), or an in-memory database of their own
beside the in-memory store (``replay.projections.database``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from replay.projections.database import ProjectionBusy, ViewDatabase


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
