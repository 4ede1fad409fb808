"""Rows of one read-model table, kept in memory between batches and written back once each.

A projector changes the same few rows (a wallet, a round, a table) many times in a batch.
Reading each row once per batch, with one query for all the keys the batch needs,
and writing each changed row once, keeps a rebuild close to the speed of just reading the
events. The cache is only trusted while this process was the last to write the projection;
the runner clears it otherwise.

A table that was empty when the cache was last cleared (a rebuild, a first catch-up) holds
nothing this process has not cached since: while that lasts (``complete``), a key not cached
is a row not yet written, found without a query and written with a plain insert.
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
        self.complete = False  # every row of the table is in the cache (see the module)
        self.new: set[Any] = set()  # cached while complete and not yet in the table

    def clear(self) -> None:
        self.cache.clear()
        self.dirty.clear()
        self.groups.clear()
        self.new.clear()
        self.complete = False

    def begin(self, db: Any) -> None:
        """After :meth:`clear`: the cache is complete from here if the table is empty."""
        self.complete = db.is_empty(self.table)

    def _cache(self, key: Any, row: list[Any]) -> None:
        self.cache[key] = row
        if self.group is not None:
            self.groups.setdefault(key[self.group], set()).add(key)

    def drop_group(self, value: Any) -> None:
        """Forget (uncached, not dirty) every row whose key has ``value`` in ``group``."""
        for key in self.groups.pop(value, ()):
            del self.cache[key]
            self.dirty.discard(key)
            self.new.discard(key)

    def prefetch(self, db: Any, keys: Iterable[Any]) -> None:
        """Read every row of ``keys`` not yet cached, in as few queries as the chunks allow."""
        missing = [k for k in set(keys) if k not in self.cache]
        if self.complete:  # nothing to read: every row not cached is new
            for k in missing:
                self._cache(k, self.default(k))
            self.new.update(missing)
            return
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
            width, new, cache = len(self.key), self.new, self.cache
            added, changed = [], []
            for k in sorted(self.dirty):
                (added if k in new else changed).append(
                    ((k,) if width == 1 else tuple(k)) + tuple(cache[k])
                )
            db.insert(self.table, (*self.key, *self.columns), added)
            db.upsert(self.table, self.key, self.columns, changed)
            new -= self.dirty
            self.dirty.clear()
        if len(self.cache) > MAX_CACHED:
            self.clear()  # and no longer complete: rows not cached are read again
