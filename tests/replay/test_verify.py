"""``python -m replay verify``: a whole history passes; an edited stored row is named."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from uuid import UUID

import pytest
from postgres_schemas import postgres_connect
from psycopg import sql
from replay_history import play_history

from ledger.application import TwentyOneLedger
from ledger.config import store_kind
from replay.__main__ import main
from replay.verify import verify

ROOT = Path(__file__).resolve().parents[2]


def _pick(app: TwentyOneLedger, topic_end: str, nth: int = 3) -> tuple[str, int]:
    found = [
        (str(n.originator_id), n.originator_version)
        for n in app.recorder.select_notifications(start=1, limit=10**6)
        if n.topic.endswith(topic_end)
    ]
    return found[min(nth, len(found) - 1)]


def _edit_row(env: dict, stream: str, version: int, change) -> None:
    """Edit one stored event's JSON state behind the application's back."""
    kind = store_kind(env)
    if kind == "sqlite":
        with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
            (state,) = db.execute(
                "SELECT state FROM stored_events WHERE originator_id=? AND originator_version=?",
                (UUID(stream).hex, version),
            ).fetchone()
            data = json.loads(state)
            change(data)
            db.execute(
                "UPDATE stored_events SET state=? WHERE originator_id=? AND originator_version=?",
                (json.dumps(data).encode(), UUID(stream).hex, version),
            )
    else:
        table = sql.Identifier(env["POSTGRES_SCHEMA"], "twentyoneledger_events")
        with postgres_connect() as conn:
            (state,) = conn.execute(
                sql.SQL(
                    "SELECT state FROM {} WHERE originator_id=%s AND originator_version=%s"
                ).format(table),
                (UUID(stream), version),
            ).fetchone()
            data = json.loads(bytes(state))
            change(data)
            conn.execute(
                sql.SQL(
                    "UPDATE {} SET state=%s WHERE originator_id=%s AND originator_version=%s"
                ).format(table),
                (json.dumps(data).encode(), UUID(stream), version),
            )


def test_a_played_history_verifies_on_every_store(store_env):
    app = TwentyOneLedger(env=store_env)
    try:
        play_history(app, rounds=2)
        report = verify(app)
    finally:
        app.close()

    assert report.ok, report.text()
    assert report.cards_checked > 50
    assert report.shoes_checked >= 5
    assert report.unrevealed == []
    assert report.balances_sum == 0
    assert main(["verify", "--all"], env=store_env) == 0


def test_verify_all_names_the_default_and_with_table_is_bad_usage(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["verify", "--all", "--table", "T"], env={})

    assert exited.value.code == 2
    assert "argument --table: not allowed with argument --all" in capsys.readouterr().err


def test_unrevealed_shoes_are_reported_not_failed(memory_env):
    app = TwentyOneLedger(env=memory_env)
    try:
        play_history(app, rounds=2, close=False)
        report = verify(app)
    finally:
        app.close()

    assert report.ok, report.text()
    assert report.unrevealed and all(s["cards"] > 0 for s in report.unrevealed)
    assert "not yet revealed" in report.text()


@pytest.fixture
def stored(store_env):
    env = store_env
    app = TwentyOneLedger(env=env)
    try:
        history = play_history(app, rounds=2)
        transfer = _pick(app, "Player.FundsTransferred", nth=7)
        card = _pick(app, "Round.CardDealt", nth=11)
    finally:
        app.close()
    return env, history, transfer, card


@pytest.mark.parametrize("store_env", ["sqlite", "postgres"], indirect=True)
def test_an_edited_amount_is_named_exactly(store_env, stored, capsys):
    env, _, (stream, version), _ = stored

    def change(data):
        data["amount"] += 1

    _edit_row(env, stream, version, change)
    app = TwentyOneLedger(env=env)
    try:
        report = verify(app)
    finally:
        app.close()

    assert not report.ok
    first = report.first
    assert (first.stream, first.version, first.type) == (stream, version, "Player.FundsTransferred")
    assert "hash" in first.problem
    assert main(["verify", "--json"], env=env) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["first_fault"]["stream"] == stream
    assert out["first_fault"]["version"] == version


@pytest.mark.parametrize("store_env", ["sqlite", "postgres"], indirect=True)
def test_an_edited_card_fails_the_hash_and_the_shuffle(store_env, stored):
    env, _, _, (stream, version) = stored
    seen = {}

    def change(data):
        seen["card"] = data["card"]
        data["card"] = "AS" if data["card"] != "AS" else "KH"

    _edit_row(env, stream, version, change)
    app = TwentyOneLedger(env=env)
    try:
        report = verify(app)
        table = str(app.get_round(stream).table_id)
        scoped = verify(app, table=table)
    finally:
        app.close()

    first = report.first
    assert (first.stream, first.version, first.type) == (stream, version, "Round.CardDealt")
    at_fault = {f.check for f in report.faults if (f.stream, f.version) == (stream, version)}
    assert at_fault == {"chain", "shuffle"}, report.text()
    assert scoped.first.stream == stream
    # The other tables' streams are whole.
    assert all(f.stream == stream for f in report.faults), report.text()


def test_the_command_line_exits_non_zero_naming_the_event(tmp_path):
    path = str(tmp_path / "ledger.sqlite3")
    environ = {
        **os.environ,
        "LEDGER_STORE": "sqlite",
        "LEDGER_SQLITE_PATH": path,
        "LEDGER_ALLOW_FIXED_SHOES": "true",
    }
    from ledger.config import store_env as build

    env = build(environ=environ)
    app = TwentyOneLedger(env=env)
    try:
        play_history(app, rounds=1)
        stream, version = _pick(app, "Round.HandSettled", nth=2)
    finally:
        app.close()

    def cli(*args):
        return subprocess.run(
            [sys.executable, "-m", "replay", *args],
            cwd=ROOT,
            env=environ,
            capture_output=True,
            text=True,
            timeout=120,
        )

    ok = cli("verify")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "OK" in ok.stdout

    def change(data):
        # Twice the amount (or 100 on a push): the settlement's legs still touch the accounts
        # they touched, so the money faults are named at the edited event, beside its hash.
        # (+100 on a lost stake of 100 made it 0, no legs at all: a money fault then fell on
        # the transfer just before, first in the log, about one run in twenty.)
        data["amount"] = data["amount"] * 2 if data["amount"] else 100

    _edit_row(env, stream, version, change)
    bad = cli("verify", "--json")
    assert bad.returncode == 1
    first = json.loads(bad.stdout)["first_fault"]
    assert (first["stream"], first["version"], first["type"]) == (
        stream,
        version,
        "Round.HandSettled",
    )
    text = cli("verify")
    assert text.returncode == 1
    assert f"Round.HandSettled v{version} of stream {stream}" in text.stdout


def test_a_version_gap_is_named(sqlite_file):
    env = sqlite_file[0]
    app = TwentyOneLedger(env=env)
    try:
        play_history(app, rounds=1)
        stream, version = _pick(app, "Round.CardDealt", nth=4)
    finally:
        app.close()
    with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
        db.execute(
            "DELETE FROM stored_events WHERE originator_id=? AND originator_version=?",
            (UUID(stream).hex, version),
        )
    app = TwentyOneLedger(env=env)
    try:
        report = verify(app)
    finally:
        app.close()
    first = report.first
    assert first.stream == stream and first.version == version + 1
    assert "version gap" in first.problem


def _forged_table(app: TwentyOneLedger):
    """A table written as a faulty writer might, every hash correct: only the money checks
    can tell."""
    from ledger.domain.table import Table
    from ledger.rules import rules_for

    return Table._create(
        Table.Opened, name="forged", rules=rules_for("vingt-un").to_dict(), actor="a"
    )


def test_a_pool_opened_with_money_its_transfers_never_brought_is_named(memory_env):
    from ledger.domain.table import Table

    app = TwentyOneLedger(env=memory_env)
    try:
        table = _forged_table(app)
        table.trigger_event(Table.PoolOpened, balance=500, basis="forged", clause="VU-27")
        app.save(table)
        report = verify(app)
    finally:
        app.close()
    assert not report.ok
    assert (report.first.stream, report.first.version) == (str(table.id), 2)
    assert report.first.problem == "the pool opened with 500, its transfers give 0"


def test_a_table_transfer_that_misses_its_pool_or_overdraws_it_is_named(memory_env):
    from ledger import accounts
    from ledger.domain.transfers import record_transfer

    app = TwentyOneLedger(env=memory_env)
    try:
        table = _forged_table(app)
        table.open_pool(0, "opened with the table")
        record_transfer(table, accounts.house(table.id), accounts.CASHIER, 5, "VU-28", "stray")
        record_transfer(table, table.pool_account, accounts.CASHIER, 7, "VU-28", "unfunded")
        app.save(table)
        report = verify(app)
    finally:
        app.close()
    problems = [(f.version, f.problem) for f in report.faults if f.check == "money"]
    assert problems[:2] == [
        (3, f"a transfer recorded in {table.pool_account}'s stream misses it"),
        (4, f"{table.pool_account} went below zero"),
    ]


def test_a_pool_transfer_written_outside_its_tables_stream_once_open_is_named(memory_env):
    from ledger.domain.transfers import record_transfer

    app = TwentyOneLedger(env=memory_env)
    try:
        table = _forged_table(app)
        table.open_pool(0, "opened with the table")
        ann = app.register_player("Ann")["player_id"]
        app.deposit(ann, 100)
        player = app.repository.get(UUID(ann))
        # As a process of the earlier version would write an ante: the payer's stream only.
        record_transfer(player, player.account, table.pool_account, 40, "VU-27", "ante")
        app.save(table, player)
        report = verify(app)
    finally:
        app.close()
    assert [(f.stream, f.problem) for f in report.faults] == [
        (ann, f"a transfer of {table.pool_account} outside its table's stream")
    ]
