"""Stored snapshots against their events, for ``replay verify``.

Loading an aggregate, ``table --at`` and the audit start from a table's or a wallet's latest
snapshot, which lives outside the hash-chained log (eventsourcing keeps snapshots in their own
recorder). Each stored snapshot must be the state its stream's events fold to at its version.

Cost: one snapshot query for each stream of a snapshotted kind (tables and wallets), made when
verify meets the stream's first event; a stream with snapshots is then folded alongside the
one pass over the log (no second read of the events) and compared at each snapshot's version.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from eventsourcing.utils import resolve_topic

from ledger.domain.chain import snapshot_state

MISSING = object()


class Snapshots:
    """Folds the snapshotted streams as the log is read; ``fault(where, problem)`` is called
    for each snapshot that does not match (``where`` names the stream and the snapshot's
    version)."""

    def __init__(self, app: Any, fault: Callable[[Any, str], None]) -> None:
        self.store = app.snapshots
        self.kinds = tuple(getattr(app, "snapshotting_intervals", None) or ())
        self.transcoder = app.mapper.transcoder
        self.fault = fault
        # stream -> [aggregate so far, snapshots not yet reached (ascending versions)]
        self.folding: dict[str, list[Any]] = {}
        self.checked_in: Counter[str] = Counter()  # snapshots checked, by stream

    @property
    def checked(self) -> int:
        return self.checked_in.total()

    def first_event(self, where: Any, event: Any) -> None:
        if self.store is None or not self.kinds:
            return
        topic = getattr(event, "originator_topic", None)
        if topic is None:
            return
        try:
            kind = resolve_topic(topic)
        except Exception:  # an unknown topic: the event's own decode would have failed
            return
        if kind not in self.kinds:
            return
        try:
            stored = list(self.store.get(event.originator_id))
        except Exception as error:
            self.fault(where.snapshot(), f"its snapshots cannot be read ({error})")
            return
        if stored:
            stored.sort(key=lambda s: s.originator_version)
            self.folding[where.stream] = [None, stored]

    def feed(self, where: Any, event: Any) -> None:
        entry = self.folding.get(where.stream)
        if entry is None:
            return
        aggregate, pending = entry
        try:
            aggregate = event.mutate(aggregate)
        except Exception as error:  # a stream that no longer folds cannot match a snapshot
            self.fault(where, f"the events no longer fold ({error}); snapshots not checked")
            del self.folding[where.stream]
            return
        entry[0] = aggregate
        while pending and pending[0].originator_version <= where.version:
            snapshot = pending.pop(0)
            if snapshot.originator_version == where.version:
                self.compare(where, aggregate, snapshot)
        if not pending:
            del self.folding[where.stream]

    def forget(self, stream: str) -> None:
        """Stop folding ``stream``: one of its events cannot be read (verify names it), so its
        snapshots cannot be weighed."""
        self.folding.pop(stream, None)

    def compare(self, where: Any, aggregate: Any, snapshot: Any) -> None:
        self.checked_in[where.stream] += 1
        fresh = type(aggregate).Snapshot.take(snapshot_state(aggregate))
        # Through the store's encoding, as the stored one went: tuples become lists, and so on.
        folded = self.transcoder.decode(self.transcoder.encode(fresh.state))
        stored = snapshot.state if isinstance(snapshot.state, dict) else {}
        kind = type(aggregate)
        differ = []
        for name in sorted(set(folded) | set(stored)):
            if name == "_modified_on" or name == "class_version":
                continue  # a time, and how the state is written: not a fact of the stream
            # A field a snapshot lacks reads as the class's default when it is loaded.
            mine = stored.get(name, getattr(kind, name, MISSING))
            theirs = folded.get(name, getattr(kind, name, MISSING))
            if mine != theirs:
                differ.append(name)
        if topic_of(snapshot) not in (None, topic_of(fresh)):
            differ.append("topic")
        if differ:
            self.fault(
                where.snapshot(),
                "the stored snapshot does not match the state its events fold to "
                f"(differs in {', '.join(differ)})",
            )

    def finish(self, last: Callable[[str], Any]) -> None:
        """Snapshots of versions the stream never reached (its last events are gone):
        ``last(stream)`` is where the stream's last event was read."""
        for stream, (_, pending) in self.folding.items():
            where = last(stream)
            for snapshot in pending:
                self.fault(
                    where.snapshot(snapshot.originator_version),
                    f"a snapshot of v{snapshot.originator_version}, but the stream ends at "
                    f"v{where.version}",
                )
        self.folding.clear()


def topic_of(snapshot: Any) -> str | None:
    return getattr(snapshot, "topic", None)
