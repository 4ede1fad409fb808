"""The read models in PostgreSQL: the events' own database and schema, reached with one
connection of this process's own (``replay.projections.database``), written a batch and a
table at a time with ``COPY``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ledger.config import POSTGRES_DEFAULTS
from ledger.settings import env_int, env_str
from replay.projections.database import ProjectionBusy, ViewDatabase, set_clause

_ARRAY = {str: "text[]", int: "bigint[]"}  # PostgreSQL array types of key parts, by type


def connect_settings(env: Mapping[str, str]) -> dict[str, Any]:
    """Where the read models' connection goes: the ledger's own PostgreSQL settings, read as
    ``ledger.config.store_env`` reads them (a blank one is its default)."""
    settings: dict[str, Any] = {
        name.removeprefix("POSTGRES_").lower(): env_str(name, default, env)
        for name, default in POSTGRES_DEFAULTS.items()
    }
    settings["password"] = env.get("POSTGRES_PASSWORD") or ""  # taken as it is
    settings["port"] = env_int("POSTGRES_PORT", 5432, env, minimum=1, maximum=65535)
    settings["connect_timeout"] = env_int("POSTGRES_CONNECT_TIMEOUT", 5, env, minimum=0)
    return settings


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
            self._connection = psycopg.connect(**connect_settings(env), prepare_threshold=None)
            schema = env_str("POSTGRES_SCHEMA", "", env)
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
        updates = set_clause(table, columns, merge)
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
