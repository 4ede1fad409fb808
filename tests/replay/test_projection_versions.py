"""Rolling out a projector of a new version while old workers still run: versions only move
forward, so an old worker stops at its next batch instead of folding into (or dropping) the
tables the new code rebuilt."""

from __future__ import annotations

import pytest
from test_projection_cli import ON_DISK, cli
from test_projections import play_simulations, snapshot

from ledger.application import TwentyOneLedger
from replay.projections import Projections, ProjectionSuperseded, open_projections, open_views
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
