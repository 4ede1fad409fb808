"""Which aggregates make up a table: itself, its rounds and its shoes, as its stream names
them. A feed page needs them all, and feeds are polled every half second; a table's stream
only grows, so each process remembers what it has read and reads only the table's newer
events, and a page costs the same on a table of any age."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID


@dataclass
class Members:
    version: int = 0  # the table's version read up to
    streams: set[str] = field(default_factory=set)  # the table's, its rounds' and shoes' ids
    rounds: set[UUID] = field(default_factory=set)

    def read(self, event: Any) -> None:
        name = type(event).__name__
        if name == "RoundOpened":
            self.rounds.add(event.round_id)
            self.streams.add(str(event.round_id))
        elif name == "ShoeChanged":
            self.streams.add(str(event.shoe_id))
        elif name == "CutForDeal":
            self.streams.add(str(event.shoe))


class TableMembers:
    """Per process, the most recently read tables' members, at most ``max_streams`` stream
    ids in all (about 100 bytes each) beside the table read last, which is always kept.
    Readers only test membership, so the sets grow in place (under the lock) and are never
    replaced; the store is read outside the lock, so a long table's first read holds up
    no other."""

    def __init__(self, max_streams: int = 100_000) -> None:
        self.max_streams = max_streams
        self._known: OrderedDict[UUID, Members] = OrderedDict()
        self._total = 0  # stream ids held, all tables
        self._lock = threading.Lock()

    def of(self, ledger: Any, table: Any) -> Members:
        """The members of ``table`` (an aggregate as loaded), at least as of its version."""
        with self._lock:
            members = self._known.pop(table.id, None)
            if members is None:
                members = Members(streams={str(table.id)})
                self._total += 1
            self._known[table.id] = members  # the most recent last
            start = members.version
        if start < table.version:
            newer = list(ledger.events.get(table.id, gt=start, lte=table.version))
            with self._lock:
                held = len(members.streams)
                for event in newer:
                    if event.originator_version > members.version:
                        members.read(event)
                        members.version = event.originator_version
                self._total += len(members.streams) - held
                self._forget_oldest()
        return members

    def _forget_oldest(self) -> None:
        while self._total > self.max_streams and len(self._known) > 1:
            _, oldest = self._known.popitem(last=False)
            self._total -= len(oldest.streams)
