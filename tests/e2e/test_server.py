"""A real server process and a real HTTP client: gunicorn (2 workers) on a temporary SQLite
file, keys made by the command line before and while it runs, casino rounds played over the
wire whatever the shoe deals (a real server deals random shoes: every hand stands), and the
books checked through the bankroll endpoints and, once the server has stopped, in the store.
``python -m api`` (what ``make run`` runs) is started too, as a user would."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from uuid import uuid4

import pytest

from benchmarks.client import Client, play_casino_round
from benchmarks.server import REPO, GunicornServer
from ledger.application import TwentyOneLedger
from ledger.balances import fold_balances
from ledger.config import store_env
from ledger.domain.chain import verify_chain

ROUNDS = 3
DEPOSIT = 100_000


def sqlite_environ(tmp_path: Path) -> dict[str, str]:
    return {"LEDGER_STORE": "sqlite", "LEDGER_SQLITE_PATH": str(tmp_path / "ledger.sqlite3")}


def check_store(path: Path, table_id: str, house_won: int) -> None:
    """The books in the store, read by a fresh application after the server stopped."""
    app = TwentyOneLedger(env=store_env("sqlite", sqlite_path=str(path), environ={}))
    try:
        books = fold_balances(app)
        assert sum(books.values()) == 0
        assert {a: v for a, v in books.items() if a.startswith("escrow:") and v} == {}
        assert books.get(f"house:{table_id}", 0) == house_won
        notifications = app.recorder.select_notifications(start=1, limit=10**6)
        for stream in dict.fromkeys(n.originator_id for n in notifications):
            ok, fault = verify_chain(app.events.get(stream))
            assert ok, fault
    finally:
        app.close()


def test_casino_rounds_through_gunicorn(serve, cli_key, tmp_path):
    environ = {**sqlite_environ(tmp_path), "WEB_CONCURRENCY": "2"}
    admin_key = cli_key(environ, "admin")  # before the server exists
    server = serve(environ)
    admin = server.client(admin_key)
    assert admin.get("/health")["store"] == "sqlite"

    # The error shape, over the wire.
    status, problem = server.client().call("GET", f"/v1/tables/{uuid4()}")
    assert status == 401 and problem["status"] == 401 and problem["type"].startswith("https://")
    status, problem = admin.call("GET", f"/v1/tables/{uuid4()}")
    assert status == 404 and problem["title"]

    # A retried POST with the same Idempotency-Key gets the first answer and writes nothing.
    body = {"family": "casino", "options": {"insurance": False}, "name": "e2e"}
    once = {"Idempotency-Key": f"e2e-{uuid4()}"}
    table = admin.post("/v1/tables", body, 201, headers=once)
    assert admin.post("/v1/tables", body, 201, headers=once) == table
    assert admin.last_headers.get("Idempotent-Replayed") == "true"
    tid = table["table_id"]

    # Keys made while the server runs are seen by its workers at once.
    dealer = server.client(cli_key(environ, "dealer"))  # the house dealer
    players: dict[str, Client] = {}
    for seat, name in enumerate(("Ann", "Bob"), start=1):
        pid = admin.post("/v1/players", {"name": name}, 201)["player_id"]
        admin.post(f"/v1/players/{pid}/deposits", {"amount": DEPOSIT})
        players[pid] = server.client(cli_key(environ, "player", pid))
        players[pid].post(f"/v1/tables/{tid}/seats", {"player_id": pid, "seat": seat}, 201)

    won = dict.fromkeys(players, 0)
    for _ in range(ROUNDS):
        final = play_casino_round(dealer, players, tid)
        assert final["ended"] and len(final["hands"]) >= 2
        for hand in final["hands"]:
            assert hand["settled"] and hand["result"] is not None, hand
            won[hand["player"]] += hand["result"]
        assert "??" not in str(admin.get(f"/v1/rounds/{final['round_id']}"))

    for pid, client in players.items():
        bankroll = client.get(f"/v1/players/{pid}/bankroll?limit=1000")
        assert bankroll["balance"] == DEPOSIT + won[pid]
        assert bankroll["held"] == 0
        assert (
            bankroll["next"] is None and len(bankroll["movements"]) == bankroll["movements_total"]
        )
        assert bankroll["movements"][-1]["balance"] == bankroll["balance"]
        assert sum(entry["change"] for entry in bankroll["movements"]) == bankroll["balance"]
    assert admin.get(f"/v1/tables/{tid}")["rounds"] == ROUNDS

    assert server.stop() == 0, server.log()[-3000:]
    check_store(tmp_path / "ledger.sqlite3", tid, -sum(won.values()))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_python_m_api_starts_gunicorn_and_prints_a_working_admin_key(tmp_path):
    port = free_port()  # the banner names the port, so it is chosen here (PORT=0 would not)
    server = GunicornServer(
        {"LEDGER_STORE": "sqlite", "LEDGER_SQLITE_PATH": "./var/ledger.sqlite3", "PORT": str(port)},
        tmp_path / "run.log",
        argv=[sys.executable, "-m", "api"],
        cwd=tmp_path,
    )
    with server:
        banner = server.log()
        url = f"http://127.0.0.1:{port}"
        assert server.url == url and f"point your client at {url}" in banner
        secret = re.search(r"keep it:\n\s+(\S+)", banner).group(1)
        assert f"curl -X POST {url}/v1/tables -H 'Authorization: Bearer {secret}'" in banner
        table = server.client(secret).post("/v1/tables", {"family": "casino"}, 201)
        assert table["family"] == "casino"
        assert server.stop() == 0
    assert (tmp_path / "var" / "ledger.sqlite3").is_file()


def _refused_start(cwd, **env):
    """``python -m api`` run in ``cwd`` with ``env`` added, for a start it must refuse."""
    return subprocess.run(
        [sys.executable, "-m", "api"],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_python_m_api_refuses_the_memory_store_before_starting_gunicorn(tmp_path):
    done = _refused_start(tmp_path, LEDGER_STORE="memory", PORT="0")

    assert done.returncode == 2, done.stderr
    assert "python -m api --dev" in done.stderr
    assert "Listening at" not in done.stderr and "keep it" not in done.stdout


def test_python_m_api_refuses_a_bad_setting_in_one_line_and_makes_no_var(tmp_path):
    done = _refused_start(
        tmp_path,
        LEDGER_STORE="sqlite",
        LEDGER_SQLITE_PATH=str(tmp_path / "db" / "ledger.sqlite3"),
        AUDIT_COOKIE_SECURE="maybe",
    )

    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "python -m api: AUDIT_COOKIE_SECURE must be one of auto, true, false; not 'maybe'\n"
    )
    assert done.stdout == "" and not (tmp_path / "var").exists()
    assert not (tmp_path / "db").exists()  # refused before the store's directory is made


def test_python_m_api_refuses_an_access_log_in_a_missing_directory_before_any_key(tmp_path):
    done = _refused_start(
        tmp_path,
        LEDGER_STORE="sqlite",
        LEDGER_SQLITE_PATH="./var/ledger.sqlite3",
        ACCESS_LOG="/no/such/dir/access.log",
    )

    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "python -m api: ACCESS_LOG '/no/such/dir/access.log': its directory '/no/such/dir' does "
        "not exist (the server makes none for the log)\n"
    )
    assert done.stdout == ""  # no banner, and no admin key printed for a server that never ran
    assert not (tmp_path / "var").exists()


def test_python_m_api_with_every_variable_empty_serves_on_the_defaults(tmp_path):
    """`set -a; . ./.env` exports a blank line as an empty value: each counts as unset, for
    gunicorn too (it read an empty WEB_CONCURRENCY with int() and died, and bound every
    interface for an empty HOST)."""
    from api.serving import VARIABLES

    blanks = {name: "" for name in VARIABLES}
    server = GunicornServer(
        {**blanks, "PORT": "0"},  # port 8000 may be taken: the only one set
        tmp_path / "run.log",
        argv=[sys.executable, "-m", "api"],
        cwd=tmp_path,
    )
    with server:
        assert server.url.startswith("http://127.0.0.1:"), server.log()  # HOST: loopback only
        assert server.client().call("GET", "/health")[0] == 200
        assert server.stop() == 0
    log = server.log()
    assert log.count("Booting worker") == 2  # WEB_CONCURRENCY: 2
    assert '"GET /health HTTP/1.1" 200' in log  # ACCESS_LOG: to stdout
    assert (tmp_path / "var" / "ledger.sqlite3").is_file()  # the default store


@pytest.mark.parametrize("port", ["0", "18101"])
def test_python_m_api_refuses_a_host_that_does_not_resolve_before_any_key(tmp_path, port):
    done = _refused_start(
        tmp_path,
        LEDGER_STORE="sqlite",
        LEDGER_SQLITE_PATH="./var/ledger.sqlite3",
        HOST="no-such-host.invalid",
        PORT=port,
    )

    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(f"python -m api: cannot listen on no-such-host.invalid:{port}: ")
    assert done.stdout == ""  # no banner, no key
    assert not (tmp_path / "var").exists()


def test_python_m_api_refuses_a_port_another_server_holds_before_any_key(tmp_path):
    with socket.socket() as holder:
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = _refused_start(
            tmp_path,
            LEDGER_STORE="sqlite",
            LEDGER_SQLITE_PATH="./var/ledger.sqlite3",
            HOST="127.0.0.1",
            PORT=str(port),
        )

    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        f"python -m api: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    )
    assert done.stdout == ""  # no banner pointing clients at another server, no key
    assert not (tmp_path / "var").exists()
