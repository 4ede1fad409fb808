"""eventsourcing's event store, returning the same recordings for less: a save makes one
``Notification`` and one ``Recording`` per event, and their frozen dataclass constructors
(a Python call setting each field through ``object.__setattr__``) were about a twentieth of
a simulated round."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.application import Recording
from eventsourcing.persistence import EventStore, Notification

_new = object.__new__


class LedgerEventStore(EventStore):
    def put(self, domain_events: Sequence[Any], **kwargs: Any) -> list[Recording]:
        """eventsourcing 9.5's ``put``: map, insert, and pair each event with its notification
        when the recorder numbers them. The records are the same frozen dataclasses, their
        fields written straight into their ``__dict__`` (a frozen dataclass without slots
        keeps its fields there; tests/unit/test_event_store.py compares them with the
        library's)."""
        stored_events = list(map(self.mapper.to_stored_event, domain_events))
        notification_ids = self.recorder.insert_events(stored_events, **kwargs)
        if not notification_ids:
            return []
        if len(notification_ids) != len(stored_events):  # the library asserts this
            raise AssertionError(f"{len(stored_events)} events, {len(notification_ids)} ids")
        recordings = []
        for event, stored, notification_id in zip(
            domain_events, stored_events, notification_ids, strict=True
        ):
            notification = _new(Notification)
            vars(notification).update(vars(stored), id=notification_id)
            recording = _new(Recording)
            vars(recording).update(domain_event=event, notification=notification)
            recordings.append(recording)
        return recordings
