"""Figure: HTTP load. Full casino rounds played through gunicorn on PostgreSQL by a load
generator on loopback, beside ``GET /health`` served by the same server in the same run.

The server is ``gunicorn.conf.py`` as shipped (``WEB_CONCURRENCY`` workers, gthread), started
as a real process on a free port. The load generator is ``threads`` threads in this process,
each with its own keep-alive ``http.client`` connection, its own casino table and player, and
no pause between requests (a closed loop: every thread has one request in flight). An action
is one HTTP request of a round: starting it, a stake, a stand. The baseline is the same threads
calling ``/health`` (one ``SELECT max(id)`` on the store) for the same kind of stretch.

``GunicornServer``, ``Client`` and ``play_casino_round`` are also what the end-to-end tests in
``tests/e2e`` drive a real server with, so the harness this figure relies on is tested.
"""

from __future__ import annotations

import http.client
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

from benchmarks.common import emit, note, postgres_unreachable, store

REPO = Path(__file__).resolve().parent.parent
CONFIG = REPO / "gunicorn.conf.py"
TARGET = {"min_ratio": 0.3}  # actions/s at least 0.3 of the trivial endpoint's requests/s
P99_TARGET_MS = 50.0
STAKE = 200
CYCLES = 5  # stretches of health checks and of rounds, alternating
_LISTENING = re.compile(r"Listening at: (http://\S+)")


class ServerError(RuntimeError):
    pass


class GunicornServer:
    """gunicorn with the repository's config on a free loopback port (``PORT=0``; the port is
    read back from gunicorn's log). ``environ`` is layered over this process's environment;
    ``argv`` may start it another way (``python -m api``), ``cwd`` elsewhere."""

    def __init__(
        self,
        environ: Mapping[str, str],
        log_path: Path,
        *,
        argv: list[str] | None = None,
        cwd: Path = REPO,
        start_timeout: float = 30.0,
    ):
        self.environ = {**os.environ, "HOST": "127.0.0.1", "PORT": "0", **environ}
        self.argv = argv or [sys.executable, "-m", "gunicorn", "--config", str(CONFIG)]
        self.cwd = cwd
        self.log_path = Path(log_path)
        self.start_timeout = start_timeout
        self.process: subprocess.Popen | None = None
        self.url = ""
        self.clients: list[Client] = []

    def client(self, key: str | None = None) -> Client:
        """A client of this server, closed when the server stops."""
        made = Client(self.url, key)
        self.clients.append(made)
        return made

    def __enter__(self) -> GunicornServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def start(self) -> str:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                env=self.environ,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + self.start_timeout
        try:
            while not self.url:
                self._alive_before(deadline)
                found = _LISTENING.search(self.log())
                self.url = found.group(1) if found else ""
                time.sleep(0.05)
            while not self._healthy():
                self._alive_before(deadline)
                time.sleep(0.1)
        except BaseException:
            self.stop()
            raise
        return self.url

    def _alive_before(self, deadline: float) -> None:
        assert self.process is not None
        if self.process.poll() is not None:
            raise ServerError(f"gunicorn exited ({self.process.returncode}):\n{self.log()[-3000:]}")
        if time.monotonic() > deadline:
            raise ServerError(
                f"gunicorn not ready in {self.start_timeout} s:\n{self.log()[-3000:]}"
            )

    def _healthy(self) -> bool:
        probe = Client(self.url, timeout=2)
        try:
            return probe.call("GET", "/health")[0] == 200
        except OSError:
            return False
        finally:
            probe.close()

    def stop(self, timeout: float = 20.0) -> int | None:
        """SIGTERM (gunicorn's graceful stop), then SIGKILL if it overstays; the exit code."""
        for client in self.clients:
            client.close()
        process = self.process
        if process is None:
            return None
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        return process.returncode


class HttpError(AssertionError):
    def __init__(self, method: str, path: str, status: int, body: Any):
        super().__init__(f"{method} {path} -> {status}: {body}")
        self.status, self.body = status, body


class _Line:
    """One keep-alive connection, which several clients (keys) may share."""

    def __init__(self) -> None:
        self.conn: http.client.HTTPConnection | None = None
        self.used = 0.0


class Client:
    """JSON over one keep-alive connection; every request's latency is kept in ``latencies``.

    A connection idle for longer than the server keeps it (gunicorn's ``keepalive``) is
    replaced before use; one that the server closed anyway is re-sent on a new connection only
    when that is safe: a GET, or a POST carrying an ``Idempotency-Key``."""

    IDLE = 3.0  # seconds; below gunicorn.conf.py's keepalive of 5

    def __init__(
        self,
        base_url: str,
        key: str | None = None,
        timeout: float = 10.0,
        line: _Line | None = None,
    ):
        parts = urlsplit(base_url)
        self.base_url = base_url
        self.host, self.port, self.key, self.timeout = parts.hostname, parts.port, key, timeout
        self.line = line or _Line()
        self.latencies: list[float] = []
        self.last_headers: dict[str, str] = {}

    def sharing(self, key: str | None = None) -> Client:
        """A client with its own key and latencies on this client's connection."""
        return Client(self.base_url, key, self.timeout, self.line)

    def close(self) -> None:
        if self.line.conn is not None:
            self.line.conn.close()
            self.line.conn = None

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        expect: int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> tuple[int, Any]:
        sent = {"Accept": "application/json", **(headers or {})}
        if self.key:
            sent.setdefault("Authorization", f"Bearer {self.key}")
        # orjson: the load generator shares the machine's two cores with the server, so its
        # own CPU per request is kept small (it parses every round's view)
        data = None if body is None else orjson.dumps(body)
        if data is not None:
            sent["Content-Type"] = "application/json"
        retry_safe = method == "GET" or "Idempotency-Key" in sent
        line = self.line
        for attempt in (1, 2):
            if line.conn is not None and time.monotonic() - line.used > self.IDLE:
                self.close()
            if line.conn is None:
                line.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            started = time.perf_counter()
            try:
                line.conn.request(method, path, body=data, headers=sent)
                response = line.conn.getresponse()
                raw = response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.close()
                if attempt == 2 or not retry_safe:
                    raise
                continue
            self.latencies.append(time.perf_counter() - started)
            line.used = time.monotonic()
            self.last_headers = dict(response.getheaders())
            out = orjson.loads(raw) if raw else None
            if expect is not None and response.status != expect:
                raise HttpError(method, path, response.status, out)
            return response.status, out
        raise AssertionError("unreachable")  # pragma: no cover

    def post(self, path: str, body: Any = None, expect: int = 200, **kw: Any) -> Any:
        return self.call("POST", path, {} if body is None else body, expect=expect, **kw)[1]

    def get(self, path: str, expect: int = 200) -> Any:
        return self.call("GET", path, expect=expect)[1]


def play_casino_round(dealer: Client, players: Mapping[str, Client], table_id: str) -> dict:
    """One round at a casino table without insurance, whatever the shoe deals: every seated
    player (``players``: player id -> that player's client) stakes, every hand stands when
    its turn comes, the house plays itself. Returns the final view of the round."""
    view = dealer.post(f"/v1/tables/{table_id}/rounds", expect=201)
    actions = f"/v1/rounds/{view['round_id']}/actions"
    for client in players.values():
        view = client.post(actions, {"action": "stake", "amount": STAKE})["round"]
    for _ in range(4 * len(players) + 4):  # every stand closes a hand: bounded
        if view["ended"]:
            return view
        turn = view["current_turn"]
        if turn is None:
            raise AssertionError(f"round waits in phase {view['phase']!r} with no turn")
        owner = next(h["player"] for h in view["hands"] if h["id"] == turn)
        view = players[owner].post(actions, {"action": "stand", "hand": turn})["round"]
    raise AssertionError(f"round {view['round_id']} did not end: {view}")


# -- the figure ----------------------------------------------------------------------------


def _server_environ(env: Mapping[str, str]) -> dict[str, str]:
    postgres = {k: v for k, v in env.items() if k.startswith("POSTGRES_")}
    return {"LEDGER_STORE": "postgres", "ACCESS_LOG": "off", **postgres}


def _casino_seat(server: GunicornServer, admin: Client, keys: Any, n: int) -> tuple:
    """A table with one funded player in seat 1; the dealer's and the player's clients."""
    tid = admin.post("/v1/tables", {"family": "casino", "options": {"insurance": False}}, 201)
    pid = admin.post("/v1/players", {"name": f"load {n}"}, 201)["player_id"]
    admin.post(f"/v1/players/{pid}/deposits", {"amount": 10**9})
    player = server.client(keys.create_key("player", pid, "load")[0])
    player.post(f"/v1/tables/{tid['table_id']}/seats", {"player_id": pid, "seat": 1}, 201)
    dealer = server.client(keys.create_key("dealer", None, "load")[0])
    return tid["table_id"], dealer, {pid: player}


def _run_threads(work: Any, count: int, seconds: float) -> tuple[float, list[str]]:
    """Run ``work(i, stop_at)`` in ``count`` threads; wall time and the errors raised."""
    errors: list[str] = []

    def run(i: int) -> None:
        try:
            work(i, stop_at)
        except Exception as error:  # noqa: BLE001 - reported in the figure, not raised
            errors.append(f"{type(error).__name__}: {error}"[:300])

    started = time.perf_counter()
    stop_at = time.monotonic() + seconds
    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + 30)
    return time.perf_counter() - started, errors


def _ms(latencies: list[float], q: float) -> float | None:
    """The ``q`` quantile in milliseconds (0.5: the median, 0.99: p99)."""
    if len(latencies) < 2:
        return round(latencies[0] * 1000, 2) if latencies else None
    cut = statistics.quantiles(latencies, n=100, method="inclusive")[round(q * 100) - 1]
    return round(cut * 1000, 2)


def bench_http(quick: bool, threads: int = 4) -> dict | None:
    health_s, rounds_s = (1.5, 3.0) if quick else (8.0, 20.0)
    reason = postgres_unreachable()
    if reason is not None:
        note(f"HTTP load skipped, PostgreSQL unreachable: {reason}")
        skipped = f"PostgreSQL unreachable: {reason}"
        emit("http_actions_per_s_postgres", None, "actions/s", None, target=TARGET, skipped=skipped)
        return None
    from api.store import ApiStore

    with store("postgres") as env, tempfile.TemporaryDirectory(prefix="ledger-http-") as tmp:
        keys = ApiStore(env={**env, "POSTGRES_POOL_SIZE": "1"})
        try:
            admin_key = keys.create_key("admin", None, "http load")[0]
            with GunicornServer(_server_environ(env), Path(tmp) / "gunicorn.log") as server:
                note(f"HTTP load: gunicorn at {server.url}, {threads} client threads")
                admin = server.client(admin_key)
                seats = [_casino_seat(server, admin, keys, n) for n in range(threads)]
                # The health checks go over the very connections the rounds use, in the
                # proportions a round uses them (its dealer's once, for the start; its player's
                # twice, for the stake and the stand): gunicorn's workers race to accept
                # connections, and how they fall across the workers moved the baseline by half
                # either way from run to run. Sharing them, both sides of the ratio get the
                # same draw.
                health = [
                    [dealer.sharing(), *(p.sharing() for p in players.values() for _ in "12")]
                    for _, dealer, players in seats
                ]
                for i, (tid, dealer, players) in enumerate(seats):  # warm every connection
                    play_casino_round(dealer, players, tid)
                    for client in health[i]:
                        client.get("/health")
                lines = [c for s in seats for c in (s[1], *s[2].values())]
                for client in [*(c for h in health for c in h), *lines]:
                    client.latencies.clear()

                def ping(i: int, stop_at: float) -> None:
                    sharing = health[i]
                    n = 0
                    while time.monotonic() < stop_at:
                        sharing[n % len(sharing)].get("/health")
                        n += 1

                rounds = [0] * threads

                def play(i: int, stop_at: float) -> None:
                    tid, dealer, players = seats[i]
                    while time.monotonic() < stop_at:
                        play_casino_round(dealer, players, tid)
                        rounds[i] += 1

                # Interleaved in short stretches, so that a change of the machine's speed
                # during the run (this kind of machine has them) falls on both sides alike.
                health_wall = rounds_wall = 0.0
                health_errors, round_errors = [], []
                for _ in range(CYCLES):
                    wall, errors = _run_threads(ping, threads, health_s / CYCLES)
                    health_wall, health_errors = health_wall + wall, health_errors + errors
                    wall, errors = _run_threads(play, threads, rounds_s / CYCLES)
                    rounds_wall, round_errors = rounds_wall + wall, round_errors + errors
                workers = server.environ.get("WEB_CONCURRENCY", "2 (gunicorn.conf.py)")
        finally:
            keys.close()
    pings = [x for h in health for c in h for x in c.latencies]
    acts = [x for s in seats for c in (s[1], *s[2].values()) for x in c.latencies]
    health_rate, action_rate = len(pings) / health_wall, len(acts) / rounds_wall
    p99 = _ms(acts, 0.99)
    detail = {
        "actions": len(acts),
        "rounds": sum(rounds),
        "seconds": round(rounds_wall, 2),
        "p50_ms": _ms(acts, 0.5),
        "p99_ms": p99,
        "p99_target_ms": P99_TARGET_MS,
        "p99_met": p99 is not None and p99 < P99_TARGET_MS,
        "health_requests": len(pings),
        "health_seconds": round(health_wall, 2),
        "health_p50_ms": _ms(pings, 0.5),
        "health_p99_ms": _ms(pings, 0.99),
        "client_threads": threads,
        "workers": workers,
        "access_log": "off (both endpoints)",
        "errors": (health_errors + round_errors)[:5],
        "baseline": "GET /health on the same server, same threads, over the same keep-alive"
        " connections as the rounds in the same proportions (dealer's 1, player's 2), in"
        f" {CYCLES} stretches alternating with the rounds'",
        "action": "one HTTP request of a casino round: start, stake, stand (1 player/table)",
    }
    return emit(
        "http_actions_per_s_postgres",
        action_rate,
        "actions/s",
        health_rate,
        target=TARGET,
        detail=detail,
    )
