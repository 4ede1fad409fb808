"""The ledger's event store returns exactly the recordings eventsourcing's own returns."""

from uuid import uuid4

import pytest
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import DatetimeAsISO, EventStore, Mapper, UUIDAsHex
from eventsourcing.popo import POPOAggregateRecorder, POPOApplicationRecorder

from ledger.event_store import LedgerEventStore
from ledger.transcoder import OrjsonTranscoder


class Dog(Aggregate):
    def __init__(self, name: str) -> None:
        self.name = name

    @event("Barked")
    def bark(self, at: str) -> None:
        pass


def events() -> list:
    dog = Dog("Rex")
    dog.bark(at="the postman")
    dog.bark(at=str(uuid4()))
    cat = Dog("Tom")
    return [*dog.collect_events(), *cat.collect_events()]


def mapper() -> Mapper:
    transcoder = OrjsonTranscoder()
    transcoder.register(UUIDAsHex())
    transcoder.register(DatetimeAsISO())
    return Mapper(transcoder=transcoder)


def test_recordings_equal_the_librarys_field_for_field():
    batch = events()
    ours = LedgerEventStore(mapper(), POPOApplicationRecorder()).put(batch)
    theirs = EventStore(mapper(), POPOApplicationRecorder()).put(batch)
    assert [type(r) for r in ours] == [type(r) for r in theirs]
    assert [type(r.notification) for r in ours] == [type(r.notification) for r in theirs]
    assert ours == theirs and [r.notification.id for r in ours] == [1, 2, 3, 4]
    assert [r.domain_event for r in ours] == batch
    assert {r.notification for r in ours} == {r.notification for r in theirs}  # hash alike
    assert repr(ours[0]) == repr(theirs[0])
    with pytest.raises(AttributeError):  # still frozen
        ours[0].notification.id = 9


def test_a_recorder_that_numbers_nothing_gives_no_recordings():
    assert LedgerEventStore(mapper(), POPOAggregateRecorder()).put(events()) == []
