"""A stretch of a stream read back from its end: the events after the newest one a test holds
for, and that one (the anchor, their first link). A round's audit reads a wallet's or a
table's stream so, to the round and no further, and both weighs the stretch and checks its
hash chain from what was read once. Each event's position in the log comes with it, from the
same query (``replay.log_positions``). An event that cannot be decoded is ``StoreDamaged``
naming it (its own stream and version: ``replay.damage``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from ledger.domain.chain import event_fields, hash_matches, verify_chain
from replay import log_positions
from replay.damage import decode

PAGE = 200  # events read back at a time


@dataclass(frozen=True)
class Stretch:
    anchor: Any  # the newest event ``until`` held for; None when it held for none
    newer: list[Any]  # the events after it, oldest first
    positions: dict[int, int] = field(default_factory=dict)  # version: position in the log

    @property
    def known(self) -> int:
        """The anchor's version (0: the stretch is the stream from its first event)."""
        return 0 if self.anchor is None else self.anchor.originator_version

    @property
    def events(self) -> list[Any]:
        """The anchor and the events after it: what the chain check covers."""
        return ([self.anchor] if self.anchor is not None else []) + self.newer


def read_back(app: Any, stream: UUID, until: Callable[[Any], bool]) -> Stretch:
    """The stream's events after the newest one for which ``until`` holds, with that one,
    read a page at a time from the stream's end, so auditing a round reads what came after
    it, not the whole history of a player or a table. A stored event that cannot be decoded
    is named (``replay.damage.StoreDamaged``)."""
    newer: list[Any] = []
    positions: dict[int, int] = {}
    lte = None
    while True:
        page = log_positions.select(app.recorder, stream, lte=lte, desc=True, limit=PAGE)
        for stored in page:
            event = decode(app, stored)
            positions[stored.originator_version] = stored.id
            if until(event):
                return Stretch(event, newer[::-1], positions)
            newer.append(event)
        if len(page) < PAGE:
            return Stretch(None, newer[::-1], positions)
        lte = page[-1].originator_version - 1


def verify_stretch(events: list[Any]) -> tuple[bool, str | None]:
    """``verify_chain`` over a stretch of one stream: from its first event when that is v1,
    else taking the first event's own hash as the anchor of the rest."""
    if not events or events[0].originator_version == 1:
        return verify_chain(events)
    head = events[0]
    fields = event_fields(head)
    where = f"{head.originator_id} v{head.originator_version} {type(head).__qualname__}"
    if not hash_matches(type(head).__qualname__, fields):
        return False, f"{where}: content does not match its hash"
    return verify_chain(events[1:], prev=fields.get("hash"), version=head.originator_version + 1)
