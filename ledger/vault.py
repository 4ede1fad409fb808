"""Where shoe secrets wait until their reveal. The seed must exist before the first card
and must not be readable through any event or API until the shoe retires (SHUFFLE.md), so
it lives outside the ledger's own streams: here in a separate event-sourced application
(its own tables), in production ideally behind a key-management service."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any, Self
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import PersistenceError
from eventsourcing.popo import POPOAggregateRecorder
from eventsourcing.sqlite import SQLiteAggregateRecorder

from ledger.startup import ConcurrentStartup

logger = logging.getLogger(__name__)


def sealed_id(shoe_id: UUID) -> UUID:
    """Never the shoe's own id, so the two can share a store without colliding."""
    return uuid5(NAMESPACE_URL, f"twenty-one-ledger/sealed-shoe/{shoe_id}")


class SealedShoe(Aggregate):
    class Sealed(Aggregate.Created):
        server_seed: str
        fixed_order: list[str]

    @classmethod
    def seal(cls, shoe_id: UUID, server_seed: str, fixed_order: list[str]) -> Self:
        return cls._create(
            cls.Sealed, id=sealed_id(shoe_id), server_seed=server_seed, fixed_order=fixed_order
        )

    def __init__(self, server_seed: str, fixed_order: list[str]) -> None:
        self.server_seed = server_seed
        self.fixed_order = fixed_order


class ShoeVault(ConcurrentStartup, Application):
    name = "ShoeVault"

    def __init__(self, env: dict[str, Any] | None = None) -> None:
        super().__init__(env)
        self._cache: dict[UUID, SealedShoe] = {}

    def prepare(self, shoe_id: UUID, server_seed: str, fixed_order: list[str]) -> Callable[[], Any]:
        """Seal a new shoe's secret for this process at once, and return the write that makes
        it durable: the caller runs it only for a command that succeeds, and before the
        shoe's commitment is saved, so no committed shoe ever lacks its secret. Should that
        save be refused, ``discard`` takes the secret back."""
        sealed = SealedShoe.seal(shoe_id, server_seed, fixed_order)
        self._cache[shoe_id] = sealed
        return lambda: self.save(sealed)

    def discard(self, shoe_id: UUID) -> None:
        """Delete the sealed secret of a shoe whose commitment the ledger refused to save (the
        command lost a race, and wrote nothing): it belongs to no shoe, and would never be
        revealed. The vault's own log is followed by no one, so a deleted record leaves
        nothing out of step."""
        self._cache.pop(shoe_id, None)
        key = sealed_id(shoe_id)
        cache = self.repository.cache
        if cache is not None:
            with contextlib.suppress(KeyError):  # not cached
                cache.get(key, evict=True)
        try:
            delete_stream(self.recorder, key)
        except PersistenceError as error:
            # The command's own answer (a concurrent update, or its twin's result) matters
            # more: the secret stays, unused, as when a process dies between the two writes.
            logger.warning(
                "shoe %s was never recorded; its sealed secret stays: %s", shoe_id, error
            )

    def open(self, shoe_id: UUID) -> SealedShoe:
        sealed = self._cache.get(shoe_id)
        if sealed is None:
            sealed = self.repository.get(sealed_id(shoe_id))
            self._cache[shoe_id] = sealed
        return sealed


def delete_stream(recorder: Any, originator_id: UUID) -> None:
    """Delete one stream's events, by the store's own means: eventsourcing's recorders only
    append. The PostgreSQL recorder (ledger/adapters/postgres_store.py) does it itself, and
    the ledger imports no driver."""
    if isinstance(recorder, SQLiteAggregateRecorder):
        with recorder.datastore.transaction(commit=True) as cursor:
            cursor.execute(
                f"DELETE FROM {recorder.events_table_name} WHERE originator_id = ?",
                (originator_id.hex,),
            )
    elif isinstance(recorder, POPOAggregateRecorder):
        with recorder._database_lock:
            key = str(originator_id)
            kept = [e for e in recorder._stored_events if str(e.originator_id) != key]
            recorder._stored_events[:] = kept
            index = recorder._stored_events_index
            index.clear()
            for position, event in enumerate(kept):
                index[str(event.originator_id)][event.originator_version] = position
    else:
        delete = getattr(recorder, "delete_stream", None)
        if delete is None:
            raise PersistenceError(f"{type(recorder).__name__} cannot delete a stream")
        delete(originator_id)
