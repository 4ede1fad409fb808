"""API workers and projector workers, each in its own process on one PostgreSQL schema, stay
consistent.

gunicorn (3 workers) serves the API with ``LEDGER_PROJECTIONS=external``, so no API process
ever folds an event; ``python -m replay project`` worker processes do. Two casino tables are
played at once, a client thread each. After every write the thread reads the bankroll, the
player's and the table's round history or the round's trail with ``?position=<the write's
position>`` on another connection, and must see that write: read-your-writes across processes.

At the end the projectors stop on SIGTERM with status 0, and a ledger opened here checks the
read models against the store: every projection stands at the head, the projected balances
equal ``fold_balances`` and sum to zero, and every view table holds exactly the rows of a
from-scratch build into a second schema, one event per batch (so two projectors at once counted
nothing twice, and where a batch ends changes nothing). Last, projector workers started at the
same moment must each open the store.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from postgres_schemas import create_schema, drop_schema

from benchmarks.client import Client, HttpError
from benchmarks.server import REPO
from ledger import accounts
from ledger.application import TwentyOneLedger
from ledger.balances import fold_balances
from replay.projections import Projections, open_projections
from replay.projections.postgres_views import PostgresViews
from replay.store import open_ledger

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.parametrize("store_env", ["postgres"], indirect=True),
]

ROUNDS = 3  # per table
SEATS = 2  # per table
STAKE = 500
DEPOSIT = 50_000
POLL = "0.05"  # seconds between the projector's looks at the log
# How long an API read waits for the projectors: generous, yet under the client's 10 s
# timeout, so a projector that fell behind shows as a 503 with its lag, not a socket timeout.
WAIT_MS = "8000"
START = 30.0  # seconds a projector worker may take to start folding
WORKERS_AT_ONCE = 12  # the more start together, the likelier a collision in the catalogue


# --- processes --------------------------------------------------------------------------------


class ProjectorWorker:
    """``python -m replay project --poll 0.05`` in its own process, its output in a file."""

    def __init__(self, environ: Mapping[str, str], log_path: Path) -> None:
        self.log_path = log_path
        with log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "replay", "project", "--poll", POLL],
                cwd=REPO,
                env={**os.environ, **environ},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def reports(self) -> list[dict[str, Any]]:
        """The progress lines it printed (one JSON document per catch-up that moved)."""
        return [json.loads(line) for line in self.log().splitlines() if line.startswith("{")]

    def stop(self, timeout: float = 20.0) -> int:
        """SIGTERM, then its exit status; SIGKILL (and a failure) if it overstays."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
            raise AssertionError(f"the projector ignored SIGTERM:\n{self.log()[-3000:]}") from None


@pytest.fixture
def projectors(tmp_path: Path) -> Iterator[Callable[[Mapping[str, str]], ProjectorWorker]]:
    """``projectors(environ)`` starts a projector worker; any still running at the end is
    killed (and its log printed for a failing test)."""
    started: list[ProjectorWorker] = []

    def start(environ: Mapping[str, str]) -> ProjectorWorker:
        worker = ProjectorWorker(environ, tmp_path / f"projector-{len(started)}.log")
        started.append(worker)
        return worker

    yield start
    for worker in started:
        if worker.process.poll() is None:
            worker.process.kill()
            worker.process.wait(10)
        print(worker.log()[-3000:])


@pytest.fixture
def second_schema(store_env: dict[str, str]) -> Iterator[str]:
    """An empty schema beside the test's, for a from-scratch build of the read models."""
    name = create_schema(f"{store_env['POSTGRES_SCHEMA']}_rebuilt")
    try:
        yield name
    finally:
        drop_schema(name)


# --- playing, and reading one's own writes ----------------------------------------------------


def post_retrying(client: Client, path: str, body: dict, expect: int = 200) -> dict:
    """A POST another worker's write may beat (409 concurrent-update, nothing written)."""
    for _ in range(50):
        status, out = client.call("POST", path, body)
        if status == 409 and out["type"].endswith("/concurrent-update"):
            time.sleep(0.005)
            continue
        if status != expect:
            raise HttpError("POST", path, status, out)
        return out
    raise AssertionError(f"POST {path} lost 50 races in a row")


def read_at(reader: Client, path: str, position: int, query: str = "") -> dict:
    """A read that must see the write at ``position`` (no 503: the wait is long)."""
    status, body = reader.call("GET", f"{path}?position={position}{query}")
    assert status == 200, (path, position, status, body)
    assert body["projected_to"] >= position, (path, position, body)
    return body


def wait_until_folded(admin: Client, made: dict, worker: ProjectorWorker) -> None:
    """Until the read models have reached a write (a worker has started and folded it)."""
    path = f"/v1/players/{made['player_id']}/bankroll?position={made['position']}"
    deadline = time.monotonic() + START
    while (status := admin.call("GET", path)[0]) != 200:
        assert status == 503, status
        assert worker.process.poll() is None, f"the projector exited:\n{worker.log()[-3000:]}"
        assert time.monotonic() < deadline, f"no projector folded in {START} s:\n{worker.log()}"


class TablePlayer:
    """One client thread's table: it opens the table, registers and funds its players, plays
    ``ROUNDS`` casino rounds (stake, then stand each hand in turn), and after every write
    reads it back through the read models."""

    def __init__(self, server: Any, keys: Any, name: str) -> None:
        self.server, self.keys, self.name = server, keys, name
        self.admin = server.client(keys.create_key("admin")[0])
        # Reads on their own connections: likely another worker than the write's.
        self.reader = server.client(keys.create_key("auditor")[0])
        self.dealer = server.client(keys.create_key("dealer")[0])
        self.players: dict[str, Client] = {}
        self.table_id = ""
        self.round_ids: list[str] = []
        self.reads = 0

    def read(self, path: str, position: int, query: str = "") -> dict:
        self.reads += 1
        return read_at(self.reader, path, position, query)

    def run(self) -> None:
        body = {"family": "casino", "options": {"insurance": False}, "name": self.name}
        self.table_id = self.admin.post("/v1/tables", body, 201)["table_id"]
        for seat in range(1, SEATS + 1):
            made = self.admin.post("/v1/players", {"name": f"{self.name} {seat}"}, 201)
            pid = made["player_id"]
            done = self.admin.post(f"/v1/players/{pid}/deposits", {"amount": DEPOSIT})
            bankroll = self.read(f"/v1/players/{pid}/bankroll", done["position"])
            assert bankroll["balance"] == DEPOSIT
            # The write's last event is the admin key's ActedFor, just after the transfer.
            assert bankroll["movements"][-1]["position"] == done["position"] - 1
            client = self.server.client(self.keys.create_key("player", pid)[0])
            client.post(f"/v1/tables/{self.table_id}/seats", {"player_id": pid, "seat": seat}, 201)
            self.players[pid] = client
        for number in range(1, ROUNDS + 1):
            self.play_round(number)

    def play_round(self, number: int) -> None:
        view = post_retrying(self.dealer, f"/v1/tables/{self.table_id}/rounds", {}, expect=201)
        rid = view["round_id"]
        self.round_ids.append(rid)
        [listed] = self.read(
            f"/v1/tables/{self.table_id}/rounds", view["position"], f"&after={number - 1}"
        )["rounds"]
        assert (listed["round_id"], listed["number"], listed["status"]) == (rid, number, "open")

        actions = f"/v1/rounds/{rid}/actions"
        for pid, client in self.players.items():
            out = post_retrying(client, actions, {"action": "stake", "amount": STAKE})
            view = out["round"]
            bankroll = self.read(f"/v1/players/{pid}/bankroll", out["position"], "&limit=1000")
            escrow = accounts.escrow(rid)
            moved = [m for m in bankroll["movements"] if m["round_id"] == rid]
            assert [(m["change"], m["to_account"]) for m in moved if m["change"] < 0] == [
                (-STAKE, escrow)
            ], bankroll
            # What the wallet has in the round's escrow: the stake, less what a natural paid
            # at once (CB-4) released; nothing once the round has ended.
            in_escrow = sum(m["amount"] for m in moved if m["to_account"] == escrow) - sum(
                m["amount"] for m in moved if m["from_account"] == escrow
            )
            assert bankroll["held"] == (0 if view["ended"] else in_escrow), (out, bankroll)

        for _ in range(4 * SEATS + 4):  # every stand closes a hand: bounded
            if view["ended"]:
                break
            turn = view["current_turn"]
            owner = next(h["player"] for h in view["hands"] if h["id"] == turn)
            out = post_retrying(self.players[owner], actions, {"action": "stand", "hand": turn})
            view = out["round"]
            trail = self.read(f"/v1/rounds/{rid}/trail", out["position"])
            stood = [e for e in trail["entries"] if e["type"] == "Round.HandStood"]
            assert turn in {e["hand"] for e in stood}, trail
        assert view["ended"], view
        self.check_round_ended(rid, number, view, out["position"])

    def check_round_ended(self, rid: str, number: int, view: dict, position: int) -> None:
        [listed] = self.read(
            f"/v1/tables/{self.table_id}/rounds", position, f"&after={number - 1}&limit=1"
        )["rounds"]
        assert (listed["round_id"], listed["status"]) == (rid, "ended")
        assert listed["settled"] == listed["hands"] == len(view["hands"])
        trail = self.read(f"/v1/rounds/{rid}/trail", position)
        own = [e for e in trail["entries"] if e["stream"] == rid]
        assert [e["version"] for e in own] == list(range(1, len(own) + 1))
        assert own[-1]["type"] == "Round.Ended"
        for pid in self.players:
            net = sum(h["result"] for h in view["hands"] if h["player"] == pid)
            mine = self.read(f"/v1/players/{pid}/rounds", position, "&limit=1000")["rounds"]
            assert [r["round_id"] for r in mine] == self.round_ids
            assert (mine[-1]["status"], mine[-1]["net"], mine[-1]["staked"]) == (
                "ended",
                net,
                STAKE,
            )
            bankroll = self.read(f"/v1/players/{pid}/bankroll", position, "&limit=1000")
            assert bankroll["held"] == 0
            # Nobody else writes to this wallet: the projection equals the live aggregate.
            assert bankroll["balance"] == self.admin.get(f"/v1/players/{pid}")["balance"]
            assert sum(m["change"] for m in bankroll["movements"]) == bankroll["balance"]


def play_tables(server: Any, keys: Any, count: int = 2) -> list[TablePlayer]:
    """``count`` tables played at once, a thread each; the first error is raised here."""
    tables = [TablePlayer(server, keys, f"table {n}") for n in range(1, count + 1)]
    errors: list[BaseException] = []

    def run(table: TablePlayer) -> None:
        try:
            table.run()
        except BaseException as error:  # noqa: BLE001 - re-raised by the main thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(t,), daemon=True) for t in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(45)
    if errors:
        raise errors[0]
    assert not any(t.is_alive() for t in threads), "a client thread hung"
    return tables


# --- what the store and the read models must agree on -----------------------------------------


def view_rows(projections: Projections) -> dict[str, list[tuple]]:
    """Every row of every view table (and the tracking positions), sorted."""
    tables = [t for p in projections.projectors for t in p.tables] + ["view_projections"]
    return {t: sorted(projections.views.read(f"SELECT * FROM {t}"), key=repr) for t in tables}


def check_read_models(store_env: dict[str, str], rebuilt_schema: str, tables) -> None:
    ledger = TwentyOneLedger(env=store_env)
    projections = open_projections(ledger, store_env)
    rebuilt = Projections(ledger, PostgresViews({**store_env, "POSTGRES_SCHEMA": rebuilt_schema}))
    try:
        head = ledger.recorder.max_notification_id()
        assert head and projections.positions() == dict.fromkeys(projections.names(), head)

        projected = dict(projections.views.read("SELECT account, balance FROM view_accounts"))
        books = fold_balances(ledger)
        assert projected == books
        assert sum(projected.values()) == 0
        for table in tables:
            for rid in table.round_ids:
                assert projected[accounts.escrow(rid)] == 0

        # A from-scratch build into an empty schema, one event per batch (so every batch
        # boundary the workers could have met is met): the same rows, whatever the batching.
        rebuilt.batch = 1
        assert rebuilt.catch_up() == head
        incremental, scratch = view_rows(projections), view_rows(rebuilt)
        assert incremental["view_rounds"] and incremental["view_movements"]
        differ = {
            name: {"projected only": sorted(set(rows) - set(scratch[name]), key=repr)[:5],
                   "rebuilt only": sorted(set(scratch[name]) - set(rows), key=repr)[:5]}
            for name, rows in incremental.items()
            if rows != scratch[name]
        }  # fmt: skip
        assert not differ, f"the worker-built rows differ from a rebuild: {differ}"
    finally:
        rebuilt.close()
        projections.close()
        ledger.close()


def environ_for(store_env: dict[str, str]) -> dict[str, str]:
    return {
        "LEDGER_STORE": "postgres",
        **{k: v for k, v in store_env.items() if k.startswith("POSTGRES_")},
        "POSTGRES_POOL_SIZE": "2",
        "LEDGER_PROJECTIONS": "external",
        "LEDGER_PROJECTION_WAIT_MS": WAIT_MS,
    }


def run_scenario(store_env, serve, projectors, second_schema, workers: int) -> None:
    from api.store import ApiStore

    environ = environ_for(store_env)
    keys = ApiStore(env=store_env)
    try:
        server = serve({**environ, "WEB_CONCURRENCY": "3", "GUNICORN_THREADS": "2"})
        # Started after gunicorn's master has created the store's tables, and one after the
        # other (a worker's first write is read back before the next starts): projectors
        # opening the store at the same moment is the last test's subject.
        admin = server.client(keys.create_key("admin")[0])
        running = []
        for n in range(workers):
            running.append(projectors(environ))
            made = admin.post("/v1/players", {"name": f"warm-up {n}"}, 201)
            wait_until_folded(admin, made, running[-1])
        tables = play_tables(server, keys)
        assert all(t.reads >= 10 for t in tables)
        assert server.stop() == 0, server.log()[-3000:]
        for worker in running:
            assert worker.stop() == 0, worker.log()[-3000:]
            assert "Traceback" not in worker.log(), worker.log()[-3000:]
        # Each worker folded some of the events: they really did run at once.
        assert all(worker.reports() for worker in running), [w.log()[-500:] for w in running]
    finally:
        keys.close()
    check_read_models(store_env, second_schema, tables)


def test_api_workers_read_their_writes_through_a_projector_process(
    store_env, serve, projectors, second_schema
):
    run_scenario(store_env, serve, projectors, second_schema, workers=1)


def test_two_projector_processes_at_once_count_nothing_twice(
    store_env, serve, projectors, second_schema
):
    run_scenario(store_env, serve, projectors, second_schema, workers=2)


def test_projector_workers_started_together_all_open_the_store(store_env):
    """``python -m replay project`` says several workers may run at once; started together
    (a deployment scaling them out), each must open the store. They open it as
    ``replay.store.open_ledger`` does; threads released by a barrier make "together" exact
    (each application has its own connections, as a process would)."""
    TwentyOneLedger(env=store_env).close()  # the store's tables exist, as once the API ran
    for _ in range(10):  # a collision is likely, not certain, in any one start
        barrier = threading.Barrier(WORKERS_AT_ONCE, timeout=30)
        failures: list[BaseException] = []

        def start(barrier: threading.Barrier, failures: list[BaseException]) -> None:
            barrier.wait()
            try:
                open_ledger(store_env).close()
            except Exception as error:  # noqa: BLE001 - reported below
                failures.append(error)

        threads = [
            threading.Thread(target=start, args=(barrier, failures), daemon=True)
            for _ in range(WORKERS_AT_ONCE)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert not failures, f"a projector worker failed to start: {failures[0]!r}"
