"""What every benchmark shares: how a figure is printed, the stores, and the sizes.

A figure is ONE JSON line on stdout::

    {"name": ..., "value": ..., "unit": ..., "baseline": ..., "ratio": value / baseline, ...}

with the baseline measured in the same run, and optionally ``target`` (what the ratio or the
value should be), ``met`` (whether it is) and ``detail``. Progress notes go to stderr.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from uuid import UUID

from ledger.application import TwentyOneLedger
from ledger.config import store_env
from ledger.settings import env_bool

STORES = ("memory", "sqlite", "postgres")
SEED = 20_210  # every simulated run is seeded: the same cards in every store and every run

# Targets from the issue. A figure without one prints "target": null.
TARGETS: dict[str, dict[str, float]] = {
    # Loading a table or a round after 10⁴ rounds of history: at most twice the time after 10².
    "load": {"max_ratio": 2.0},
    # PostgreSQL appends: at least half the rate of the same rows through plain psycopg.
    "postgres_append": {"min_ratio": 0.5},
    # The simulator on memory, one-player casino, every event recorded: 5,000 rounds/s (the
    # moonshot: as fast as Gymnasium's hands/s, ratio 1).
    "simulator": {"min_value": 5000.0, "moonshot_ratio": 1.0},
    # Rebuilding the read models from 10⁶ events: at least half the rate of just reading and
    # decoding the same rows.
    "rebuild": {"min_ratio": 0.5},
}


def quick() -> bool:
    """BENCH_QUICK=1: tiny sizes, for the smoke test (the figures then mean little)."""
    return env_bool("BENCH_QUICK", False)


def note(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def emit(
    name: str,
    value: float | None,
    unit: str,
    baseline: float | None,
    *,
    target: dict[str, float] | None = None,
    detail: dict[str, Any] | None = None,
    out: Callable[[str], None] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    ratio = value / baseline if value is not None and baseline else None
    line: dict[str, Any] = {
        "name": name,
        "value": _round(value),
        "unit": unit,
        "baseline": _round(baseline),
        "ratio": _round(ratio, 4),
        "target": target,
    }
    if target is not None and (ratio is not None or "min_value" in target):
        line["met"] = (
            (ratio is None or ratio <= target.get("max_ratio", float("inf")))
            and (ratio is None or ratio >= target.get("min_ratio", float("-inf")))
            and (value is not None and value >= target.get("min_value", float("-inf")))
        )
    line.update(extra)
    if detail:
        line["detail"] = detail
    (out or _print)(json.dumps(line))
    return line


def _print(text: str) -> None:
    print(text, flush=True)


def _round(x: float | None, digits: int = 6) -> float | None:
    if x is None:
        return None
    return float(f"{x:.{digits}g}")


class CountingLedger(TwentyOneLedger):
    """The ledger, noting how many events each command saved (one save = one transaction), so
    a baseline can insert the same rows in the same transaction shape."""

    def __init__(self, env: dict[str, Any] | None = None) -> None:
        super().__init__(env)
        self.batches: list[int] = []

    def save(self, *objs: Any, **kwargs: Any) -> Any:
        recordings = super().save(*objs, **kwargs)
        if recordings:
            self.batches.append(len(recordings))
        return recordings


# -- stores --------------------------------------------------------------------------------


def postgres_params(env: dict[str, str]) -> dict[str, Any]:
    return {
        "host": env["POSTGRES_HOST"],
        "port": int(env["POSTGRES_PORT"]),
        "dbname": env["POSTGRES_DBNAME"],
        "user": env["POSTGRES_USER"],
        "password": env["POSTGRES_PASSWORD"],
    }


def postgres_unreachable() -> str | None:
    """Why PostgreSQL cannot be used (None when it answers)."""
    import psycopg

    env = store_env("postgres")
    try:
        with psycopg.connect(**postgres_params(env), connect_timeout=2) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as error:
        return str(error).strip() or type(error).__name__
    return None


@contextmanager
def store(kind: str) -> Iterator[dict[str, str]]:
    """A fresh, empty store: memory; SQLite in a temporary directory; PostgreSQL in a scratch
    schema dropped afterwards (close every application on it before leaving the block)."""
    if kind == "memory":
        yield store_env("memory", environ={})
    elif kind == "sqlite":
        with tempfile.TemporaryDirectory(prefix="ledger-bench-") as scratch:
            yield store_env("sqlite", sqlite_path=str(Path(scratch) / "bench.sqlite3"), environ={})
    elif kind == "postgres":
        import psycopg
        from psycopg import sql

        schema = f"bench_{uuid.uuid4().hex[:10]}"
        env = store_env("postgres", environ={**os.environ, "POSTGRES_SCHEMA": schema})
        params = postgres_params(env)
        with psycopg.connect(**params, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        try:
            yield env
        finally:
            with psycopg.connect(**params, autocommit=True) as conn:
                conn.execute("SET lock_timeout = '10s'")
                conn.execute(
                    sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
                )
    else:  # pragma: no cover
        raise ValueError(f"unknown store {kind!r}")


# -- timing --------------------------------------------------------------------------------


def cold_load_seconds(
    app: TwentyOneLedger, aggregate_id: str, load: Callable[[], Any], repeats: int
) -> float:
    """Median time of ``load()`` with the aggregate evicted from the application's cache
    first, so every load reads the store (snapshot and events) and folds the events."""
    key = UUID(str(aggregate_id))
    times = []
    for _ in range(repeats):
        cache = app.repository.cache
        if cache is not None:
            with suppress(KeyError):
                cache.get(key, evict=True)
        started = time.perf_counter()
        load()
        times.append(time.perf_counter() - started)
    return statistics.median(times)
