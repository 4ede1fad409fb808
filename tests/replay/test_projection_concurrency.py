"""Several projectors on one database (an API process and a worker, two workers) and the reads
that must see a write: each event is folded once whoever folds it, and ``ensure`` waits for,
or does, the folding a read needs."""

from __future__ import annotations

import threading
import time

import orjson
import pytest
from test_projections import event_log, play_history, play_simulations, rebuilt, snapshot

from ledger.application import TwentyOneLedger
from ledger.balances import transfers
from replay.projections import ProjectionBusy, ProjectionLag, open_projections


def entries(lines: str) -> list[dict]:
    return [orjson.loads(line) for line in lines.split("\n") if line]


SHARED = ["sqlite", "postgres"]  # in memory, each Projections has a database of its own


class Worker(threading.Thread):
    """A projector as in a process of its own (its own application and connection), folding
    until ``stop`` is set and it has reached the head; keeps any error for the test."""

    def __init__(self, env: dict, batch: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        # Opened here, one after the other: eventsourcing's PostgreSQL recorder cannot create
        # its tables from two connections at once ("tuple concurrently updated").
        self.app = TwentyOneLedger(env=env)
        self.proj = open_projections(self.app, env, batch=batch)
        self.stop = stop
        self.error: BaseException | None = None
        self.batches = 0

    def run(self) -> None:
        proj = self.proj
        try:
            while True:
                done = self.stop.is_set()
                try:
                    proj.catch_up(lock_timeout=0.05, progress=self.count)
                except ProjectionBusy:
                    continue
                if done and proj.position() >= proj.head():
                    return
                time.sleep(0.001)
        except BaseException as error:  # noqa: BLE001 - reported by the test
            self.error = error
        finally:
            proj.close()
            self.app.close()

    def count(self, position: int, head: int, folded: int) -> None:
        self.batches += folded > 0


@pytest.mark.parametrize("store_env", SHARED, indirect=True)
def test_two_projectors_folding_at_once_write_each_row_once(store_env):
    app = TwentyOneLedger(env=store_env)
    stop = threading.Event()
    workers = [Worker(store_env, 11, stop), Worker(store_env, 5, stop)]
    try:
        for worker in workers:
            worker.start()
        play_history(app)  # commands keep coming while both fold
        stop.set()
        for worker in workers:
            worker.join(timeout=60)
        for worker in workers:
            assert not worker.is_alive()
            assert worker.error is None, repr(worker.error)
        assert all(w.batches for w in workers), "both projectors folded events"

        proj = open_projections(app, store_env)
        try:
            assert set(proj.positions().values()) == {proj.head()}
            built = snapshot(proj)
            counted = proj.views.read("SELECT SUM(movements) FROM view_accounts")[0][0]
        finally:
            proj.close()
        assert len(built["view_movements"]) == 2 * len(transfers(app)) == counted
        assert len({(m[0], m[1]) for m in built["view_movements"]}) == len(built["view_movements"])
        # No entry twice: every position in the trails appears once (a transfer has one round).
        trail = [e["position"] for row in built["view_audit_trail"] for e in entries(row[3])]
        assert len(set(trail)) == len(trail) == sum(row[1] for row in built["view_audit_trail"])
        assert built == rebuilt(app, store_env)
    finally:
        stop.set()
        app.close()


@pytest.fixture
def played(store_env):
    app = TwentyOneLedger(env=store_env)
    try:
        play_simulations(app, rounds=1)
        yield app
    finally:
        app.close()


def test_ensure_without_anyone_projecting_raises_ProjectionLag_naming_the_positions(
    played, store_env
):
    proj = open_projections(played, store_env)
    try:
        head = proj.head()
        started = time.monotonic()
        with pytest.raises(ProjectionLag) as lag:
            proj.ensure(head, timeout=0.2, inline=False)
        assert time.monotonic() - started >= 0.2
        assert (lag.value.wanted, lag.value.reached) == (head, 0)
        assert lag.value.waited >= 0.2
        assert f"reached position 0, not the requested {head}" in str(lag.value)
        assert proj.position() == 0, "a read that may not fold leaves the folding to others"
    finally:
        proj.close()


@pytest.mark.parametrize("store_env", SHARED, indirect=True)
def test_ensure_returns_once_another_projector_has_caught_up(played, store_env, monkeypatch):
    reader = open_projections(played, store_env)
    other_app = TwentyOneLedger(env=store_env)
    worker = open_projections(other_app, store_env)
    head = reader.head()

    def no_folding(*args, **kwargs):
        raise AssertionError("ensure(inline=False) must not fold")

    monkeypatch.setattr(reader, "catch_up", no_folding)
    later = threading.Timer(0.3, worker.catch_up)
    try:
        assert reader.position() == 0
        later.start()
        started = time.monotonic()
        assert reader.ensure(head, timeout=20, inline=False) >= head
        assert time.monotonic() - started >= 0.2
        assert reader.ensure(head, timeout=0, inline=False) >= head  # already there: no wait
    finally:
        later.join()
        reader.close()
        worker.close()
        other_app.close()


def test_an_inline_ensure_folds_what_the_read_needs_by_itself(played, store_env):
    proj = open_projections(played, store_env)
    try:
        head = proj.head()
        assert proj.ensure(head // 2, timeout=5) >= head // 2
        assert proj.position() < head, "folds up to the position asked for, not beyond"
        play_simulations(played, rounds=1, seed=40)
        assert proj.ensure(None, timeout=5) == proj.head() == len(event_log(played))
    finally:
        proj.close()
