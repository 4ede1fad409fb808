"""The PostgreSQL adapter (``ledger/adapters/postgres_store.py``) appends a command's events as
plain arrays instead of eventsourcing's composite array: the rows, their order, the ids it
answers and the refusal of a duplicate version must be exactly eventsourcing's."""

from __future__ import annotations

from uuid import uuid4

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


def events(oid, versions, state=b'{"x":1}'):
    return [StoredEvent(oid, v, "ledger.domain.round:Round.StakePlaced", state) for v in versions]


def test_the_ledger_on_postgresql_appends_through_the_array_recorder(store_env):
    app = TwentyOneLedger(env=store_env)
    try:
        assert type(app.recorder) is ArrayAppendRecorder
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
    finally:
        app.close()


def test_an_env_naming_eventsourcings_own_module_still_selects_postgresql(store_env):
    env = {**store_env, "PERSISTENCE_MODULE": "eventsourcing.postgres"}
    assert store_kind(env) == "postgres"
    app = TwentyOneLedger(env=env)
    try:
        assert isinstance(app.recorder, PostgresApplicationRecorder)
        assert type(app.recorder) is not ArrayAppendRecorder
    finally:
        app.close()
