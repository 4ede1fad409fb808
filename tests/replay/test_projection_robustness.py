"""What a projector survives: a failed batch while another thread waits to fold, a failed
read on its PostgreSQL connection, and a worker told to stop in the middle of a backlog."""

import threading

import psycopg
import pytest
from test_projection_exactly_once import DiskFull, app, play_some  # noqa: F401
from test_projections import rebuilt, snapshot

from replay.projections import open_projections, open_views


def test_a_thread_waiting_while_a_batch_fails_does_not_reuse_what_the_batch_left(
    app,  # noqa: F811
    store_env,
    monkeypatch,
):
    play_some(app)
    proj = open_projections(app, store_env, batch=40)
    proj.catch_up(until=100)
    trail = proj.projectors[-1]  # the last to flush: the others' rows are already cached
    original = trail.flush
    waiting: list[threading.Thread] = []
    errors: list[BaseException] = []

    def other_request():
        try:
            proj.catch_up()
        except BaseException as error:  # reported below, not lost in the thread
            errors.append(error)

    def failing_flush():
        original()
        monkeypatch.setattr(trail, "flush", original)
        # Another request of this process asks to fold now; it must wait for this batch's
        # failure to be cleaned up, then start again from what was committed.
        thread = threading.Thread(target=other_request)
        thread.start()
        waiting.append(thread)
        raise DiskFull("no space left while writing the audit trail")

    monkeypatch.setattr(trail, "flush", failing_flush)
    with pytest.raises(DiskFull):
        proj.catch_up()
    waiting[0].join(30)
    assert errors == []
    assert proj.catch_up() == proj.head()
    assert snapshot(proj) == rebuilt(app, store_env)
    proj.close()


@pytest.mark.parametrize("store_env", ["postgres"], indirect=True)
def test_a_failed_read_leaves_the_connection_usable(store_env):
    views = open_views(store_env)
    try:
        with pytest.raises(psycopg.errors.UndefinedTable, match="no_such_table"):
            views.read("SELECT * FROM no_such_table")
        assert views.read("SELECT 1") == [(1,)]
    finally:
        views.close()


@pytest.mark.parametrize("store_env", ["postgres"], indirect=True)
def test_a_connection_the_server_dropped_is_opened_again(store_env):
    views = open_views(store_env)
    try:
        pid = views.read("SELECT pg_backend_pid()")[0][0]
        with _admin() as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(psycopg.OperationalError):
            views.read("SELECT 1")  # the first use finds it gone
        assert views.read("SELECT 1") == [(1,)]
    finally:
        views.close()


def _admin():
    from tests.conftest import postgres_connect

    return postgres_connect()


@pytest.mark.parametrize("store_env", ["memory", "sqlite"], indirect=True)
def test_a_catch_up_told_to_stop_ends_after_the_batch_it_is_folding(app, store_env):  # noqa: F811
    play_some(app)
    proj = open_projections(app, store_env, batch=25)
    batches = []
    reached = proj.catch_up(progress=lambda *_: batches.append(1), stop=lambda: len(batches) >= 2)
    assert len(batches) == 2
    assert reached == proj.position() == 50 < proj.head()
    assert proj.catch_up() == proj.head()
    proj.close()
