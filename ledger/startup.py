"""Opening a store that other processes may be opening at the same moment.

eventsourcing creates its tables with ``CREATE TABLE IF NOT EXISTS`` when an application
starts. On PostgreSQL two processes doing that at once on a new database (an API server and a
projector worker started together) collide inside the catalogue ("duplicate key value
violates unique constraint pg_type_typname_nsp_index"): one of them loses although the table
it wanted now exists. Trying again, after a random pause, is then all it takes.

Only the errors such a collision raises are tried again (a unique violation in the catalogue,
"tuple concurrently updated", "relation already exists"): a server that cannot be reached is
reported after one connection timeout, not ten.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any, TypeVar

from eventsourcing.persistence import IntegrityError, InternalError, ProgrammingError

T = TypeVar("T")
ATTEMPTS = 10
# What two processes creating the same tables at once raise (seen on PostgreSQL 15).
COLLISIONS = (IntegrityError, InternalError, ProgrammingError)


def retrying_creation(construct: Callable[[], T]) -> T:
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return construct()
        except COLLISIONS:
            if attempt == ATTEMPTS:
                raise
            # Jittered, so processes that collided once do not retry in lockstep and collide
            # again.
            time.sleep(random.uniform(0.01, 0.05 * attempt))
    raise AssertionError("unreachable")  # pragma: no cover


class ConcurrentStartup:
    """Mixed into an ``Application``: its recorders survive a concurrent first start."""

    def construct_recorder(self) -> Any:
        return retrying_creation(super().construct_recorder)  # type: ignore[misc]

    def construct_snapshot_store(self) -> Any:
        return retrying_creation(super().construct_snapshot_store)  # type: ignore[misc]
