"""The PostgreSQL adapter (``ledger/adapters/postgres_store.py``) appends a command's events with
one call of a server-side function taking four plain arrays, instead of eventsourcing's
four-statement transaction with a composite array: the rows, their order, the ids it answers
and the refusal of a duplicate version must be exactly eventsourcing's, and a database created
before the function existed is still appended to (eventsourcing's way)."""

from __future__ import annotations

from uuid import uuid4

import psycopg
import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder

from ledger.adapters.postgres_store import ArrayAppendRecorder
from ledger.application import TwentyOneLedger
from ledger.config import store_kind

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.parametrize("store_env", ["postgres"], indirect=True),
]


@pytest.fixture
def app(store_env):
    ledger = TwentyOneLedger(env=store_env)
    yield ledger
    ledger.close()


def events(oid, versions, state=b'{"x":1}'):
    return [StoredEvent(oid, v, "ledger.domain.round:Round.StakePlaced", state) for v in versions]


def test_the_ledger_on_postgresql_appends_through_the_array_recorder(app):
    assert type(app.recorder) is ArrayAppendRecorder
    library = []
    app.recorder._library_insert = lambda *a, **k: library.append(a) or pytest.fail("slow")
    a, b = uuid4(), uuid4()
    batch = events(a, [1, 2, 3]) + events(b, [1], b'{"\\u00e9\\n":"\\\\"}')
    ids = app.recorder.insert_events(batch)
    head = app.recorder.max_notification_id()
    assert ids == list(range(head - 3, head + 1))
    stored = app.recorder.select_notifications(start=ids[0], limit=10)
    rows = [(n.id, n.originator_id, n.originator_version, n.topic, n.state) for n in stored]
    assert rows == [
        (i, e.originator_id, e.originator_version, e.topic, e.state)
        for i, e in zip(ids, batch, strict=True)
    ]
    with pytest.raises(IntegrityError):
        app.recorder.insert_events(events(b, [2]) + events(a, [3]))  # a's v3 exists
    assert app.recorder.max_notification_id() == head  # nothing of the refused batch
    assert [e.originator_version for e in app.recorder.select_events(b)] == [1]
    assert app.recorder.has_append_function and library == []  # one statement each time


def test_an_unordered_append_is_one_plain_insert_with_the_same_answers(app, monkeypatch):
    """``append_unordered`` (the API's store): no table lock, no NOTIFY, no function; the
    same ids, rows and refusal of a duplicate version as the ordered append."""
    sent = []
    execute = psycopg.Cursor.execute

    def spy(self, query, params=None, **kwargs):
        sent.append(query.decode() if isinstance(query, bytes) else str(query))
        return execute(self, query, params, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", spy)
    recorder = app.recorder
    recorder.append_unordered()
    a, b = uuid4(), uuid4()
    batch = events(a, [1, 2]) + events(b, [1])
    ids = recorder.insert_events(batch)
    assert ids == [ids[0], ids[0] + 1, ids[0] + 2] and recorder.max_notification_id() == ids[2]
    stored = recorder.select_notifications(start=ids[0], limit=10)
    assert [(n.originator_id, n.originator_version, n.state) for n in stored] == [
        (e.originator_id, e.originator_version, e.state) for e in batch
    ]
    with pytest.raises(IntegrityError):
        recorder.insert_events(events(b, [2]) + events(a, [2]))  # a's v2 exists
    assert recorder.max_notification_id() == ids[2]
    assert [e.originator_version for e in recorder.select_events(b)] == [1]
    appends = [q for q in sent if "INSERT" in q]
    assert len(appends) == 2 and all(q.startswith("INSERT INTO") for q in appends)
    assert not any("LOCK" in q or "NOTIFY" in q or "ledger_append_" in q for q in sent)


def test_a_database_without_the_append_function_is_appended_to_the_librarys_way(app):
    recorder = app.recorder
    with recorder.datastore.get_connection() as conn:
        conn.execute(
            f'DROP FUNCTION "{recorder.datastore.schema}".'
            f'"ledger_append_{recorder.events_table_name}"'
        )
    a = uuid4()
    ids = recorder.insert_events(events(a, [1, 2]))
    assert recorder.has_append_function is False
    assert ids == [ids[0], ids[0] + 1] and recorder.max_notification_id() == ids[1]
    assert [e.originator_version for e in recorder.select_events(a)] == [1, 2]
    with pytest.raises(IntegrityError):
        recorder.insert_events(events(uuid4(), [1]) + events(a, [2]))
    assert recorder.max_notification_id() == ids[1]


def test_loads_read_what_eventsourcings_own_recorder_reads(app):
    """The adapter's reads (statements rendered once, rows as tuples) against the library's."""
    ours = app.recorder
    table = ours.events_table_name
    theirs = PostgresApplicationRecorder(ours.datastore, events_table_name=table)
    a = uuid4()
    ours.insert_events(events(a, range(1, 8)))
    for query in (
        {},
        {"gt": 3},
        {"lte": 5},
        {"gt": 1, "lte": 6, "desc": True},
        {"desc": True, "limit": 2},
        {"gt": 2, "limit": 3},
    ):
        assert list(ours.select_events(a, **query)) == list(theirs.select_events(a, **query))


def test_an_env_naming_eventsourcings_own_module_still_selects_postgresql(store_env):
    env = {**store_env, "PERSISTENCE_MODULE": "eventsourcing.postgres"}
    assert store_kind(env) == "postgres"
    app = TwentyOneLedger(env=env)
    try:
        assert isinstance(app.recorder, PostgresApplicationRecorder)
        assert type(app.recorder) is not ArrayAppendRecorder
    finally:
        app.close()
