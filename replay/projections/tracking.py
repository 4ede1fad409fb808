"""The projections' own bookkeeping: ``view_projections`` holds, for every projection, the
version of the code that built its tables and the position in the log it has folded to.

Versions only move forward: a projection recorded at a newer version than this code folds
is never dropped or folded into by it (``ProjectionSuperseded``), so new projectors can be
rolled out while old workers still run; the old ones stop at their next batch.
A projection recorded at an older version is dropped and rebuilt from the first event.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from replay.projections.database import ViewDatabase
from replay.projections.projector import Projector

TRACKING = "view_projections"  # name, version, position of every projection


class ProjectionSuperseded(Exception):
    """The database holds a projection at another version than this code folds: newer code
    has rebuilt it. This process must not touch it again; upgrade and restart it."""

    def __init__(self, name: str, recorded: int, ours: int) -> None:
        self.name, self.recorded, self.ours = name, recorded, ours
        super().__init__(
            f"the read model {name!r} is at version {recorded} in the database, this process "
            f"folds version {ours}: it was rebuilt by other code; upgrade and restart this "
            "process"
        )


def create_tables(views: ViewDatabase, projectors: Sequence[Projector]) -> None:
    """Create the tracking table and every projection's tables, in one transaction of
    ``views``: a projection recorded at another version than its projector's is dropped,
    to be rebuilt from the first event by the next catch-up."""
    # One process at a time checks versions and creates tables: two at once would
    # collide on PostgreSQL's catalogue, or one would drop what the other just made.
    if views.kind == "postgres":
        views.execute("SELECT pg_advisory_xact_lock(217021)")
    else:
        views._begin(5.0)  # SQLite's write lock (ProjectionBusy if another holds it)
    views.execute(
        f"CREATE TABLE IF NOT EXISTS {TRACKING} (name TEXT PRIMARY KEY,"
        " version BIGINT NOT NULL, position BIGINT NOT NULL)"
    )
    known = dict(views.execute(f"SELECT name, version FROM {TRACKING}"))
    for projector in projectors:
        recorded = known.get(projector.name)
        if recorded is not None and recorded > projector.version:
            # Versions only move forward: an old process started during a deploy must
            # not drop what the new code has built.
            raise ProjectionSuperseded(projector.name, recorded, projector.version)
        if recorded != projector.version:
            for table in projector.tables:
                views.execute(f"DROP TABLE IF EXISTS {table}")
            views.execute(
                f"INSERT INTO {TRACKING} (name, version, position) VALUES (?, ?, 0)"
                " ON CONFLICT (name) DO UPDATE SET version = excluded.version,"
                " position = 0",
                (projector.name, projector.version),
            )
        for statement in projector.ddl:
            views.execute(statement)
    views._conn().commit()


def checked_positions(
    rows: Iterable[Sequence[Any]], projectors: Sequence[Projector]
) -> dict[str, int]:
    """The positions of ``projectors`` among tracking ``rows`` (name, version, position);
    ``ProjectionSuperseded`` if one is recorded at another version."""
    ours = {p.name: p.version for p in projectors}
    positions = {}
    for name, version, position in rows:
        if name in ours:
            if version != ours[name]:
                raise ProjectionSuperseded(name, int(version), ours[name])
            positions[name] = int(position)
    return positions
