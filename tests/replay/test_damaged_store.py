"""The replay tools on damaged stores and mistaken settings (auditor review): one readable
line and an exit status, never a traceback, and never a new empty store made by mistake."""

from __future__ import annotations

import json
import sys
from uuid import UUID

import pytest
from tampering import corrupt_event, delete_event

from ledger.application import TwentyOneLedger
from replay.__main__ import main


@pytest.fixture
def stored(stored_round):
    """``stored_round`` (one ended round, 11+ events) and a round still in play at its table:
    the env, the file and both rounds' ids."""
    env, path, rid = stored_round
    app = TwentyOneLedger(env=env)
    try:
        table = str(app.get_round(rid).table_id)
        app.fix_next_shoe(table, ["2C"] * 30)
        open_rid = app.start_round(table)["round_id"]
    finally:
        app.close()
    return env, path, rid, open_rid


def _one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# -- a damaged or missing event in the middle of a round ------------------------------------


@pytest.mark.parametrize("command", ["round", "rederive"])
def test_an_undecodable_event_is_named_not_a_traceback(stored, capsys, command):
    env, path, rid, _ = stored
    position = corrupt_event(path, rid, 5)

    assert main([command, rid], env=env) == 1

    line = _one_line(capsys.readouterr().err)
    # ``round`` reads the round with its events' positions (it lists them), so it names it.
    where = f" (position {position})" if command == "round" else ""
    assert f"v5 of stream {rid}{where} cannot be decoded" in line
    assert "python -m replay verify" in line
    assert "not a round id" not in line


@pytest.mark.parametrize("command", ["round", "rederive"])
def test_a_missing_middle_event_is_named(stored, capsys, command):
    env, path, rid, _ = stored
    delete_event(path, rid, 5)

    assert main([command, rid], env=env) == 1

    line = _one_line(capsys.readouterr().err)
    assert f"event v5 of stream {rid} is missing" in line


def test_damage_is_reported_as_json_with_the_event(stored, capsys):
    env, path, rid, _ = stored
    position = corrupt_event(path, rid, 5)

    assert main(["round", rid, "--json"], env=env) == 1

    out = json.loads(capsys.readouterr().out)
    assert out["damaged"]["stream"] == rid and out["damaged"]["version"] == 5
    assert out["damaged"]["position"] == position
    assert "damaged" in out["error"]


def test_export_names_the_position_and_stream_of_an_undecodable_event(stored, capsysbinary):
    env, path, rid, _ = stored
    position = corrupt_event(path, rid, 5)

    assert main(["export"], env=env) == 1

    err = capsysbinary.readouterr().err.decode()
    line = _one_line(err)
    assert f"v5 of stream {rid} (position {position}) cannot be decoded" in line


def test_export_refuses_a_stream_missing_an_event_from_its_middle(stored, capsysbinary):
    env, path, rid, _ = stored
    delete_event(path, rid, 5)

    assert main(["export"], env=env) == 1

    line = _one_line(capsysbinary.readouterr().err.decode())
    assert f"event v5 of stream {rid} is missing (the stream goes on at v6, position" in line
    assert "python -m replay verify" in line


def test_a_table_export_refuses_a_gap_too(stored, capsysbinary):
    env, path, rid, _ = stored
    app = TwentyOneLedger(env=env)
    table = str(app.get_round(rid).table_id)
    app.close()
    delete_event(path, rid, 5)

    assert main(["export", "--table", table], env=env) == 1

    line = _one_line(capsysbinary.readouterr().err.decode())
    assert f"event v5 of stream {rid} is missing" in line


@pytest.mark.parametrize("damage", [delete_event, corrupt_event])
def test_a_refused_export_to_a_file_leaves_no_file(stored, tmp_path, capsysbinary, damage):
    env, path, rid, _ = stored
    damage(path, rid, 5)
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "ledger.jsonl"

    assert main(["export", "--output", str(out)], env=env) == 1

    assert f"v5 of stream {rid}" in _one_line(capsysbinary.readouterr().err.decode())
    assert list(out.parent.iterdir()) == []


def test_a_refused_export_keeps_an_older_file_of_that_name(stored, tmp_path, capsysbinary):
    env, path, rid, _ = stored
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "ledger.jsonl"
    assert main(["export", "--output", str(out)], env=env) == 0
    whole = out.read_bytes()
    assert whole.count(b"\n") > 20 and capsysbinary.readouterr().out == b""
    delete_event(path, rid, 5)

    assert main(["export", "-o", str(out)], env=env) == 1

    assert out.read_bytes() == whole and list(out.parent.iterdir()) == [out]


@pytest.mark.parametrize("append", [False, True])
def test_a_refused_export_cuts_a_redirected_stdout_back(stored, tmp_path, monkeypatch, append):
    """``export > f`` (or ``>> f``): the lines written before the gap are taken back."""
    env, path, rid, _ = stored
    delete_event(path, rid, 5)
    out = tmp_path / "ledger.jsonl"
    out.write_bytes(b"kept\n")
    with open(out, "a" if append else "w") as redirected:
        monkeypatch.setattr(sys, "stdout", redirected)
        assert main(["export"], env=env) == 1

    assert out.read_bytes() == (b"kept\n" if append else b"")


def test_a_table_at_a_moment_names_a_damaged_round_in_play(stored, capsys):
    env, path, _, open_rid = stored
    app = TwentyOneLedger(env=env)
    table = str(app.get_round(open_rid).table_id)
    app.close()
    corrupt_event(path, open_rid, 1)

    assert main(["table", table, "--at", "2999-01-01T00:00:00Z"], env=env) == 1

    assert f"v1 of stream {open_rid} cannot be decoded" in _one_line(capsys.readouterr().err)


# -- --at out of range -----------------------------------------------------------------------


@pytest.mark.parametrize("at", ["0", "-3"])
def test_round_at_below_one_is_bad_usage(stored, capsys, at):
    env, _, rid, _ = stored

    assert main(["round", rid, "--at", at], env=env) == 2

    line = _one_line(capsys.readouterr().err)
    assert "--at must be 1 or more" in line and "no round" not in line


@pytest.mark.parametrize("at", ["yesterday", "2026-13-45T00:00:00Z", ""])
def test_table_at_a_time_that_is_no_time_is_bad_usage(stored, capsys, at):
    env, _, rid, _ = stored
    app = TwentyOneLedger(env=env)
    table = str(app.get_round(rid).table_id)
    app.close()

    assert main(["table", table, "--at", at], env=env) == 2

    assert "--at wants an ISO 8601 time" in _one_line(capsys.readouterr().err)


def test_table_at_a_time_that_is_no_time_is_bad_usage_in_json_too(stored, capsys):
    env, _, rid, _ = stored

    assert main(["--json", "table", rid, "--at", "yesterday"], env=env) == 2

    assert "ISO 8601" in json.loads(capsys.readouterr().out)["error"]


@pytest.mark.parametrize("at", ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+01:00"])
def test_table_at_a_time_utc_cannot_hold_is_bad_usage_naming_it(stored, capsys, at):
    """ISO 8601, but in the year 10000 (or 0) once in UTC: one line naming it, exit 2."""
    env, _, rid, _ = stored
    app = TwentyOneLedger(env=env)
    table = str(app.get_round(rid).table_id)
    app.close()

    assert main(["table", table, "--at", at], env=env) == 2

    line = _one_line(capsys.readouterr().err)
    assert line == (
        f"error: --at {at!r} falls outside the years 1 to 9999 in UTC, the times the ledger "
        "can name"
    )


def test_table_at_before_it_opened_names_the_moment_in_iso_8601(stored, capsys):
    env, _, rid, _ = stored
    app = TwentyOneLedger(env=env)
    table = str(app.get_round(rid).table_id)
    app.close()

    assert main(["table", table, "--at", "2001-02-03 04:05:06"], env=env) == 1

    line = _one_line(capsys.readouterr().err)
    assert line.endswith(", after 2001-02-03T04:05:06+00:00"), line
    assert " was opened at " in line and "T" in line.split(" was opened at ")[1].split(",")[0]


@pytest.mark.parametrize("at", [str(2**63), str(10**30)])
def test_round_at_a_version_no_store_can_hold_is_bad_usage_naming_it(stored, capsys, at):
    env, _, rid, _ = stored

    assert main(["round", rid, "--at", at], env=env) == 2

    line = _one_line(capsys.readouterr().err)
    assert line == f"error: --at must be at most {2**63 - 1} (a stream's last version), got {at}"


@pytest.mark.parametrize("poll", ["-1", "nan", "inf", "soon", "1e308", "86401"])
def test_project_with_a_poll_that_is_no_wait_is_bad_usage(stored, capsys, poll):
    env, *_ = stored

    with pytest.raises(SystemExit) as exited:
        main(["project", "--poll", poll], env=env)

    assert exited.value.code == 2
    assert "--poll" in capsys.readouterr().err


def test_round_at_beyond_the_last_event_says_how_many_there_are(stored, capsys):
    env, _, rid, _ = stored
    app = TwentyOneLedger(env=env)
    count = len(list(app.events.get(UUID(rid))))
    app.close()

    assert main(["round", rid, "--at", str(count + 1)], env=env) == 1

    line = _one_line(capsys.readouterr().err)
    assert f"round {rid} has {count} events" in line


# -- rederive on a round still in play -----------------------------------------------------


def test_rederive_of_a_round_in_play_does_not_claim_a_settlement(stored, capsys):
    env, _, _, open_rid = stored

    assert main(["rederive", open_rid], env=env) == 1

    out = capsys.readouterr().out
    assert "settlement matches" not in out
    assert "still in play" in out and "recorded events compared" in out
    assert main(["rederive", open_rid, "--json"], env=env) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["in_play"] is True and data["matches"] is False and data["settlements"] == []


# -- store settings and paths ----------------------------------------------------------------


@pytest.mark.parametrize("command", [["verify"], ["export"], ["round", str(UUID(int=1))]])
def test_a_reading_tool_refuses_a_missing_sqlite_path_and_makes_nothing(
    tmp_path, monkeypatch, capsys, command
):
    monkeypatch.setenv("LEDGER_STORE", "sqlite")
    monkeypatch.setenv("LEDGER_SQLITE_PATH", str(tmp_path / "typo" / "ledger.sqlite3"))

    assert main(command) == 2

    assert "does not exist" in _one_line(capsys.readouterr().err)
    assert list(tmp_path.iterdir()) == []


def test_a_sqlite_path_that_is_a_directory_is_refused_at_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LEDGER_STORE", "sqlite")
    monkeypatch.setenv("LEDGER_SQLITE_PATH", str(tmp_path))

    assert main(["verify"]) == 2

    assert "is a directory" in _one_line(capsys.readouterr().err)


def test_a_file_that_is_not_sqlite_is_refused(tmp_path, monkeypatch, capsys):
    path = tmp_path / "notes.sqlite3"
    path.write_text("not a database\n")
    monkeypatch.setenv("LEDGER_STORE", "sqlite")
    monkeypatch.setenv("LEDGER_SQLITE_PATH", str(path))

    assert main(["verify"]) == 2

    assert "not a SQLite database" in _one_line(capsys.readouterr().err)


def test_an_unknown_store_is_bad_usage(monkeypatch, capsys):
    monkeypatch.setenv("LEDGER_STORE", "bogus")

    assert main(["verify"]) == 2

    assert "LEDGER_STORE must be one of" in _one_line(capsys.readouterr().err)


def test_import_may_make_a_new_store(stored, tmp_path, monkeypatch, capsysbinary):
    env, _, _, _ = stored
    assert main(["export"], env=env) == 0
    export = tmp_path / "all.jsonl"
    export.write_bytes(capsysbinary.readouterr().out)
    target = tmp_path / "new" / "copy.sqlite3"
    monkeypatch.setenv("LEDGER_STORE", "sqlite")
    monkeypatch.setenv("LEDGER_SQLITE_PATH", str(target))

    assert main(["import", str(export)]) == 0

    assert target.exists()


def test_import_of_a_directory_is_bad_usage_and_makes_no_store(tmp_path, monkeypatch, capsys):
    target = tmp_path / "new" / "copy.sqlite3"
    monkeypatch.setenv("LEDGER_STORE", "sqlite")
    monkeypatch.setenv("LEDGER_SQLITE_PATH", str(target))

    assert main(["import", str(tmp_path)]) == 2

    assert "is a directory" in _one_line(capsys.readouterr().err)
    assert not target.parent.exists()
