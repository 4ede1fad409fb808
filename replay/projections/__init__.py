"""Read models of the ledger, kept in the events' own database and always rebuildable.

- ``bankroll``: every account's balance, stakes held in open rounds, and movements.
- ``history``: rounds per table and per player, hands, and each table's results.
- ``audit_trail``: every event and wallet and pool transfer of each round, in order.

``open_views(env)`` opens their database (``database``: one connection and its transaction;
``sqlite_views`` and ``postgres_views``: each engine's own ways), and
``open_projections(app, env)`` gives the :class:`Projections` of a ledger application;
``python -m replay project`` keeps them current from another process and
``python -m replay rebuild`` builds them again from the first event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ledger.config import store_kind
from replay.projections.database import ProjectionBusy, ViewDatabase
from replay.projections.postgres_views import PostgresViews
from replay.projections.runner import ProjectionLag, Projections
from replay.projections.sqlite_views import SQLiteViews
from replay.projections.tracking import ProjectionSuperseded

__all__ = [
    "ProjectionBusy",
    "ProjectionLag",
    "ProjectionSuperseded",
    "Projections",
    "open_projections",
    "open_views",
]


def open_views(env: Mapping[str, str]) -> ViewDatabase:
    """The read models' database for the store an eventsourcing env names."""
    kind = store_kind(env)
    if kind == "postgres":
        return PostgresViews(env)
    if kind == "sqlite":
        return SQLiteViews(env.get("SQLITE_DBNAME", ":memory:"))
    return SQLiteViews(":memory:")


def open_projections(app: Any, env: Mapping[str, str], batch: int | None = None) -> Projections:
    """The projections of ``app``, whose eventsourcing environment is ``env``."""
    views = open_views(env)
    if batch is None:
        return Projections(app, views)
    return Projections(app, views, batch=batch)
