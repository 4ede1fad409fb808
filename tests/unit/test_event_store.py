"""The ledger's event store and mapper make exactly the records eventsourcing's own make."""

from uuid import uuid4

import pytest
from eventsourcing.compressor import ZlibCompressor
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import DatetimeAsISO, EventStore, Mapper, StoredEvent, UUIDAsHex
from eventsourcing.popo import POPOAggregateRecorder, POPOApplicationRecorder

from ledger.application import TwentyOneLedger
from ledger.config import store_env
from ledger.event_store import LedgerEventStore, LedgerMapper
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


def transcoder() -> OrjsonTranscoder:
    transcoder = OrjsonTranscoder()
    transcoder.register(UUIDAsHex())
    transcoder.register(DatetimeAsISO())
    return transcoder


def mapper() -> Mapper:
    return Mapper(transcoder=transcoder())


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


class Puppy(Aggregate):
    class Grew(Aggregate.Event):
        class_version = 2
        inches: int

    def grow(self) -> None:
        self.trigger_event(self.Grew, inches=3)


@pytest.mark.parametrize("compressor", [None, ZlibCompressor()])
def test_stored_events_equal_the_librarys(compressor):
    puppy = Puppy()
    puppy.grow()
    batch = [*events(), *puppy.collect_events()]
    ours = LedgerMapper(transcoder(), compressor=compressor)
    theirs = Mapper(transcoder(), compressor=compressor)
    stored = [ours.to_stored_event(e) for e in batch]
    assert stored == [theirs.to_stored_event(e) for e in batch]
    assert {type(s) for s in stored} == {StoredEvent}
    assert b'"class_version":2' in zlib_or_plain(stored[-1].state, compressor)
    assert [ours.to_domain_event(s) for s in stored] == batch


def zlib_or_plain(state: bytes, compressor) -> bytes:
    return compressor.decompress(state) if compressor else state


def test_the_application_maps_with_it_unless_told_otherwise():
    app = TwentyOneLedger(env=store_env("memory", environ={}))
    other = TwentyOneLedger(
        env={**store_env("memory", environ={}), "MAPPER_TOPIC": "eventsourcing.persistence:Mapper"}
    )
    assert type(app.mapper) is LedgerMapper and type(app.events) is LedgerEventStore
    assert type(other.mapper) is Mapper
