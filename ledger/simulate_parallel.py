"""The simulator over several processes (``Settings.workers``), for runs long enough that the
machine's other cores are worth having: each worker opens its own application on the store
the run names, plays its share of the rounds at a table of its own through the same commands
as ``ledger.simulate.run``, and the tallies are added up.

On the in-memory store each worker's events are in that worker's own store (gone with it, as
one process's are at its end); on SQLite and PostgreSQL they are all in the one store, one
table per worker.

A seeded run stays reproducible: worker ``i`` of ``W`` takes its shoes from a seed made from
the run's seed and ``i`` (``share_seed``), so the same seed and the same number of workers
give the same figures. They differ from one process's figures for that seed (other shoes)."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

from ledger.application import TwentyOneLedger
from ledger.config import store_kind
from ledger.parallel import even_shares, run_together
from ledger.simulate import Settings, play_rounds, setup_table
from ledger.simulate_tally import Tally, report


def share_seed(seed: int | None, index: int) -> int | None:
    """Worker ``index``'s seed: 64 bits of SHA-256 over the run's seed and the index, so no
    two workers' shoes (nor two runs' with different seeds) follow one another."""
    if seed is None:
        return None
    digest = hashlib.sha256(f"twenty-one-ledger simulate {seed} {index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def shares(s: Settings) -> list[Settings]:
    """The run cut into ``s.workers`` runs of one process each, the rounds as even as they go."""
    return [
        replace(s, rounds=rounds, seed=share_seed(s.seed, index), workers=1)
        for index, rounds in enumerate(even_shares(s.rounds, s.workers))
    ]


def run_parallel(
    s: Settings, env: dict[str, str], progress: Any = None, *, store_ready: bool = False
) -> dict[str, Any]:
    """``ledger.simulate.run`` spread over ``s.workers`` processes, each with its own
    application on the store ``env`` names (as ``TwentyOneLedger(env=env)`` takes it).
    ``progress(n)`` hears the rounds played so far by all of them. The time runs from the
    moment every worker has its table set up to the last one's result. ``store_ready``: the
    caller has opened an application on the store already (its tables are there)."""
    if not store_ready:
        # The store made ready (its tables; a SQLite file and its journal mode) once, here:
        # two workers doing it at once lock each other out of a new SQLite file.
        TwentyOneLedger(env=env).close()
    env = worker_env(env)
    results, seconds = run_together(_play_share, [(share, env) for share in shares(s)], progress)
    tally, events = Tally(), 0
    for part, written, _ in results:
        tally.add(part)
        events += written
    return report(tally, seconds, events) | {"table_ids": [table for *_, table in results]}


def worker_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` for one worker. A worker plays in one thread, so on PostgreSQL its pools keep
    one connection each (and may open one more), unless the run's settings say otherwise:
    eventsourcing's default of 5 + 10 for each of a worker's two applications (ledger and shoe
    vault) would take a server's 100 connections from 8 workers on."""
    if store_kind(env) != "postgres":
        return env
    return {"POSTGRES_POOL_SIZE": "1", "POSTGRES_MAX_OVERFLOW": "1", **env}


def _play_share(share: tuple[Settings, dict[str, str]], ready: Any, tick: Any) -> tuple:
    s, env = share
    app = TwentyOneLedger(env=env)
    try:
        table, view = setup_table(s, app)
        ready()
        return (*play_rounds(app, table, view, s, lambda _: tick(1)), table)
    finally:
        app.close()
