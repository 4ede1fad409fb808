"""Figure 5: replaying a large history. Events per second of ``Projections.rebuild()`` (every
read model emptied and folded again from the first event) and of ``replay.verify.verify``
(hash chains, versions, shoes, cards, money) on 10⁶ events, each beside a baseline measured in
the same run on the same rows: reading the whole notification log in pages
(``recorder.select_notifications``) and decoding every event (``mapper.to_domain_event``),
nothing else. Target: rebuild at least 0.5 of the baseline.

The history is made once and cached (``benchmarks/replay_history.py``). Every measurement runs
in a fresh process on a copy of it, so its peak memory is its own.

    python -m benchmarks.replay_scale --events 100000 --stores sqlite
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

from benchmarks.common import TARGETS, emit, note, postgres_unreachable
from benchmarks.replay_history import (
    TABLES,
    cached_history,
    count_events,
    postgres_store,
    sqlite_store,
)
from ledger.settings import env_int

EVENTS = 1_000_000
QUICK_EVENTS = 3_000
STORES = ("sqlite", "postgres")
# Events per batch of the rebuild, and per page of the baseline's reads. The runner's default
# (1,000) keeps a live catch-up's transactions short; a rebuild from scratch commits less often
# with bigger batches (fewer commits and fewer WAL checkpoints on SQLite).
BATCH = 20_000  # as `python -m replay rebuild` (replay.projections.cli.REBUILD_BATCH)


# -- measuring (each in a fresh process) -----------------------------------------------------


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _measure(phase: str, env: dict[str, str], expected: int, batch: int) -> dict[str, Any]:
    """In a fresh process: one phase over the whole store; events, seconds, peak memory."""
    from ledger.application import TwentyOneLedger

    app = TwentyOneLedger(env=env)
    try:
        head = app.recorder.max_notification_id() or 0
        if head != expected:
            raise RuntimeError(f"the store holds {head} events, expected {expected}")
        before = _rss_mb()
        out: dict[str, Any] = {}
        if phase == "baseline":
            started, cpu = time.perf_counter(), time.process_time()
            count = read_and_decode(app, batch)
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        elif phase == "rebuild":
            from replay.projections import open_projections

            projections = open_projections(app, env, batch=batch)
            try:
                started, cpu = time.perf_counter(), time.process_time()
                count = projections.rebuild()
                seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
                out["rows"] = {
                    table: projections.views.read(f"SELECT count(*) FROM {table}")[0][0]
                    for projector in projections.projectors
                    for table in projector.tables
                }
            finally:
                projections.close()
        elif phase == "verify":
            from replay.verify import verify

            started, cpu = time.perf_counter(), time.process_time()
            report = verify(app)
            seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
            count = report.events
            out["ok"] = report.ok
            out["faults"] = len(report.faults)
            out["cards_checked"] = report.cards_checked
            if not report.ok:
                out["first_fault"] = report.first.describe() if report.first else None
        else:  # pragma: no cover
            raise ValueError(phase)
    finally:
        app.close()
    if count != expected:
        raise RuntimeError(f"{phase} went through {count} events, expected {expected}")
    return {
        "events": count,
        "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu, 3),  # this process's (not the PostgreSQL server's)
        "events_per_s": count / seconds,
        "rss_before_mb": round(before),
        "peak_rss_mb": round(_rss_mb()),
        **out,
    }


def read_and_decode(app: Any, page: int = BATCH) -> int:
    """The baseline: every stored event read in pages and decoded, nothing else."""
    to_event = app.mapper.to_domain_event
    select = app.recorder.select_notifications
    count, start = 0, 1
    while True:
        notifications = select(start=start, limit=page)
        if not notifications:
            return count
        for n in notifications:
            to_event(n)
        count += len(notifications)
        start = notifications[-1].id + 1


def measure(phase: str, env: dict[str, str], expected: int, batch: int) -> dict[str, Any]:
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        return pool.submit(_measure, phase, env, expected, batch).result()


# -- the figures -----------------------------------------------------------------------------


def bench_replay(
    events: int, stores: Sequence[str], batch: int | None = None, workers: int | None = None
) -> list[dict[str, Any]]:
    batch = batch or env_int("BENCH_REPLAY_BATCH", BATCH)
    stores = [s for s in stores if s in STORES]
    if not stores:
        note("replay: needs sqlite or postgres among --stores; skipped")
        return []
    if "postgres" in stores:
        reason = postgres_unreachable()
        if reason is not None:
            note(f"replay: PostgreSQL skipped, unreachable: {reason}")
            stores = [s for s in stores if s != "postgres"]
            lines = [
                emit(
                    f"replay_{what}_events_per_s_postgres",
                    None,
                    "events/s",
                    None,
                    skipped=f"PostgreSQL unreachable: {reason}",
                )
                for what in ("rebuild", "verify")
            ]
        else:
            lines = []
    else:
        lines = []
    if not stores:
        return lines
    workers = workers or max(1, min(4, os.cpu_count() or 1))
    history, made = cached_history(events, workers)
    total = count_events(history)
    note(f"replay: {total} events (asked for {events}) in {history.name}")
    opened = {"sqlite": sqlite_store, "postgres": postgres_store}
    for kind in stores:
        with opened[kind](history) as env:
            results = {}
            # The baseline before and after the others, so a change of the machine's load
            # during the run moves both sides of the ratio alike.
            for phase in ("baseline", "rebuild", "verify", "baseline_after"):
                note(f"replay: {kind} {phase} of {total} events")
                results[phase] = measure(phase.partition("_")[0], env, total, batch)
                note(
                    f"replay: {kind} {phase}: {results[phase]['events_per_s']:.0f} events/s"
                    f" ({results[phase]['seconds']} s)"
                )
        lines += figures(kind, events, total, batch, made, results)
    return lines


def figures(
    kind: str,
    asked: int,
    total: int,
    batch: int,
    made: dict[str, Any],
    results: dict[str, dict[str, Any]],
) -> list[dict[str, Any]]:
    before, after = results["baseline"], results["baseline_after"]
    baseline_seconds = (before["seconds"] + after["seconds"]) / 2
    common = {
        "events": total,
        "events_asked": asked,
        "baseline_is": (
            f"recorder.select_notifications in pages of {batch} and mapper.to_domain_event"
            " on every event, in a fresh process, same store, same run: the mean time of one"
            " such pass before the rebuild and one after the verify"
        ),
        "baseline_seconds": [before["seconds"], after["seconds"]],
        "baseline_cpu_seconds": [before["cpu_seconds"], after["cpu_seconds"]],
        "baseline_peak_rss_mb": max(before["peak_rss_mb"], after["peak_rss_mb"]),
        "history": {"tables_per_worker": [t[0] for t in TABLES], **made},
    }
    out = []
    for what in ("rebuild", "verify"):
        result = results[what]
        detail = {**common, **{k: v for k, v in result.items() if k != "events_per_s"}}
        if what == "rebuild":
            detail["batch"] = batch
        out.append(
            emit(
                f"replay_{what}_events_per_s_{kind}",
                result["events_per_s"],
                "events/s",
                total / baseline_seconds,
                target=TARGETS["rebuild"] if what == "rebuild" else None,
                detail=detail,
            )
        )
    return out


def events_asked(quick: bool, given: int | None = None) -> int:
    if given:
        return given
    return env_int("BENCH_REPLAY_EVENTS", QUICK_EVENTS if quick else EVENTS)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.replay_scale", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--events", type=int, help=f"history size (default {EVENTS:,})")
    parser.add_argument("--stores", default="sqlite,postgres", help="sqlite,postgres")
    parser.add_argument("--batch", type=int, help=f"rebuild batch and read page ({BATCH})")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_EVENTS} events")
    args = parser.parse_args(argv)
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    bench_replay(events_asked(args.quick, args.events), stores, batch=args.batch)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
