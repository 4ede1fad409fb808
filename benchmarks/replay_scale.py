"""Figure 5: replaying a large history. Events per second of ``Projections.rebuild()`` (every
read model emptied and folded again from the first event) and of ``replay.verify.verify``
(hash chains, versions, shoes, cards, money) on 10⁶ events, each beside a baseline measured in
the same run on the same rows: reading the whole notification log in pages
(``recorder.select_notifications``) and decoding every event (``mapper.to_domain_event``),
nothing else. Target: rebuild at least 0.5 of the baseline.

The history is made once: worker processes play rounds at several tables each (casino, and
the private Vingt-un, Очко and Hoyle games, so the projections see bankers and pools), each
round one command, on the in-memory store, until they have written their share of the
events; their stored events are then copied byte for byte (so every hash stays valid) into
one SQLite file, cached under ``var/bench/`` by size and code version, and from there into a
scratch PostgreSQL schema with ``COPY``. Every measurement runs in a fresh process on a copy of
that history, so its peak memory is its own.

    python -m benchmarks.replay_scale --events 100000 --stores sqlite
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from importlib.metadata import version
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from benchmarks.common import SEED, TARGETS, emit, note, postgres_params, postgres_unreachable
from ledger.config import env_int, store_env

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / "var" / "bench"
EVENTS = 1_000_000
QUICK_EVENTS = 3_000
STORES = ("sqlite", "postgres")
EVENTS_TABLE = "stored_events"  # eventsourcing's SQLite table of an application's events
# Bump when the way the history is made changes (tables, policies, seeds).
GENERATOR_VERSION = 1
# One worker's tables, played in turn one round each: (family, punters, strategy).
TABLES = (
    ("casino", 3, "basic"),
    ("casino", 1, "mimic"),
    ("vingt-un", 3, "basic"),
    ("ochko", 2, "basic"),
    ("hoyle-1913", 3, "basic"),
)
# Events per batch of the rebuild, and per page of the baseline's reads. The runner's default
# (1,000) keeps a live catch-up's transactions short; a rebuild from scratch commits less often
# with bigger batches (fewer commits and fewer WAL checkpoints on SQLite).
BATCH = 20_000  # as `python -m replay rebuild` (replay.projections.cli.REBUILD_BATCH)


# -- making the history ----------------------------------------------------------------------


def code_version() -> str:
    """What the cached history depends on: the events' classes and how they are encoded."""
    digest = hashlib.sha256(f"{GENERATOR_VERSION} {version('eventsourcing')}".encode())
    for path in sorted((REPO / "ledger" / "domain").glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _play_share(part: int, events: int, path: str) -> dict[str, Any]:
    """In a worker: play rounds at this worker's tables until ``events`` are stored, then
    write them to ``path`` (an SQLite file shaped as eventsourcing's) unchanged."""
    from eventsourcing.persistence import StoredEvent
    from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore

    from ledger.application import TwentyOneLedger
    from ledger.simulate import Settings, Tally, play_round, setup_table

    app = TwentyOneLedger(env=store_env("memory", environ={}))
    tables = []
    for i, (family, players, strategy) in enumerate(TABLES):
        settings = Settings(
            family=family,
            players=players,
            strategy=strategy,
            seed=SEED + 1000 * part + i,
            one_command=True,
        )
        table, view = setup_table(settings, app)
        tables.append((table, settings, view, Tally()))
    rounds = 0
    while (app.recorder.max_notification_id() or 0) < events:
        for table, settings, view, tally in tables:
            play_round(app, table, settings, view, tally)
            rounds += 1
    recorder = SQLiteApplicationRecorder(SQLiteDatastore(path))
    recorder.create_table()
    written, start = 0, 1
    while True:
        page = app.recorder.select_notifications(start=start, limit=20_000)
        if not page:
            break
        recorder.insert_events(
            [StoredEvent(n.originator_id, n.originator_version, n.topic, n.state) for n in page]
        )
        written += len(page)
        start = page[-1].id + 1
    recorder.datastore.close()
    app.close()
    return {"events": written, "rounds": rounds}


def make_history(events: int, path: Path, workers: int) -> dict[str, Any]:
    """Play about ``events`` events in ``workers`` processes and merge them into ``path``."""
    started = time.perf_counter()
    share = -(-events // workers)
    with tempfile.TemporaryDirectory(prefix="ledger-bench-replay-") as scratch:
        parts = [str(Path(scratch) / f"part{i}.sqlite3") for i in range(workers)]
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            futures = [pool.submit(_play_share, i, share, p) for i, p in enumerate(parts)]
            made = [f.result() for f in futures]
        played = time.perf_counter() - started
        from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore

        partial = path.with_suffix(".partial")
        partial.unlink(missing_ok=True)
        recorder = SQLiteApplicationRecorder(SQLiteDatastore(str(partial)))
        recorder.create_table()
        recorder.datastore.close()
        table = EVENTS_TABLE
        conn = sqlite3.connect(partial, isolation_level=None)
        try:
            for i, part in enumerate(parts):
                conn.execute("ATTACH DATABASE ? AS part", (part,))
                conn.execute("BEGIN")
                conn.execute(
                    f"INSERT INTO main.{table} (originator_id, originator_version, topic, state)"
                    f" SELECT originator_id, originator_version, topic, state FROM part.{table}"
                    " ORDER BY rowid"
                )
                conn.execute("COMMIT")
                conn.execute("DETACH DATABASE part")
                note(f"replay: merged part {i + 1}/{workers}")
            total = conn.execute(f"SELECT count(*), max(rowid) FROM {table}").fetchone()
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.execute("PRAGMA journal_mode=DELETE")
        finally:
            conn.close()
    expected = sum(m["events"] for m in made)
    if tuple(total) != (expected, expected):
        raise RuntimeError(f"merged {tuple(total)} events, expected {expected}")
    partial.replace(path)
    return {
        "events": expected,
        "rounds": sum(m["rounds"] for m in made),
        "workers": workers,
        "play_seconds": round(played, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }


def cached_history(events: int, workers: int) -> tuple[Path, dict[str, Any]]:
    """The SQLite history of about ``events`` events, made unless already cached (older
    versions of the same size are removed when a new one is made)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"replay-{events}-{code_version()}.sqlite3"
    if path.exists():
        note(f"replay: using the cached history {path.relative_to(REPO)}")
        return path, {"cached": True}
    for old in CACHE.glob(f"replay-{events}-*.sqlite3"):
        old.unlink()
    note(f"replay: making a history of {events} events in {workers} processes (cached after)")
    made = make_history(events, path, workers)
    note(f"replay: made {made['events']} events in {made['seconds']} s -> {path}")
    return path, {"cached": False, **made}


def count_events(path: Path) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(f"SELECT max(rowid) FROM {EVENTS_TABLE}").fetchone()[0]
    finally:
        conn.close()


@contextmanager
def sqlite_store(history: Path) -> Iterator[dict[str, str]]:
    """A private copy of the history, so the read models written into it never reach the
    cache."""
    with tempfile.TemporaryDirectory(prefix="ledger-bench-replay-") as scratch:
        path = Path(scratch) / "ledger.sqlite3"
        shutil.copyfile(history, path)
        yield store_env("sqlite", sqlite_path=str(path), environ={})


@contextmanager
def postgres_store(history: Path) -> Iterator[dict[str, str]]:
    """A scratch schema holding the history, loaded with COPY (dropped afterwards)."""
    import psycopg
    from psycopg import sql

    from benchmarks.common import store
    from ledger.application import TwentyOneLedger

    with store("postgres") as env:
        app = TwentyOneLedger(env=env)  # creates its tables in the scratch schema
        schema, table = app.recorder.datastore.schema, app.recorder.events_table_name
        app.close()
        started = time.perf_counter()
        source = sqlite3.connect(f"file:{history}?mode=ro", uri=True)
        copy_sql = sql.SQL(
            "COPY {}.{} (originator_id, originator_version, topic, state) FROM STDIN"
        ).format(sql.Identifier(schema), sql.Identifier(table))
        try:
            with psycopg.connect(**postgres_params(env)) as conn:
                with conn.cursor() as cursor, cursor.copy(copy_sql) as copy:
                    rows = source.execute(
                        "SELECT originator_id, originator_version, topic, state"
                        f" FROM {EVENTS_TABLE} ORDER BY rowid"
                    )
                    for row in rows:
                        copy.write_row(row)
                conn.commit()
                conn.autocommit = True
                conn.execute(sql.SQL("ANALYZE {}.{}").format(*map(sql.Identifier, (schema, table))))
        finally:
            source.close()
        note(f"replay: copied the history into PostgreSQL in {time.perf_counter() - started:.1f} s")
        yield env


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
