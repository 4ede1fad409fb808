"""Counting what a reader takes from the store: every stored event each ``select_events``
call of the ledger's recorder returned, and each read of a stream with its events' positions
(``replay.log_positions.select``, which the round's audit reads through), so a test can say no
event was read twice."""

from __future__ import annotations

from collections import Counter
from typing import Any
from uuid import UUID

from replay import log_positions


class StoreReads:
    def __init__(self, app: Any, monkeypatch: Any) -> None:
        self.rows: list[tuple[UUID, int]] = []
        whole = app.recorder.select_events

        def select_events(*args: Any, **kwargs: Any) -> Any:
            found = whole(*args, **kwargs)
            self.rows += [(row.originator_id, row.originator_version) for row in found]
            return found

        monkeypatch.setattr(app.recorder, "select_events", select_events)
        positioned = log_positions.select

        def select(*args: Any, **kwargs: Any) -> Any:
            found = positioned(*args, **kwargs)
            self.rows += [(row.originator_id, row.originator_version) for row in found]
            return found

        monkeypatch.setattr(log_positions, "select", select)

    def twice(self) -> dict[tuple[UUID, int], int]:
        """The stored events (stream, version) read more than once, and how often."""
        return {row: n for row, n in Counter(self.rows).items() if n > 1}

    def streams(self) -> set[UUID]:
        return {stream for stream, _ in self.rows}
