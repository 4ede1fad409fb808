"""The indexed in-memory recorder answers stream reads exactly as eventsourcing's does."""

from itertools import product
from uuid import uuid4

import pytest
from eventsourcing.persistence import StoredEvent
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
