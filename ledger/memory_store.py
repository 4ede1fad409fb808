"""The in-memory store, with stream reads that do not grow with a stream's length.

eventsourcing's POPO recorder filters a stream by walking every version it holds, so loading
a long-lived aggregate from its latest snapshot costs time in proportion to its whole
history. Event versions of one stream are contiguous, so the wanted ones can be looked up
directly. Its inserts turn each event's originator id into text twice (the index's key),
about a thirtieth of a simulated round; here once per aggregate saved.
Selected with ``PERSISTENCE_MODULE=ledger.memory_store`` (``LEDGER_STORE=memory``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing import popo
from eventsourcing.persistence import ApplicationRecorder, IntegrityError, StoredEvent

# eventsourcing finds the factory as the one factory class in this module's namespace, so
# the base is reached through its module rather than imported by name.


class IndexedPOPOApplicationRecorder(popo.POPOApplicationRecorder):
    def _insert_events(self, stored_events: Sequence[StoredEvent], **_: Any) -> Sequence[int]:
        """eventsourcing 9.5's ``_assert_uniqueness`` then ``_update_table`` (the same checks,
        errors and rows), with each event's index key made once. Its duplicate check pairs the
        id as given with the version; here the key, which is what the index holds."""
        with self._database_lock:
            # A save's events of one aggregate share its id object (alive while the events
            # are): told by identity, each id is made into text once.
            texts: dict[int, str] = {}
            keys = []
            for s in stored_events:
                key = texts.get(id(s.originator_id))
                if key is None:
                    key = texts[id(s.originator_id)] = str(s.originator_id)
                keys.append(key)
            index = self._stored_events_index
            for s, key in zip(stored_events, keys, strict=True):
                if s.originator_version in index[key]:
                    raise IntegrityError(f"Stored event already recorded: {s}")
            if len(set(zip(keys, (s.originator_version for s in stored_events)))) < len(keys):
                raise IntegrityError(f"Stored events are not unique: {stored_events}")
            rows = self._stored_events
            ids = []
            for s, key in zip(stored_events, keys, strict=True):
                rows.append(s)
                index[key][s.originator_version] = len(rows) - 1
                ids.append(len(rows))
            return ids

    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        with self._database_lock:
            index = self._stored_events_index[str(originator_id)]
            if not index:
                return []
            first, last = next(iter(index)), next(reversed(index))
            low = first if gt is None else max(first, gt + 1)
            high = last if lte is None else min(last, lte)
            versions: Any = range(high, low - 1, -1) if desc else range(low, high + 1)
            if limit is not None:
                versions = versions[:limit]
            return [self._stored_events[index[v]] for v in versions]


class Factory(popo.POPOFactory):
    def application_recorder(self) -> ApplicationRecorder:
        return IndexedPOPOApplicationRecorder()
