"""The round's audit holds the round to its table's record of it (``table_record``): a round
its table closed whose ``Round.Ended`` was dropped (the round's last event: its own chain is
whole, its money too) fails, and ``python -m replay audit`` exits 1; so does a round that
ended whose table lost its ``Table.RoundClosed``. An honest round passes, ended or in play."""

from __future__ import annotations

import json

import pytest
from replay_history import FIXED_ROUND, casino_table, play_fixed_round
from store_checks import audited, played
from tampering import delete_event

from replay.__main__ import main


@pytest.fixture
def fixed_round(sqlite_file):
    """The fixed casino round, ended, at an open table on SQLite: env, path, table, round."""
    env, path = sqlite_file

    def play(app):
        table, ann, bob = casino_table(app)
        rid = play_fixed_round(app, table, ann, bob, FIXED_ROUND + ["2C"] * 40)
        return table, rid, app.get_round(rid).version, app.get_table(table).version

    table, rid, round_last, table_last = played(env, play)
    return env, path, table, rid, round_last, table_last


def _audit_cli(env: dict, rid: str, capsys) -> tuple[int, dict]:
    code = main(["audit", rid], env=env)
    return code, json.loads(capsys.readouterr().out)


def test_an_honest_rounds_table_record_agrees(fixed_round, capsys):
    env, _, table, rid, round_last, table_last = fixed_round

    code, report = _audit_cli(env, rid, capsys)

    assert code == 0
    record = report["table_record"]
    assert record["ok"] is True
    assert record["ended"]["version"] == round_last and record["ended"]["stream"] == rid
    assert record["closed"]["version"] == table_last and record["closed"]["stream"] == table
    assert record["opened"]["type"] == "Table.RoundOpened"


def test_a_round_whose_end_was_dropped_fails_its_audit(fixed_round, capsys):
    env, path, table, rid, round_last, table_last = fixed_round
    delete_event(path, rid, round_last)  # its Round.Ended: the round's own chain is whole

    code, report = _audit_cli(env, rid, capsys)

    assert code == 1
    assert report["chain"]["ok"] and report["money_reconciles"]["ok"] is not False
    record = report["table_record"]
    assert record["ok"] is False and record["ended"] is None
    assert record["closed"]["version"] == table_last
    assert record["fact"].startswith(
        f"the table closed the round (Table.RoundClosed v{table_last}, position "
    )
    assert "but the round's stream has no Round.Ended (it ends at " in record["fact"]


def test_a_round_whose_tables_closing_was_dropped_fails_its_audit(fixed_round, capsys):
    env, path, table, rid, round_last, table_last = fixed_round
    delete_event(path, table, table_last)  # the table's last event: its Table.RoundClosed

    code, report = _audit_cli(env, rid, capsys)

    assert code == 1
    record = report["table_record"]
    assert record["ok"] is False and record["closed"] is None
    assert record["fact"].startswith(f"the round ended (Round.Ended v{round_last}, position ")
    assert f"but its table {table} has no Table.RoundClosed for it" in record["fact"]


def test_a_round_in_play_agrees_with_a_table_that_has_not_closed_it(sqlite_file):
    env, _ = sqlite_file

    def play(app):
        table, ann, _ = casino_table(app)
        rid = app.start_round(table)["round_id"]
        app.place_stake(rid, ann, 500)
        return rid

    rid = played(env, play)

    record = audited(env, rid)["table_record"]

    assert record["ok"] is True and record["closed"] is None and record["ended"] is None
    assert record["fact"].startswith("the round is still in play")
