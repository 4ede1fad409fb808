"""Exactly once: a batch's rows and the position read commit together, so a crash loses the
whole batch, a restart resumes after the last commit, and however the folding is cut up
(small batches, catch-ups between commands, one projection rebuilt alone) the rows are those
of one rebuild from scratch."""

from __future__ import annotations

import pytest
from replay_history import play_fixed_casino
from test_projections import (
    event_log,
    fund,
    play_hoyle_natural,
    play_simulations,
    play_vingt_un_pool,
    rebuilt,
    snapshot,
)

from ledger.application import TwentyOneLedger
from ledger.simulate import Settings, run
from replay.projections import open_projections
from replay.projections import queries as q


class DiskFull(Exception):
    pass


def play_some(app: TwentyOneLedger) -> None:
    """A round of each family and a Vingt-un table with a pool: about 300 events."""
    play_simulations(app, rounds=1)
    play_vingt_un_pool(app)


@pytest.fixture
def app(store_env):
    application = TwentyOneLedger(env=store_env)
    yield application
    application.close()


def fail_on_call(projector, monkeypatch, nth: int) -> None:
    """The projector's ``flush`` writes its rows as usual, then raises on its ``nth`` call."""
    original, calls = projector.flush, []

    def flush() -> None:
        calls.append(1)
        original()
        if len(calls) == nth:
            raise DiskFull("no space left on device")

    monkeypatch.setattr(projector, "flush", flush)


def test_a_batch_that_fails_while_flushing_leaves_no_row_and_no_new_position(
    app, store_env, monkeypatch
):
    play_some(app)
    proj = open_projections(app, store_env, batch=40)
    try:
        proj.catch_up(until=100)
        before, where = snapshot(proj), proj.positions()
        assert set(where.values()) == {100}
        # The bankroll's rows are flushed into the transaction before history's flush fails.
        bankroll, history = proj.projectors[0], proj.projectors[1]
        assert (bankroll.name, history.name) == ("bankroll", "history")
        fail_on_call(history, monkeypatch, nth=1)
        with pytest.raises(DiskFull):
            proj.catch_up()
        assert proj.positions() == where
        assert snapshot(proj) == before

        monkeypatch.undo()  # the disk has room again: the same object folds on
        assert proj.catch_up() == proj.head()
        assert snapshot(proj) == rebuilt(app, store_env)
    finally:
        proj.close()


def test_a_crash_in_a_later_batch_keeps_the_batches_committed_before_it(
    app, store_env, monkeypatch
):
    play_some(app)
    batch = 25
    proj = open_projections(app, store_env, batch=batch)
    try:
        fail_on_call(proj.projectors[2], monkeypatch, nth=3)  # the audit trail, third batch
        with pytest.raises(DiskFull):
            proj.catch_up()
        first_two = app.recorder.select_notifications(start=1, limit=2 * batch)
        assert set(proj.positions().values()) == {first_two[-1].id}
        trail = proj.views.read("SELECT MAX(position) FROM view_audit_trail")[0][0]
        assert trail <= first_two[-1].id
        monkeypatch.undo()
        proj.catch_up()
        assert snapshot(proj) == rebuilt(app, store_env)
    finally:
        proj.close()


def test_catching_up_in_small_steps_between_commands_gives_the_rows_of_one_rebuild(app, store_env):
    proj = open_projections(app, store_env, batch=7)
    try:
        steps = [
            lambda: play_simulations(app, rounds=1, seed=3),
            lambda: play_hoyle_natural(app),
            lambda: play_vingt_un_pool(app),
            lambda: play_fixed_casino(app),
        ]
        for step in steps:
            step()
            head = proj.head()
            for until in (head - 40, head - 13, head - 1):
                expected = max(until, proj.position())
                assert proj.catch_up(until=until) == expected
            assert proj.catch_up() == head
        # A round left open mid-fold: its rows are updated across batches.
        dealer, p1 = fund(app, "Open dealer"), fund(app, "Open punter")
        table = app.open_table("ochko", {})["table_id"]
        app.seat_player(table, dealer, 1)
        app.seat_player(table, p1, 2)
        app.choose_dealer(table, dealer)
        rid = app.start_round(table, actor=dealer)["round_id"]
        proj.catch_up()
        app.place_stake(rid, p1, 100)
        proj.catch_up()
        incremental = snapshot(proj)
        assert incremental == rebuilt(app, store_env)
        assert sum(row[1] for row in incremental["view_audit_trail"]) > 200  # entries
    finally:
        proj.close()


def test_rebuilding_one_projection_leaves_the_others_alone_and_gives_the_same_rows(app, store_env):
    play_some(app)
    proj = open_projections(app, store_env, batch=50)
    try:
        proj.catch_up()
        before, head = snapshot(proj), proj.head()
        assert proj.reset(["bankroll"]) == ["bankroll"]
        assert proj.positions() == {"bankroll": 0, "history": head, "audit_trail": head}
        emptied = snapshot(proj, exclude=frozenset())
        for table in ("view_accounts", "view_movements", "view_holds"):
            assert emptied[table] == []
        others = {t: rows for t, rows in before.items() if t not in ("view_accounts",
                  "view_movements", "view_holds")}  # fmt: skip
        assert {t: emptied[t] for t in others} == others

        proj.catch_up(until=head // 2)  # the bankroll alone catches up, batch by batch
        assert proj.positions() == {"bankroll": head // 2, "history": head, "audit_trail": head}
        assert {t: snapshot(proj)[t] for t in others} == others
        run(Settings(family="vingt-un", rounds=1, players=2, seed=9), app)  # new events for all
        proj.catch_up()
        assert set(proj.positions().values()) == {proj.head()}
        assert snapshot(proj) == rebuilt(app, store_env)

        with pytest.raises(ValueError, match="nosuch"):
            proj.reset(["nosuch"])
    finally:
        proj.close()


@pytest.mark.parametrize("store_env", ["sqlite", "postgres"], indirect=True)
def test_a_restarted_projector_resumes_where_the_last_commit_left_off(store_env):
    first = TwentyOneLedger(env=store_env)
    try:
        play_some(first)
        proj = open_projections(first, store_env, batch=20)
        half = proj.catch_up(until=proj.head() // 2)
        proj.close()
    finally:
        first.close()

    app = TwentyOneLedger(env=store_env)  # a new process: new application, new connection
    proj = open_projections(app, store_env, batch=20)
    try:
        assert set(proj.positions().values()) == {half}
        play_simulations(app, rounds=1, seed=21)
        assert proj.catch_up() == proj.head() == len(event_log(app))
        assert snapshot(proj) == rebuilt(app, store_env)
    finally:
        proj.close()
        app.close()


@pytest.mark.parametrize("store_env", ["memory", "sqlite"], indirect=True)
def test_held_stakes_do_not_depend_on_where_a_batch_ends(app, store_env):
    run(Settings(family="hoyle-1913", rounds=2, players=2, seed=3, one_command=True), app)
    for batch in (1, 5):
        proj = open_projections(app, store_env, batch=batch)
        try:
            proj.rebuild()
            players = [a for (a,) in proj.views.read("SELECT account FROM view_accounts")
                       if a.startswith("player:")]  # fmt: skip
            assert [q.account(proj.views, a)["held"] for a in players] == [0] * len(players)
            assert snapshot(proj, exclude=frozenset()) == rebuilt(app, store_env, frozenset())
        finally:
            proj.close()
