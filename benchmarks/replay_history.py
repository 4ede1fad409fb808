"""Figure 5's history: about 10⁶ events played once, cached, and copied for each measurement.

Worker processes play rounds at several tables each (casino, and the private Vingt-un, Очко
and Hoyle games, so the projections see bankers and pools), each round one command, on the
in-memory store, until they have written their share of the events; their stored events are
then copied byte for byte (so every hash stays valid) into one SQLite file, cached under
``var/bench/`` by size and code version. Each measurement gets its own copy: the SQLite file
in a temporary directory, or the same rows loaded with ``COPY`` into a scratch PostgreSQL
schema.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from importlib.metadata import version
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from benchmarks.common import SEED, note, postgres_params
from ledger.config import store_env

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / "var" / "bench"
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
    from ledger.simulate import Settings, play_round, setup_table
    from ledger.simulate_tally import Tally

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
