"""Rolling out a projector of a new version while old workers still run: versions only move
forward, so an old worker stops at its next batch instead of folding into (or dropping) the
tables the new code rebuilt."""

from __future__ import annotations

import pytest
from replay_history import casino_table
from test_projection_cli import ON_DISK, cli
from test_projections import play_simulations, snapshot

from ledger.application import TwentyOneLedger
from replay.projections import Projections, ProjectionSuperseded, open_projections, open_views
from replay.projections import queries as q
from replay.projections.audit_trail import AuditTrail
from replay.projections.bankroll import Bankroll
from replay.projections.history import History


class NewerBankroll(Bankroll):
    version = Bankroll.version + 1


@pytest.fixture
def app(store_env):
    ledger = TwentyOneLedger(env=store_env)
    play_simulations(ledger, rounds=1)
    yield ledger
    ledger.close()


@ON_DISK
def test_an_old_worker_stops_once_newer_code_has_rebuilt_its_read_model(app, store_env, capsys):
    old = open_projections(app, store_env)
    new = Projections(app, open_views(store_env), [NewerBankroll(), History(), AuditTrail()])
    try:
        old.catch_up()
        new.catch_up()  # drops the old bankroll tables and builds them again at its version
        app.deposit(app.register_player("Late")["player_id"], 500)
        with pytest.raises(ProjectionSuperseded) as stopped:
            old.catch_up()
        assert (stopped.value.name, stopped.value.recorded) == ("bankroll", Bankroll.version + 1)
        assert "upgrade and restart" in str(stopped.value)

        # An old process started now refuses too, and drops nothing.
        late = open_projections(app, store_env)
        with pytest.raises(ProjectionSuperseded):
            late.position()
        late.close()
        # So does the old worker's command line, with its own exit code.
        code, _, err = cli(capsys, store_env, "project", "--once")
        assert code == 3 and "'bankroll' is at version" in err

        assert new.catch_up() == app.recorder.max_notification_id()
        rebuilt = snapshot(new)
        new.rebuild()
        assert snapshot(new) == rebuilt, "the old workers folded nothing into the new tables"
    finally:
        old.close()
        new.close()


@ON_DISK
def test_an_old_reader_refuses_to_answer_from_rebuilt_tables_even_with_nothing_to_fold(
    app, store_env
):
    old = open_projections(app, store_env)
    new = Projections(app, open_views(store_env), [NewerBankroll(), History(), AuditTrail()])
    try:
        old.catch_up()
        new.catch_up()
        # Nothing new to fold: an external-mode read, and an inline one, still check.
        for inline in (False, True):
            with pytest.raises(ProjectionSuperseded):
                old.ensure(None, 0.1, inline=inline)
    finally:
        old.close()
        new.close()


# view_tables as History version 4 made it: a round's stakes counted as staked when placed,
# and its escrow as the punters' loss until its settlements paid it back.
V4_TABLES = (
    "CREATE TABLE view_tables (table_id TEXT PRIMARY KEY, name TEXT NOT NULL, family TEXT NOT"
    " NULL, opened_at TEXT NOT NULL, closed_at TEXT NOT NULL, rounds BIGINT NOT NULL, naturals"
    " BIGINT NOT NULL, busts BIGINT NOT NULL, staked BIGINT NOT NULL, punters_net BIGINT NOT"
    " NULL, banker_net BIGINT NOT NULL, house_net BIGINT NOT NULL, pool_balance BIGINT NOT NULL)"
)


@ON_DISK
def test_a_history_of_the_version_before_is_rebuilt_to_count_only_ended_rounds(store_env):
    app = TwentyOneLedger(env=store_env)
    table, ann, bob = casino_table(app)
    app.fix_next_shoe(table, ["TH", "TS", "TD", "6C", "9S", "7D"] + ["2C"] * 20)
    rid = app.start_round(table)["round_id"]
    app.place_stake(rid, ann, 500)
    app.place_stake(rid, bob, 300)
    old = open_projections(app, store_env)
    try:
        old.catch_up()
        with old.views.transaction() as db:
            db.execute("DROP TABLE view_tables")
            db.execute(V4_TABLES)
            db.execute(
                "INSERT INTO view_tables VALUES (?, 'casino table', 'casino', '', '', 1, 0, 0,"
                " 800, -800, 0, 0, 0)",
                (table,),
            )
            db.execute("UPDATE view_projections SET version = 4 WHERE name = 'history'")
    finally:
        old.close()
    assert History.version > 4
    new = open_projections(app, store_env)
    try:
        assert new.positions()["history"] == 0, "dropped, to be rebuilt from the first event"
        new.catch_up()
        result = q.table_results(new.views, table)
        assert (result["staked"], result["punters_net"], result["return_to_player"]) == (
            0, 0, None)  # fmt: skip
        assert (result["in_play_rounds"], result["in_play_staked"], result["held"]) == (1, 800, 800)
        assert new.views.read("SELECT version FROM view_projections WHERE name = 'history'") == [
            (History.version,)
        ]
    finally:
        new.close()
        app.close()
