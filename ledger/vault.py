"""Where shoe secrets wait until their reveal. The seed must exist before the first card
and must not be readable through any event or API until the shoe retires (SHUFFLE.md), so
it lives outside the ledger's own streams: here in a separate event-sourced application
(its own tables), in production ideally behind a key-management service."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate

from ledger.startup import ConcurrentStartup


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
        shoe's commitment is saved, so no committed shoe ever lacks its secret."""
        sealed = SealedShoe.seal(shoe_id, server_seed, fixed_order)
        self._cache[shoe_id] = sealed
        return lambda: self.save(sealed)

    def open(self, shoe_id: UUID) -> SealedShoe:
        sealed = self._cache.get(shoe_id)
        if sealed is None:
            sealed = self.repository.get(sealed_id(shoe_id))
            self._cache[shoe_id] = sealed
        return sealed
