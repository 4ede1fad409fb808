"""The stores answer through eventsourcing with the env the fixtures build.

The PostgreSQL case is skipped when the server is down on a developer's machine and fails when
CI=true (see tests/conftest.py).
"""

import pytest
from eventsourcing.application import Application
from postgres_schemas import postgres_connect


class Probe(Application):
    name = "Probe"


@pytest.mark.postgres
@pytest.mark.parametrize("store_env", ["postgres"], indirect=True)
def test_postgres_answers_in_the_tests_own_schema(store_env):
    app = Probe(env=store_env)
    try:
        assert app.recorder.max_notification_id() in (None, 0)
    finally:
        app.close()

    schema = store_env["POSTGRES_SCHEMA"]
    with postgres_connect() as conn:
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
            (schema,),
        ).fetchall()
    assert ("probe_events",) in tables


def test_every_store_opens_empty(store_env):
    app = Probe(env=store_env)
    try:
        assert app.recorder.max_notification_id() in (None, 0)
        assert app.env.get("LEDGER_ALLOW_FIXED_SHOES") == "true"
    finally:
        app.close()
