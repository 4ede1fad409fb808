"""The indexed in-memory recorder answers stream reads exactly as eventsourcing's does."""

from itertools import product
from uuid import uuid4

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.popo import POPOApplicationRecorder

from ledger.memory_store import IndexedPOPOApplicationRecorder


@pytest.fixture
def recorders():
    plain, indexed = POPOApplicationRecorder(), IndexedPOPOApplicationRecorder()
    streams = [uuid4(), uuid4()]
    for version in range(1, 31):
        for stream in streams:
            event = StoredEvent(stream, version, "topic", b"{}")
            plain.insert_events([event])
            indexed.insert_events([event])
    return plain, indexed, streams


@pytest.mark.parametrize(
    ("gt", "lte", "desc", "limit"),
    list(product([None, 0, 5, 29, 30], [None, 1, 10, 30, 40], [False, True], [None, 1, 3])),
)
def test_indexed_reads_equal_plain_reads(recorders, gt, lte, desc, limit):
    plain, indexed, streams = recorders
    for stream in streams:
        expected = plain.select_events(stream, gt=gt, lte=lte, desc=desc, limit=limit)

        assert indexed.select_events(stream, gt=gt, lte=lte, desc=desc, limit=limit) == expected


def test_an_unknown_stream_is_empty(recorders):
    assert recorders[1].select_events(uuid4()) == []


def test_inserts_number_and_refuse_as_plain_inserts(recorders):
    plain, indexed, streams = recorders
    fresh = uuid4()
    batch = [StoredEvent(fresh, 1, "t", b"{}"), StoredEvent(streams[0], 31, "t", b"{}")]
    assert indexed.insert_events(batch) == plain.insert_events(batch) == [61, 62]
    for refused in (
        [StoredEvent(streams[1], 30, "t", b"{}")],  # already recorded
        [StoredEvent(fresh, 2, "t", b"{}"), StoredEvent(fresh, 2, "t", b"x")],  # twice in one
        [StoredEvent(fresh, 2, "t", b"{}"), StoredEvent(str(fresh), 2, "t", b"{}")],
    ):
        with pytest.raises(IntegrityError):
            indexed.insert_events(refused)
    assert indexed.select_notifications(1, 100) == plain.select_notifications(1, 100)
    assert indexed.select_events(fresh) == plain.select_events(fresh)
