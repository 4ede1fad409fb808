"""``replay verify``: each stream's hash chain, as the log is read.

Every stream's versions run 1, 2, 3 … without gaps, each event's ``prev_hash`` is its
predecessor's ``hash`` and its ``hash`` is the SHA-256 of its own canonical content
(``ledger.domain.chain``, the rule ``verify_chain`` applies to one stream), and a stream's
recorded times never go back.

A version skipped is named where the gap shows, in the order the faults are found, but its
words wait for the end of the log: an event of the stream found later in the log than the
stream's next ones (moved, not removed) fills the gap, and the fault then says that the
stream's events are out of order, with the late event's position; the late event is held to
its neighbours' hashes, not to the stream's times, which its place in the log breaks by
itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ledger.domain.chain import GENESIS, event_fields, hash_matches
from replay.audit_events import utc
from replay.verify_report import Fault, Where


@dataclass
class Gap:
    """Versions ``first`` to ``end - 1`` of a stream, not read when version ``end`` was
    (at ``where``): ``before`` is the hash the first must follow (None: unknown), ``after``
    the ``prev_hash`` version ``end`` gives the last. ``late``: the versions read since, each
    with its (prev_hash, hash) and where it was read."""

    where: Where
    first: int
    end: int
    before: str | None
    after: str | None
    fault: Fault | None  # its fault, worded once the log is read
    late: dict[int, tuple[Any, Any, Where]] = field(default_factory=dict)

    def holds(self, version: int) -> bool:
        return self.first <= version < self.end and version not in self.late

    def missing(self) -> int | None:
        """The first version of the gap never read, or None once all were."""
        if len(self.late) == self.end - self.first:
            return None
        version = self.first
        while version in self.late:  # bounded by the versions read late, not the gap's size
            version += 1
        return version


class Chains:
    """Fed every event of the one pass (``check``); ``fault(where, problem)`` is called for
    each break in its stream's chain (a gap or events out of order: at ``finish``)."""

    def __init__(self, fault: Callable[[Where, str], Fault | None]) -> None:
        self.fault = fault  # fault(where, problem): the fault it added (to word it later)
        # (last hash, next version): None for a hash or version unknown (a row unread)
        self.links: dict[str, tuple[str | None, int | None]] = {}
        self.times: dict[str, Any] = {}  # each stream's latest event time so far
        self.gaps: dict[str, list[Gap]] = {}
        self.own_hash: str | None = None  # the stored hash of the event last checked
        self.in_order = True  # whether it was its stream's next version, as far as known

    def __len__(self) -> int:
        """How many streams were read."""
        return len(self.links)

    def __contains__(self, stream: object) -> bool:
        """Whether ``stream`` is one the log holds (a row whose stream id is unread is not)."""
        return stream in self.links

    def last_hash(self, stream: str) -> str | None:
        """The hash of the stream's last event read (None when it could not be decoded)."""
        return self.links[stream][0]

    def undecodable(self, where: Where) -> None:
        """An event that cannot be decoded (or whose row cannot be read): its hash is
        unknown, and the chain goes on after it (after any version, when its own is not one)."""
        self.own_hash = None
        if where.version is None:
            self.links[where.stream] = (None, None)
            return
        if self.place(where, None, None, known=False) in ("next", "gap"):
            self.links[where.stream] = (None, where.version + 1)

    def check(self, where: Where, event: Any) -> bool:
        """Check the event's place in its stream's chain; whether its content fits its hash."""
        fields = event_fields(event)
        own = fields.get("hash")
        self.own_hash = own if isinstance(own, str) else None
        placed = self.place(where, fields.get("prev_hash"), own)
        self.in_order = placed == "next"
        if "hash" not in fields:
            intact = False
            self.fault(where, "the event carries no hash")
        else:
            try:
                intact = hash_matches(where.type, fields)
            except Exception as error:  # a value no JSON encoder writes
                intact = False
                self.fault(where, f"its hash cannot be computed ({type(error).__name__}: {error})")
            else:
                if not intact:
                    self.fault(where, "content does not match its hash (the event was altered)")
        if placed in ("late", "stray"):
            return intact  # its place in the log already breaks the stream's times
        self.times_of(where, fields.get("timestamp"))
        self.links[where.stream] = (own, where.version + 1)
        return intact

    def place(self, where: Where, prev_hash: Any, own: Any, known: bool = True) -> str:
        """Where the event stands in its stream: ``next`` (or after a row unread), ``gap``
        (versions before it not read yet), ``late`` (read after versions that follow it).
        ``known``: whether its hashes are (not for an event that cannot be decoded)."""
        stream, version = where.stream, where.version
        prev, expected = self.links.get(stream, (GENESIS, 1))
        if expected is None or version == expected:
            if known and prev is not None and prev_hash != prev:
                self.fault(where, "prev_hash does not match the preceding event's hash")
            return "next"
        if version > expected:
            found = self.fault(where, self.gap_problem(expected, version))
            gap = Gap(where, expected, version, prev, prev_hash, found)
            self.gaps.setdefault(stream, []).append(gap)
            return "gap"
        gap = next((g for g in self.gaps.get(stream, ()) if g.holds(version)), None)
        if gap is None:
            self.fault(where, self.gap_problem(expected, version))
            return "stray"
        gap.late[version] = (prev_hash, own, where)
        if known:
            self.linked(where, gap, prev_hash, own)
        return "late"

    def linked(self, where: Where, gap: Gap, prev_hash: Any, own: Any) -> None:
        """A late event against its neighbours already read (None: not read, or unknown)."""
        version = where.version
        assert version is not None
        before = gap.before if version == gap.first else gap.late.get(version - 1, (0, None))[1]
        if before is not None and prev_hash is not None and prev_hash != before:
            self.fault(where, "prev_hash does not match the preceding event's hash")
        after = gap.after if version == gap.end - 1 else gap.late.get(version + 1, (None,))[0]
        if after is not None and own is not None and own != after:
            self.fault(
                where,
                f"its hash is not the prev_hash of the stream's next event (v{version + 1})",
            )

    def times_of(self, where: Where, moment: Any) -> None:
        """A stream's times never go back. A time that is no aware time is named by the
        event's shape (``replay.event_shape``), not compared here."""
        if not isinstance(moment, datetime) or moment.utcoffset() is None:
            return
        last = self.times.get(where.stream)
        if last is not None and moment < last:
            self.fault(
                where,
                f"recorded at {utc(moment)}, before the stream's previous event ({utc(last)}): "
                "a stream's times never go back",
            )
        self.times[where.stream] = moment if last is None else max(moment, last)

    @staticmethod
    def gap_problem(expected: int, found: Any) -> str:
        return f"version gap: expected v{expected}, found v{found}"

    def finish(self) -> None:
        """Word each gap's fault: the first version never read, or, when all were read later
        in the log, the stream's events out of order."""
        for gaps in self.gaps.values():
            for gap in gaps:
                if not gap.late:
                    continue  # worded when found
                missing = gap.missing()
                if missing is not None:
                    problem = self.gap_problem(missing, gap.end)
                else:
                    version, (_, _, late) = min(gap.late.items())
                    problem = (
                        f"v{version} of this stream appears later in the log, at position "
                        f"{late.position}: the stream's events are out of order"
                    )
                if gap.fault is not None:
                    gap.fault.problem = problem
                else:
                    self.fault(gap.where, problem)
        self.gaps.clear()
