"""One command's working set: every aggregate it loads is loaded once, and all that
changed is saved together in one atomic write (or nothing is, when the command fails)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, ProcessingEvent
from eventsourcing.domain import BaseAggregate

from ledger.domain.chain import project
from ledger.domain.shoe import Shoe
from ledger.errors import NotFound, UnknownPlayer, UnknownRound, UnknownTable


class UnitOfWork:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.loaded: dict[UUID, Any] = {}
        self.created: list[Any] = []
        # Side effects that must happen only for a command that succeeds: sealing a shoe's
        # secret before the commitment is saved, releasing a queued test shoe after; and
        # undoing the first when the save is refused, having written nothing (a lost race).
        self.before_save: list[Callable[[], Any]] = []
        self.after_save: list[Callable[[], Any]] = []
        self.if_refused: list[Callable[[], Any]] = []
        self.taken: dict[str, int] = {}
        # A dry run (``allowed_actions``) decides and is never saved: it stops where a new
        # shoe would seal a secret and draw on the shuffle's randomness (ledger/shoes.py).
        self.dry = False
        self.newer: dict[UUID, Any] = {}  # fetched ahead by ``prefetch``, copied on demand

    def prefetch(self, *aggregate_ids: Any, whole: Any = None) -> None:
        """Bring the cached ones of these aggregates up to date with one read of the store
        (see ledger/repository.py), and in the same read all the events of ``whole`` (a round)
        when it is not cached; each is copied only if the command loads it. Ids that are not
        valid are left for ``get`` to refuse."""
        entire = _key(whole)
        keys = []
        for key in map(_key, (whole, *aggregate_ids)):
            if key and key not in self.loaded and key not in self.newer and key not in keys:
                keys.append(key)
        if keys:
            from ledger.domain.round import Round

            rounds = (entire,) if entire in keys else ()
            fetched = self.app.repository.fetch_newer(keys, whole=rounds, kind=Round.Started)
            self.newer.update(fetched)

    def get(self, aggregate_id: UUID | str, error: type[NotFound], what: str) -> Any:
        key = _key(aggregate_id)
        if key is None:
            raise error(f"{what} {aggregate_id!r} is not a valid id")
        if key in self.loaded:
            return self.loaded[key]
        repository = self.app.repository
        try:
            if key in self.newer:
                aggregate = repository.up_to_date(key, self.newer, project)
            else:
                aggregate = repository.get(key, projector_func=project)
        except AggregateNotFoundError:
            raise error(f"no {what} {aggregate_id}") from None
        self.loaded[key] = aggregate
        return aggregate

    def table(self, table_id: Any) -> Any:
        from ledger.domain.table import Table

        table = self.get(table_id, UnknownTable, "table")
        if not isinstance(table, Table):
            raise UnknownTable(f"no table {table_id}")
        return table

    def round(self, round_id: Any) -> Any:
        from ledger.domain.round import Round

        rnd = self.get(round_id, UnknownRound, "round")
        if not isinstance(rnd, Round):
            raise UnknownRound(f"no round {round_id}")
        return rnd

    def player(self, player_id: Any) -> Any:
        from ledger.domain.player import Player

        player = self.get(player_id, UnknownPlayer, "player")
        if not isinstance(player, Player):
            raise UnknownPlayer(f"no player {player_id}")
        return player

    def shoe(self, shoe_id: Any) -> Any:
        return self.get(shoe_id, NotFound, "shoe")

    def add(self, aggregate: Any) -> Any:
        self.created.append(aggregate)
        self.loaded[aggregate.id] = aggregate
        return aggregate

    def pending(self) -> list[Any]:
        # A new shoe's commitment and cut are written ahead of the cards drawn from it, though
        # the round that draws them was created first (a shoe run out in the opening deal):
        # the log's order is the proof that the shuffle was fixed before the deal (SHUFFLE.md).
        created = sorted(self.created, key=lambda aggregate: not isinstance(aggregate, Shoe))
        seen: dict[UUID, Any] = {}
        for aggregate in [*created, *self.loaded.values()]:
            if aggregate.pending_events:
                seen[aggregate.id] = aggregate
        return list(seen.values())


class LedgerProcessingEvent(ProcessingEvent):
    """What one ``save`` writes. eventsourcing tells an aggregate from an event by two runtime
    protocol checks per object, each walking the protocol's members: about a twentieth of a
    command. An aggregate of this library is known by its class."""

    def collect_events(self, *objs: Any, **kwargs: Any) -> None:
        for obj in objs:
            if isinstance(obj, BaseAggregate):
                self.events.extend(obj.collect_events())
                self.aggregates[obj.id] = obj
            else:
                super().collect_events(obj)
        self.saved_kwargs.update(kwargs)


def _key(aggregate_id: Any) -> UUID | None:
    if aggregate_id is None or isinstance(aggregate_id, UUID):
        return aggregate_id
    try:
        return UUID(str(aggregate_id))
    except ValueError:
        return None
