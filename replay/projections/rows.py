"""Rows of one read-model table, kept in memory between batches and written back once each.

A projector changes the same few rows (a wallet, a round, a table) many times in a batch.
Reading each row once per batch, with one ``IN (…)`` query for all the keys the batch needs,
and writing each changed row once, keeps a rebuild close to the speed of just reading the
events. The cache is only trusted while this process was the last to write the projection;
the runner clears it otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

CHUNK = 400  # keys per IN (…) query: well under SQLite's and PostgreSQL's parameter limits
MAX_CACHED = 200_000  # rows kept between batches before the cache is dropped (after a flush)


class Rows:
    """The rows of ``table`` by ``key`` (one or more columns), each a mutable list of
    ``columns``' values; a row not in the table starts as ``default(key)``."""

    def __init__(
        self,
        table: str,
        key: Sequence[str],
        columns: Sequence[str],
        default: Callable[[Any], list[Any]],
    ) -> None:
        self.table = table
        self.key = tuple(key)
        self.columns = tuple(columns)
        self.default = default
        self.cache: dict[Any, list[Any]] = {}
        self.dirty: set[Any] = set()
        keys = ", ".join(self.key)
        every = ", ".join(self.key + self.columns)
        marks = ", ".join("?" * len(self.key + self.columns))
        updates = ", ".join(f"{c} = excluded.{c}" for c in self.columns)
        self._upsert = (
            f"INSERT INTO {table} ({every}) VALUES ({marks}) "
            f"ON CONFLICT ({keys}) DO UPDATE SET {updates}"
        )
        self._select = f"SELECT {every} FROM {table} WHERE "

    def clear(self) -> None:
        self.cache.clear()
        self.dirty.clear()

    def prefetch(self, db: Any, keys: Iterable[Any]) -> None:
        """Read every row of ``keys`` not yet cached, in as few queries as the chunks allow."""
        missing = [k for k in set(keys) if k not in self.cache]
        width = len(self.key)
        for start in range(0, len(missing), CHUNK):
            chunk = missing[start : start + CHUNK]
            if width == 1:
                where = f"{self.key[0]} IN ({', '.join('?' * len(chunk))})"
                params: list[Any] = list(chunk)
            else:
                one = "(" + ", ".join("?" * width) + ")"
                where = f"({', '.join(self.key)}) IN (VALUES {', '.join([one] * len(chunk))})"
                params = [part for k in chunk for part in k]
            for row in db.execute(self._select + where, params):
                key = row[0] if width == 1 else tuple(row[:width])
                self.cache[key] = list(row[width:])
        for k in missing:
            if k not in self.cache:
                self.cache[k] = self.default(k)

    def get(self, db: Any, key: Any) -> list[Any]:
        row = self.cache.get(key)
        if row is None:
            self.prefetch(db, (key,))
            row = self.cache[key]
        return row

    def touch(self, key: Any) -> None:
        self.dirty.add(key)

    def flush(self, db: Any) -> None:
        if self.dirty:
            width = len(self.key)
            rows = [
                ((k,) if width == 1 else tuple(k)) + tuple(self.cache[k])
                for k in sorted(self.dirty)
            ]
            db.executemany(self._upsert, rows)
            self.dirty.clear()
        if len(self.cache) > MAX_CACHED:
            self.cache.clear()
