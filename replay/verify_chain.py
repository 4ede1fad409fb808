"""``replay verify``: each stream's hash chain, as the log is read.

Every stream's versions run 1, 2, 3 … without gaps, each event's ``prev_hash`` is its
predecessor's ``hash`` and its ``hash`` is the SHA-256 of its own canonical content
(``ledger.domain.chain``, the rule ``verify_chain`` applies to one stream), and a stream's
recorded times never go back.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ledger.domain.chain import GENESIS, event_fields, hash_matches
from replay.audit_events import utc
from replay.verify_report import OnFault, Where


class Chains:
    """Fed every event of the one pass (``check``); ``fault(where, problem)`` is called for
    each break in its stream's chain."""

    def __init__(self, fault: OnFault) -> None:
        self.fault = fault
        self.links: dict[str, tuple[str | None, int]] = {}  # (last hash, next version)
        self.times: dict[str, Any] = {}  # each stream's latest event time so far
        self.own_hash: str | None = None  # the stored hash of the event last checked

    def __len__(self) -> int:
        """How many streams were read."""
        return len(self.links)

    def last_hash(self, stream: str) -> str | None:
        """The hash of the stream's last event read (None when it could not be decoded)."""
        return self.links[stream][0]

    def undecodable(self, where: Where) -> None:
        """An event that cannot be decoded (or whose row cannot be read): its hash is
        unknown, and the chain goes on after it (after any version, when its own is not one)."""
        self.own_hash = None
        self.links[where.stream] = (None, None if where.version is None else where.version + 1)

    def check(self, where: Where, event: Any) -> bool:
        """Check the event's place in its stream's chain; whether its content fits its hash."""
        fields = event_fields(event)
        own = fields.get("hash")
        self.own_hash = own if isinstance(own, str) else None
        prev, expected = self.links.get(where.stream, (GENESIS, 1))
        if expected is not None and where.version != expected:
            self.fault(where, f"version gap: expected v{expected}, found v{where.version}")
        elif prev is not None and fields.get("prev_hash") != prev:
            self.fault(where, "prev_hash does not match the preceding event's hash")
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
        self.times_of(where, fields.get("timestamp"))
        self.links[where.stream] = (own, where.version + 1)
        return intact

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
