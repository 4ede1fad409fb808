"""``--workers``: the simulator over several processes. Its figures must be exactly those of
its shares played one by one, a seeded run must repeat, every event must be counted once
(also when the workers share one store), and a worker's refusal must reach the caller."""

from __future__ import annotations

import io
import json

import pytest

from ledger.application import TwentyOneLedger
from ledger.cli import main
from ledger.config import store_env
from ledger.errors import InvalidRules
from ledger.simulate import Settings, play_rounds, setup_table
from ledger.simulate_parallel import run_parallel, share_seed, shares
from ledger.simulate_tally import Tally, report

TIMINGS = {"seconds", "rounds_per_second", "events_per_second", "table_ids"}  # not figures
MEMORY = store_env("memory", environ={})


def _figures(result: dict) -> dict:
    return {k: v for k, v in result.items() if k not in TIMINGS}


def test_the_rounds_are_shared_out_evenly_each_share_with_a_seed_of_its_own():
    parts = shares(Settings(rounds=10, seed=7, workers=3))

    assert [p.rounds for p in parts] == [4, 3, 3]
    assert {p.workers for p in parts} == {1}
    assert len({p.seed for p in parts}) == 3 and 7 not in {p.seed for p in parts}
    assert [p.seed for p in parts] == [share_seed(7, i) for i in range(3)]
    assert share_seed(8, 0) != share_seed(7, 0) and share_seed(None, 0) is None
    assert [p.rounds for p in shares(Settings(rounds=2, workers=5))] == [1, 1]


@pytest.mark.parametrize("family", ["casino", "ochko"])
def test_the_figures_are_those_of_the_shares_played_one_after_another(family):
    settings = Settings(family=family, rounds=50, seed=4, players=2, workers=2, one_command=True)

    together = run_parallel(settings, MEMORY)

    tally, events = Tally(), 0
    for part in shares(settings):
        app = TwentyOneLedger(env=MEMORY)
        try:
            table, view = setup_table(part, app)
            played, written = play_rounds(app, table, view, part)
        finally:
            app.close()
        tally.add(played)
        events += written
    assert _figures(together) == _figures(report(tally, 1.0, events))
    assert together["rounds"] == 50 and together["initial_hands"] == 100
    assert together["events"] > 50 * 10


def test_the_same_seed_and_workers_give_the_same_figures_and_another_seed_others():
    def figures(seed):
        return _figures(run_parallel(Settings(rounds=30, seed=seed, workers=2), MEMORY))

    assert figures(9) == figures(9)
    assert figures(9) != figures(10)


def test_workers_sharing_one_store_count_every_event_once(tmp_path):
    """On SQLite the workers write to one file: the events each reports are its own, so the
    run's count is what the rounds added to the file, less each table's setting up."""
    env = store_env("sqlite", sqlite_path=str(tmp_path / "run.sqlite3"), environ={})
    settings = Settings(rounds=20, seed=2, workers=2, one_command=True)

    result = run_parallel(settings, env)

    app = TwentyOneLedger(env=env)
    try:
        stored = app.recorder.max_notification_id()
    finally:
        app.close()
    one_setup = TwentyOneLedger(env=MEMORY)
    try:
        setup_table(Settings(rounds=1), one_setup)
        per_table = one_setup.events_written
    finally:
        one_setup.close()
    assert result["rounds"] == 20
    assert per_table > 0 and stored == result["events"] + 2 * per_table


def test_a_refusal_in_a_worker_reaches_the_caller():
    with pytest.raises(InvalidRules, match="decks"):
        run_parallel(Settings(rounds=4, decks=0, workers=2), MEMORY)


def test_simulate_takes_workers_and_says_so_in_its_settings():
    out, err = io.StringIO(), io.StringIO()

    assert main(["simulate", "--rounds", "12", "--seed", "3", "--workers", "2"], out, err) == 0

    result = json.loads(out.getvalue())
    assert err.getvalue() == ""
    assert result["rounds"] == 12 and result["settings"]["workers"] == 2
    assert len(set(result["table_ids"])) == 2  # one table a worker, each its own
    again = io.StringIO()
    main(["simulate", "--rounds", "12", "--seed", "3", "--workers", "2"], again, io.StringIO())
    assert _figures(json.loads(again.getvalue())) == _figures(result)


def test_simulate_refuses_more_workers_than_it_allows(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["simulate", "--workers", "65"])

    assert exited.value.code == 2
    assert "--workers: at most 64" in capsys.readouterr().err


def test_each_worker_keeps_few_postgresql_connections_unless_told_otherwise():
    """A worker plays in one thread: on PostgreSQL its two applications keep one connection
    each (eventsourcing's 5 + 10 apiece took a server's 100 connections from 8 workers on);
    a pool size the run was given is kept, and other stores are left as they are."""
    from ledger.simulate_parallel import worker_env

    postgres = store_env("postgres", environ={"POSTGRES_HOST": "127.0.0.1"})
    assert "POSTGRES_POOL_SIZE" not in postgres
    assert worker_env(postgres) == {
        **postgres,
        "POSTGRES_POOL_SIZE": "1",
        "POSTGRES_MAX_OVERFLOW": "1",
    }
    given = store_env("postgres", environ={"POSTGRES_POOL_SIZE": "3"})
    assert worker_env(given)["POSTGRES_POOL_SIZE"] == "3"
    assert worker_env(given)["POSTGRES_MAX_OVERFLOW"] == "1"
    assert worker_env(MEMORY) == MEMORY


def test_simulate_runs_no_more_workers_than_rounds_and_says_how_many_ran():
    out = io.StringIO()

    assert main(["simulate", "--rounds", "2", "--seed", "4", "--workers", "3"], out) == 0

    result = json.loads(out.getvalue())
    assert result["settings"]["workers"] == 2 and len(result["table_ids"]) == 2
