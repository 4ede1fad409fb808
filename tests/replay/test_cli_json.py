"""``--json`` is accepted before or after every ``python -m replay`` command: README shows
both (``python -m replay --json import ledger.jsonl``, ``python -m replay rebuild --json``)."""

from __future__ import annotations

import json

import pytest

from ledger.application import TwentyOneLedger
from ledger.config import store_env
from replay.__main__ import build_parser, main
from replay.export import export_lines
from replay.json_option import wants_json

ID = "00000000-0000-0000-0000-000000000000"
# Each command with the arguments it requires.
COMMANDS = {
    "verify": [],
    "round": [ID],
    "table": [ID, "--at", "2026-01-01T00:00:00Z"],
    "rederive": [ID],
    "audit": [ID],
    "export": [],
    "import": ["ledger.jsonl"],
    "project": ["--once"],
    "rebuild": [],
    "projections": [],
}


def test_every_command_is_listed_here():
    subparsers = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(subparsers.choices) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_json_is_accepted_before_and_after_every_command(command):
    parser = build_parser()
    rest = COMMANDS[command]

    assert wants_json(parser.parse_args(["--json", command, *rest]))
    assert wants_json(parser.parse_args([command, *rest, "--json"]))
    assert not wants_json(parser.parse_args([command, *rest]))


@pytest.fixture
def export_file(tmp_path):
    env = store_env("sqlite", sqlite_path=str(tmp_path / "source.sqlite3"), environ={})
    app = TwentyOneLedger(env=env)
    try:
        app.deposit(app.register_player("Ann")["player_id"], 1_000)
        path = tmp_path / "ledger.jsonl"
        path.write_bytes(b"".join(export_lines(app)))
    finally:
        app.close()
    return path


@pytest.mark.parametrize("where", ["before", "after"])
def test_import_prints_its_summary_as_json_wherever_json_stands(
    tmp_path, export_file, capsys, where
):
    env = store_env("sqlite", sqlite_path=str(tmp_path / f"copy-{where}.sqlite3"), environ={})
    argv = ["--json", "import", str(export_file)]
    if where == "after":
        argv = ["import", "--json", str(export_file)]

    assert main(argv, env=env) == 0

    summary = json.loads(capsys.readouterr().out)
    assert summary["ok"] is True and summary["events"] == 2


def test_verify_reports_as_json_when_json_comes_first(tmp_path, capsys):
    env = store_env("sqlite", sqlite_path=str(tmp_path / "s.sqlite3"), environ={})
    TwentyOneLedger(env=env).close()

    assert main(["--json", "verify"], env=env) == 0

    assert json.loads(capsys.readouterr().out)["ok"] is True


@pytest.mark.parametrize("head", ["abc", "12:nothex"])
def test_a_bad_checkpoint_is_a_json_error_under_json(tmp_path, capsys, head):
    env = store_env("sqlite", sqlite_path=str(tmp_path / "s.sqlite3"), environ={})
    TwentyOneLedger(env=env).close()

    assert main(["--json", "verify", "--expect-head", head], env=env) == 2

    out = json.loads(capsys.readouterr().out)
    assert out["error"].startswith("--expect-head: a checkpoint is POSITION:DIGEST")


@pytest.mark.parametrize("as_json", [False, True])
def test_a_postgresql_server_that_cannot_be_reached_is_one_line(capsys, as_json):
    """Not a traceback after minutes: one connection timeout, one line naming the store."""
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = store_env(
        "postgres",
        environ={
            "POSTGRES_HOST": "127.0.0.1",
            "POSTGRES_PORT": str(port),
            "POSTGRES_CONNECT_TIMEOUT": "1",
        },
    )

    assert main(["--json", "verify"] if as_json else ["verify"], env=env) == 1

    out, err = capsys.readouterr()
    said = json.loads(out)["error"] if as_json else err
    assert f"@127.0.0.1:{port}/" in said and "couldn't get a connection" in said
    assert "Traceback" not in err and len((out or err).strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("target", "says"),
    [("missing/dir/ledger.jsonl", "does not exist"), (".", "is a directory")],
)
def test_export_to_a_path_it_cannot_write_is_refused_before_anything_is_made(
    tmp_path, capsys, monkeypatch, target, says
):
    env = store_env("sqlite", sqlite_path=str(tmp_path / "s.sqlite3"), environ={})
    TwentyOneLedger(env=env).close()
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())

    assert main(["export", "-o", target], env=env) == 2

    err = capsys.readouterr().err
    assert err.startswith(f"error: -o {target}") and says in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_an_id_of_another_kind_is_named_for_what_it_is(tmp_path, capsys):
    """``table`` given a round's id says it is a round whatever the moment (an early one once
    said "table … was opened at …"); ``verify --table`` given a player's id says "a Player"."""
    from replay_history import play_fixed_casino

    env = {
        **store_env("sqlite", sqlite_path=str(tmp_path / "s.sqlite3"), environ={}),
        "LEDGER_ALLOW_FIXED_SHOES": "true",
    }
    app = TwentyOneLedger(env=env)
    try:
        rid = play_fixed_casino(app)
        player = app.get_round(rid).hands["h1"]["player"]
    finally:
        app.close()
    nobody = "00000000-0000-0000-0000-000000000001"

    for moment in ("2000-01-01T00:00:00Z", "2999-01-01T00:00:00Z"):
        assert main(["table", rid, "--at", moment], env=env) == 1
        assert f"{rid} is a Round, not a table" in capsys.readouterr().err
    assert main(["verify", "--table", player], env=env) == 1
    assert f"{player} is a Player, not a table" in capsys.readouterr().err
    assert main(["table", nobody, "--at", "2999-01-01T00:00:00Z"], env=env) == 1
    assert f"no table {nobody} in this log" in capsys.readouterr().err
