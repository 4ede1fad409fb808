"""``export`` and ``import`` as subcommands of the replay CLI (added by ``register``), on a
SQLite file named by the environment, the way an operator runs them."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from ledger.application import TwentyOneLedger
from ledger.config import store_env
from replay.export import export_lines, register


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m replay")
    register(p.add_subparsers(dest="command", required=True))
    return p


def run(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    return args.func(args)


def test_export_then_import_through_the_cli(tmp_path, monkeypatch, capsysbinary):
    source = str(tmp_path / "source.sqlite3")
    monkeypatch.setenv("LEDGER_STORE", "sqlite")
    monkeypatch.setenv("LEDGER_SQLITE_PATH", source)
    app = TwentyOneLedger(env={**store_env(), "LEDGER_ALLOW_FIXED_SHOES": "true"})
    pid = app.register_player("Ann")["player_id"]
    app.deposit(pid, 1_000)
    table = app.open_table("casino")["table_id"]
    app.seat_player(table, pid, 1)
    expected = b"".join(export_lines(app))
    app.close()

    assert run(["export"]) == 0
    out = capsysbinary.readouterr().out
    assert out == expected
    assert run(["export", "--table", table]) == 0
    assert capsysbinary.readouterr().out.count(b"\n") == 2  # Table.Opened, Table.PlayerSeated

    dump = tmp_path / "ledger.jsonl"
    dump.write_bytes(out)
    monkeypatch.setenv("LEDGER_SQLITE_PATH", str(tmp_path / "copy.sqlite3"))
    assert run(["import", "--json", str(dump)]) == 0
    summary = json.loads(capsysbinary.readouterr().out)
    assert summary == {
        "ok": True,
        "events": 4,
        "streams": 2,
        "first_position": 1,
        "last_position": 4,
        "contiguous": True,
    }
    assert run(["export"]) == 0
    assert capsysbinary.readouterr().out == expected

    assert run(["import", str(dump)]) == 1  # not empty any more
    assert b"not empty" in capsysbinary.readouterr().err


def test_the_replay_cli_has_export_and_import(tmp_path, capsysbinary):
    from replay.__main__ import main

    env = {**store_env("sqlite", sqlite_path=str(tmp_path / "s.sqlite3"), environ={})}
    app = TwentyOneLedger(env=env)
    app.register_player("Bob")
    expected = b"".join(export_lines(app))
    app.close()

    assert main(["export"], env=env) == 0
    assert capsysbinary.readouterr().out == expected


@pytest.mark.parametrize("argv", [["export", "--table", "nope"], ["import", "/no/such.jsonl"]])
def test_bad_arguments_fail_clearly(tmp_path, monkeypatch, capsysbinary, argv):
    monkeypatch.setenv("LEDGER_STORE", "sqlite")
    monkeypatch.setenv("LEDGER_SQLITE_PATH", str(tmp_path / "empty.sqlite3"))
    assert run(argv) != 0
    assert capsysbinary.readouterr().err


def test_import_dash_reads_the_export_from_stdin(tmp_path, monkeypatch, capsysbinary):
    """``export | import -``: a ledger copied into another store through a pipe."""
    from replay.__main__ import main

    source = store_env("sqlite", sqlite_path=str(tmp_path / "s.sqlite3"), environ={})
    app = TwentyOneLedger(env=source)
    app.deposit(app.register_player("Bob")["player_id"], 500)
    app.close()
    assert main(["export"], env=source) == 0
    exported = capsysbinary.readouterr().out
    copy = store_env("sqlite", sqlite_path=str(tmp_path / "copy.sqlite3"), environ={})
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(exported)))

    assert main(["import", "--json", "-"], env=copy) == 0

    assert json.loads(capsysbinary.readouterr().out)["events"] == exported.count(b"\n") == 2
    assert main(["export"], env=copy) == 0
    assert capsysbinary.readouterr().out == exported
