"""Several processes opening a new database at once (an API server and a projector worker
started together) must all start: eventsourcing's table creation collides in PostgreSQL's
catalogue when raced, and the ledger tries again (ledger/startup.py)."""

import threading

import pytest
from eventsourcing.persistence import IntegrityError, OperationalError

from api.store import ApiStore
from ledger.application import TwentyOneLedger
from ledger.startup import retrying_creation


def test_a_failed_creation_is_tried_again_until_it_succeeds():
    calls = []

    def construct():
        calls.append(1)
        if len(calls) < 3:
            raise IntegrityError("duplicate key value violates unique constraint")
        return "recorder"

    assert retrying_creation(construct) == "recorder"
    assert len(calls) == 3


def test_a_creation_that_keeps_failing_raises_in_the_end():
    def construct():
        raise IntegrityError("duplicate key value violates unique constraint")

    with pytest.raises(IntegrityError, match="duplicate"):
        retrying_creation(construct)


def test_a_server_that_cannot_be_reached_is_not_tried_again():
    """Each try waits a whole connection timeout: ten of them kept a start silent for
    minutes (reviewer's finding)."""
    calls = []

    def construct():
        calls.append(1)
        raise OperationalError("couldn't get a connection after 30.00 sec")

    with pytest.raises(OperationalError):
        retrying_creation(construct)
    assert len(calls) == 1


@pytest.mark.parametrize("store_env", ["postgres"], indirect=True)
def test_applications_started_together_on_a_new_schema_all_start(store_env):
    started, failed = [], []
    barrier = threading.Barrier(6)

    def start(kind):
        barrier.wait()
        try:
            started.append(kind(env=dict(store_env)))
        except Exception as error:  # the test reports every failure, not the first
            failed.append(repr(error))

    threads = [
        threading.Thread(target=start, args=(kind,))
        for kind in (
            TwentyOneLedger,
            TwentyOneLedger,
            TwentyOneLedger,
            ApiStore,
            ApiStore,
            ApiStore,
        )
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert failed == []
        assert len(started) == 6
        ledger = next(app for app in started if isinstance(app, TwentyOneLedger))
        assert ledger.register_player("Ann")["player_id"]
    finally:
        for app in started:
            app.close()
