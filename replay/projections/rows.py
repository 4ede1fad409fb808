"""Rows of one read-model table, kept in memory between batches and written back once each.

A projector changes the same few rows (a wallet, a round, a table) many times in a batch.
Reading each row once per batch, with one query for all the keys the batch needs,
and writing each changed row once, keeps a rebuild close to the speed of just reading the
events. The cache is only trusted while this process was the last to write the projection;
the runner clears it otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

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
        group: int | None = None,
    ) -> None:
        self.table = table
        self.key = tuple(key)
        self.columns = tuple(columns)
        self.default = default
        self.cache: dict[Any, list[Any]] = {}
        self.dirty: set[Any] = set()
        # With ``group`` (the index of a key column), the cached keys by that column's value,
        # so ``drop_group`` forgets a group without scanning the whole cache.
        self.group = group
        self.groups: dict[Any, set[Any]] = {}

    def clear(self) -> None:
        self.cache.clear()
        self.dirty.clear()
        self.groups.clear()

    def _cache(self, key: Any, row: list[Any]) -> None:
        self.cache[key] = row
        if self.group is not None:
            self.groups.setdefault(key[self.group], set()).add(key)

    def drop_group(self, value: Any) -> None:
        """Forget (uncached, not dirty) every row whose key has ``value`` in ``group``."""
        for key in self.groups.pop(value, ()):
            del self.cache[key]
            self.dirty.discard(key)

    def prefetch(self, db: Any, keys: Iterable[Any]) -> None:
        """Read every row of ``keys`` not yet cached, in as few queries as the chunks allow."""
        missing = [k for k in set(keys) if k not in self.cache]
        width = len(self.key)
        if missing:
            for row in db.select_keys(self.table, self.key, self.columns, missing):
                key = row[0] if width == 1 else tuple(row[:width])
                self._cache(key, list(row[width:]))
        for k in missing:
            if k not in self.cache:
                self._cache(k, self.default(k))

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
            db.upsert(self.table, self.key, self.columns, rows)
            self.dirty.clear()
        if len(self.cache) > MAX_CACHED:
            self.cache.clear()
            self.groups.clear()
