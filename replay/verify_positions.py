"""``replay verify``: a hole in the log's positions, on a store that never leaves one.

SQLite and the memory store number events 1, 2, 3 … with no hole, ever:

- eventsourcing's SQLite recorder gives an event the table's ``rowid``, which SQLite makes the
  largest one so far plus one, inside the write's transaction: a write that is refused (a
  concurrent update of the same stream) or fails is rolled back, and its numbers with it;
- the memory store numbers an event by its place in a list that only grows;
- ``replay import`` keeps an export's positions on these stores only when they run 1, 2, 3 …
  (else ``--renumber`` gives new ones, from 1, in order);
- nothing of the ledger deletes an event.

So there a position missing before the last one is an event deleted. Most such deletions a
stream's own chain names (its versions skip one); a stream's last events, or a whole stream,
leave no trace in any chain, and the hole is all that is left of them. PostgreSQL's sequence is
not rolled back with a refused write, so its positions have holes honestly: none is a fault
there, nor on a store this module does not know.

A hole between a stream's two events whose versions skip (the chain names that one) is not
named again; every other hole is, once, at its first position, between the events around it.
"""

from __future__ import annotations

from typing import Any

from replay.verify_report import OnFault, Where


def gapless_store(app: Any) -> str | None:
    """The name of ``app``'s store when it numbers events without a hole (SQLite, memory);
    None for any other (PostgreSQL, whose positions may skip)."""
    from eventsourcing.popo import POPOApplicationRecorder
    from eventsourcing.sqlite import SQLiteApplicationRecorder

    recorder = getattr(app, "recorder", None)
    if isinstance(recorder, SQLiteApplicationRecorder):
        return "SQLite"
    if isinstance(recorder, POPOApplicationRecorder):
        return "the memory store"
    return None


class Positions:
    """Fed every stored event of the one pass (its position, stream and version, as stored:
    decoded or not); ``finish`` calls ``fault(where, problem)`` for each hole in the positions
    that no stream's skipped versions account for. Does nothing for ``store`` None."""

    def __init__(self, store: str | None, fault: OnFault) -> None:
        self.store = store
        self.fault = fault
        self.previous: Where | None = None  # the last event read
        self.holes: list[tuple[int, int, Where | None, Where]] = []  # first, last, around
        self.last: dict[str, tuple[int, int]] = {}  # each stream's last (version, position)
        self.skipped: list[tuple[int, int]] = []  # (after, before): a stream's versions skip

    def feed(self, notification: Any) -> None:
        if self.store is None:
            return
        position = notification.id
        stream, version = str(notification.originator_id), notification.originator_version
        topic = notification.topic
        where = Where(position, stream, version, str(topic).rsplit(":", 1)[-1])
        start = 0 if self.previous is None else self.previous.position
        if position > start + 1:
            self.holes.append((start + 1, position - 1, self.previous, where))
        self.previous = where
        if isinstance(version, int):
            known, at = self.last.get(stream, (0, 0))
            if version > known + 1:
                self.skipped.append((at, position))
            self.last[stream] = (max(version, known), position)

    def finish(self) -> None:
        for first, last, before, after in self.holes:
            if any(at < first and last < upto for at, upto in self.skipped):
                continue  # a stream's chain names the events missing there
            self.fault(Where(first, "", 0, ""), self.problem(first, last, before, after))

    def problem(self, first: int, last: int, before: Where | None, after: Where) -> str:
        which = f"position {first} is" if first == last else f"positions {first} to {last} are"
        around = (
            f"the log starts at position {after.position}"
            if before is None
            else f"between {_named(before)} and {_named(after)}"
        )
        one = first == last
        return (
            f"{which} missing ({around}): {self.store} numbers events 1, 2, 3 … without a "
            "hole, even for a write it refuses, so "
            + (
                "the event recorded there was deleted; as no stream's versions skip it, it was "
                "a stream's last event (or a whole stream's)"
                if one
                else "the events recorded there were deleted; as no stream's versions skip "
                "them, each was a stream's last event (or a whole stream's)"
            )
        )


def _named(where: Where) -> str:
    return f"{where.type} v{where.version} of stream {where.stream} (position {where.position})"
