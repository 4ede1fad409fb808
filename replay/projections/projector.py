"""What every projector is: tables of its own, the events it reads, and how it folds them.

A projector never reads the write side's aggregates and never writes them: it sees each event
once, in global order, and changes only its own tables. The runner (``runner.py``) decides
which events it sees (``fold.py`` routes each to its handlers) and commits its rows together
with how far it has read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from replay.projections.rows import Rows

Handler = Callable[[Any, Any], None]  # (event, notification)


def stored_only(handler: Handler) -> Handler:
    """Mark a handler that reads only the stored event (``n``): the runner then decodes
    no event for it, and passes None as the event unless another handler needed it."""
    handler.stored_only = True  # type: ignore[attr-defined]
    return handler


def event_name(topic: str) -> str:
    """``Round.StakePlaced`` from ``ledger.domain.round:Round.StakePlaced``."""
    return topic.rpartition(":")[2]


class Projector:
    name: str = ""
    ddl: Sequence[str] = ()
    # Raise it whenever the tables or what is folded into them change: a store whose rows
    # were made by another version has them dropped and rebuilt from the first event.
    version: int = 1

    def __init__(self) -> None:
        self.rows: list[Rows] = []
        self.db: Any = None
        self.decoder: Any = None  # the runner's FactDecoder

    @property
    def tables(self) -> list[str]:
        return [statement.split()[5] for statement in self.ddl if " TABLE " in statement]

    def handlers(self) -> dict[str, Handler]:
        """Event name (``Class.Event``) → the method that folds it."""
        raise NotImplementedError

    def prefetch(self, batch: list[tuple[Any, Any]]) -> None:
        """Read the rows the batch's (event, notification) pairs will change, in bulk."""

    def clear(self) -> None:
        for rows in self.rows:
            rows.clear()

    def begin(self, db: Any) -> None:
        """After :meth:`clear`, in the batch's transaction: learn what the tables hold."""
        for rows in self.rows:
            rows.begin(db)

    def cached_whole(self) -> bool:
        """Whether every row of every table is cached (a prefetch has nothing to read)."""
        return all(rows.complete for rows in self.rows)

    def flush(self) -> None:
        for rows in self.rows:
            rows.flush(self.db)

    def owned(self, rows: Rows) -> Rows:
        self.rows.append(rows)
        return rows
