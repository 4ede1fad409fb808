"""Figure: HTTP load. Full casino rounds played through gunicorn on PostgreSQL by a load
generator on loopback, beside ``GET /health`` served by the same server in the same run.

The server is ``gunicorn.conf.py`` as shipped (``WEB_CONCURRENCY`` workers, gthread), started
as a real process on a free port. The load generator is ``threads`` threads in this process,
each with its own keep-alive ``http.client`` connection, its own casino table and player, and
no pause between requests (a closed loop: every thread has one request in flight). An action
is one HTTP request of a round: starting it, a stake, a stand. The baseline is the same threads
calling ``/health`` (one ``SELECT max(id)`` on the store) for the same kind of stretch.

The server (``benchmarks.server``), the client and the round it plays (``benchmarks.client``)
are also what the end-to-end and browser tests drive a real server with, so the harness this
figure relies on is tested.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from benchmarks.client import Client, play_casino_round
from benchmarks.common import emit, note, postgres_unreachable, store
from benchmarks.server import GunicornServer

TARGET = {"min_ratio": 0.3}  # actions/s at least 0.3 of the trivial endpoint's requests/s
P99_TARGET_MS = 50.0
CYCLES = 5  # stretches of health checks and of rounds, alternating


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
