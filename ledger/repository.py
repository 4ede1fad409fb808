"""The application's repository: eventsourcing's, with cached aggregates that are never
changed in place, and several of them brought up to date with one read of the store.

eventsourcing fast-forwards a cached aggregate by folding the newer events onto the cached
object itself, under a lock per aggregate, and then copies it for the caller. Here the copy
comes first and the events are folded onto the copy, which then replaces the cached object
(the caller gets a copy of it in turn): a cached object, once cached, is never written again,
so readers may share it and no lock is needed to copy it. That is what lets ``fetch_newer``
read the newer events of every aggregate a command will touch (a round, its table, its
players' wallets) in one query, where each load used to cost a query of its own.

A read as of the fetch is as good as a read at the load: either way the command's write
conflicts, and is refused, if any aggregate it writes changed meanwhile."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any
from uuid import UUID

from eventsourcing.application import (
    AggregateNotFoundError,
    Repository,
    project_aggregate,
)
from eventsourcing.utils import get_topic

# For each cached aggregate: the cached object and the events stored after its version (as
# stored: decoded when the aggregate is loaded), or None for "rebuild it from its snapshot".
Newer = dict[UUID, tuple[Any, list[Any] | None]]


# The most events one load folds onto a copy (or, for a round not cached, from nothing). An
# aggregate with more (a long-stale cached table; an id of a table given where a round was
# meant) is rebuilt from its latest snapshot instead: a read stays bounded whatever id it is
# given. A round has far fewer events than this.
MAX_FOLD = 500
# A command's own fold of at least this many events is cached at once (see ``up_to_date``).
REFOLD = 8


def select_newer(recorder: Any, versions: dict[UUID, int]) -> dict[UUID, list[Any]]:
    """At most ``MAX_FOLD`` stored events after each given version, by aggregate id: in one
    query where the recorder can (``select_events_after``, PostgreSQL), else one each."""
    if len(versions) > 1 and hasattr(recorder, "select_events_after"):
        return recorder.select_events_after(versions, MAX_FOLD)
    return {
        oid: list(recorder.select_events(oid, gt=v, limit=MAX_FOLD)) for oid, v in versions.items()
    }


def _copy(aggregate: Any) -> Any:
    """``deepcopy(aggregate)``, calling the aggregate's own ``__deepcopy__`` directly: the
    generic dispatch and memo bookkeeping were a quarter of copying a table or a wallet."""
    own = getattr(type(aggregate), "__deepcopy__", None)
    return deepcopy(aggregate) if own is None else own(aggregate, {})


class LedgerRepository(Repository):
    def get(
        self,
        aggregate_id: Any,
        *,
        version: int | None = None,
        projector_func: Callable[..., Any] = project_aggregate,
        fastforward_skipping: bool = False,
        deepcopy_from_cache: bool = True,
    ) -> Any:
        if version is not None or self.cache is None or not self.fastforward:
            return super().get(
                aggregate_id,
                version=version,
                projector_func=projector_func,
                fastforward_skipping=fastforward_skipping,
                deepcopy_from_cache=deepcopy_from_cache,
            )
        newer = self.fetch_newer([aggregate_id])
        return self.up_to_date(aggregate_id, newer, projector_func, copy=deepcopy_from_cache)

    def fetch_newer(
        self, aggregate_ids: Iterable[UUID], whole: Iterable[UUID] = (), kind: type = object
    ) -> Newer:
        """Of these aggregates, the cached ones, each with the events stored after it; and of
        those in ``whole`` (short streams, never snapshotted: rounds, whose first event is a
        ``kind``) that are not cached, all their events, with ``None`` for the cached object.
        An aggregate left out is rebuilt from its snapshot when loaded."""
        cached: dict[UUID, Any] = {}
        if self.cache is not None:
            for oid in aggregate_ids:
                try:
                    cached[oid] = self.cache.get(oid)
                except KeyError:
                    if oid in whole:
                        cached[oid] = None
        if not cached:
            return {}
        rows = select_newer(
            self.event_store.recorder,
            {oid: 0 if agg is None else agg.version for oid, agg in cached.items()},
        )
        # Told by its topic, not decoded: the first event is decoded once, when loaded. A
        # topic renamed since (``register_topic``) only costs a rebuild from the snapshot.
        first_topic = None if kind is object else get_topic(kind)
        newer: Newer = {}
        for oid, agg in cached.items():
            stored = list(rows.get(oid, ()))
            # Too far behind, or not what was asked for (a table's id for a round's): rebuilt
            # from its snapshot. Else decoded when loaded: a command may not load it.
            rebuild = len(stored) >= MAX_FOLD or bool(
                agg is None and stored and first_topic and stored[0].topic != first_topic
            )
            newer[oid] = (agg, None if rebuild else stored)
        return newer

    def as_cached(self, aggregate_ids: Iterable[Any]) -> Newer:
        """Of these aggregates, the cached ones as they are, with nothing newer and no read:
        for an answer about what a command has just saved, which left them so."""
        newer: Newer = {}
        if self.cache is None:
            return newer
        for aggregate_id in aggregate_ids:
            try:
                oid = aggregate_id if isinstance(aggregate_id, UUID) else UUID(str(aggregate_id))
                newer[oid] = (self.cache.get(oid), [])
            except (KeyError, ValueError):  # not cached, or not an id (the casino's house)
                continue
        return newer

    def up_to_date(
        self,
        aggregate_id: UUID,
        newer: Newer,
        projector_func: Callable[..., Any] = project_aggregate,
        *,
        copy: bool = True,
    ) -> Any:
        """The aggregate as of ``newer`` (from ``fetch_newer``), or rebuilt from the store when
        it is not there. ``copy=False`` may return the cached object itself: read it only."""
        cached, events = newer.get(aggregate_id, (None, None))
        if events is None:  # not fetched, or to be rebuilt
            aggregate = self._reconstruct_aggregate(aggregate_id, None, projector_func)
        elif not events:
            if cached is None:
                raise AggregateNotFoundError(aggregate_id)
            return _copy(cached) if copy else cached
        else:
            decode = self.event_store.mapper.to_domain_event
            aggregate = projector_func(
                None if cached is None else _copy(cached), [decode(e) for e in events]
            )
            if aggregate is None:
                raise AggregateNotFoundError(aggregate_id)
        if not copy:  # a reader's fold: cached, and shared with the caller
            self.keep(aggregate)
            return aggregate
        # A command's fold is its own to change; the cache moves forward when the command is
        # saved (``UnitOfWork``: every aggregate it loaded). A long fold, or a rebuild, is
        # cached now as well, at the price of one more copy, so that a process that only
        # reads an aggregate others write never folds more than a few events a load.
        if self.cache is not None and (events is None or len(events) >= REFOLD):
            self.keep(aggregate)
            return _copy(aggregate)
        return aggregate

    def keep(self, aggregate: Any) -> None:
        """Cache ``aggregate`` unless a newer version of it is cached already (another
        thread's): the cache only moves forward. The caller must not change it afterwards."""
        if self.cache is None:
            return
        try:
            cached = self.cache.get(aggregate.id)
        except KeyError:
            cached = None
        if cached is None or cached.version <= aggregate.version:
            self.cache.put(aggregate.id, aggregate)
