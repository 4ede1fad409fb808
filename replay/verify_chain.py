"""``replay verify``: each stream's hash chain, as the log is read.

Every stream's versions run 1, 2, 3 … without gaps, each event's ``prev_hash`` is its
predecessor's ``hash`` and its ``hash`` is the SHA-256 of its own canonical content
(``ledger.domain.chain``, the rule ``verify_chain`` applies to one stream), and a stream's
recorded times never go back.
"""

from __future__ import annotations

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

    def __len__(self) -> int:
        """How many streams were read."""
        return len(self.links)

    def last_hash(self, stream: str) -> str | None:
        """The hash of the stream's last event read (None when it could not be decoded)."""
        return self.links[stream][0]

    def undecodable(self, stream: str, version: int) -> None:
        """An event that cannot be decoded: its hash is unknown, and the chain goes on after."""
        self.links[stream] = (None, version + 1)

    def check(self, where: Where, event: Any) -> bool:
        """Check the event's place in its stream's chain; whether its content fits its hash."""
        fields = event_fields(event)
        prev, expected = self.links.get(where.stream, (GENESIS, 1))
        if where.version != expected:
            self.fault(where, f"version gap: expected v{expected}, found v{where.version}")
        elif prev is not None and fields.get("prev_hash") != prev:
            self.fault(where, "prev_hash does not match the preceding event's hash")
        intact = "hash" in fields and hash_matches(where.type, fields)
        if "hash" not in fields:
            self.fault(where, "the event carries no hash")
        elif not intact:
            self.fault(where, "content does not match its hash (the event was altered)")
        moment = fields.get("timestamp")
        last = self.times.get(where.stream)
        if last is not None and moment is not None and moment < last:
            self.fault(
                where,
                f"recorded at {utc(moment)}, before the stream's previous event ({utc(last)}): "
                "a stream's times never go back",
            )
        self.times[where.stream] = moment if last is None or moment is None else max(moment, last)
        self.links[where.stream] = (fields.get("hash"), where.version + 1)
        return intact
