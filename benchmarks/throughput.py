"""Figure 1: rounds and events appended per second, played through the application, beside
the same rows inserted raw in the same transaction shape (one transaction per command).

Baselines: memory and SQLite insert the rows with the store's own recorder
(``recorder.insert_events``, one call per command) into a fresh store; PostgreSQL inserts them
with plain psycopg (one transaction per command, ``executemany``) into a scratch table shaped
like eventsourcing's (same columns, primary key and notification id sequence, but without the
recorder's ``LOCK TABLE`` and ``NOTIFY``).
"""

from __future__ import annotations

import time
from typing import Any

from eventsourcing.persistence import StoredEvent

from benchmarks.common import SEED, TARGETS, CountingLedger, emit, note, postgres_params, store
from ledger.simulate import Settings, run


def rows_of_run(app: CountingLedger, events: int) -> list[list[StoredEvent]]:
    """The last ``events`` events the application stored, cut into its transactions."""
    batches, total = [], 0
    for size in reversed(app.batches):
        if total == events:
            break
        batches.append(size)
        total += size
    if total != events:  # pragma: no cover - a save outside a command
        raise RuntimeError(f"transactions add up to {total} events, not {events}")
    batches.reverse()
    last = app.recorder.max_notification_id() or 0
    notifications = app.recorder.select_notifications(start=last - events + 1, limit=events)
    rows = [
        StoredEvent(
            originator_id=n.originator_id,
            originator_version=n.originator_version,
            topic=n.topic,
            state=n.state,
        )
        for n in notifications
    ]
    out, at = [], 0
    for size in batches:
        out.append(rows[at : at + size])
        at += size
    return out


def raw_recorder_seconds(kind: str, transactions: list[list[StoredEvent]]) -> float:
    """The same rows through a fresh store's own recorder, one insert_events per command."""
    with store(kind) as env:
        app = CountingLedger(env=env)
        try:
            recorder = app.recorder
            started = time.perf_counter()
            for rows in transactions:
                recorder.insert_events(rows)
            return time.perf_counter() - started
        finally:
            app.close()


RAW_TABLE = """
CREATE TABLE raw_events (
    originator_id uuid NOT NULL,
    originator_version bigint NOT NULL,
    topic text,
    state bytea,
    notification_id bigserial,
    PRIMARY KEY (originator_id, originator_version)
);
CREATE UNIQUE INDEX raw_events_notification_id_idx ON raw_events (notification_id);
"""


def raw_psycopg_seconds(transactions: list[list[StoredEvent]]) -> float:
    """The same rows with plain psycopg into a scratch table, one transaction per command."""
    import psycopg
    from psycopg import sql

    with store("postgres") as env, psycopg.connect(**postgres_params(env)) as conn:
        with conn.transaction():
            conn.execute(
                sql.SQL("SET search_path TO {}").format(sql.Identifier(env["POSTGRES_SCHEMA"]))
            )
            conn.execute(RAW_TABLE)
        insert = (
            "INSERT INTO raw_events (originator_id, originator_version, topic, state) "
            "VALUES (%s, %s, %s, %s)"
        )
        started = time.perf_counter()
        for rows in transactions:
            with conn.transaction(), conn.cursor() as cur:
                cur.executemany(
                    insert,
                    [(r.originator_id, r.originator_version, r.topic, r.state) for r in rows],
                )
        seconds = time.perf_counter() - started
        with conn.transaction():
            (count,) = conn.execute("SELECT count(*) FROM raw_events").fetchone()
        if count != sum(len(rows) for rows in transactions):  # pragma: no cover
            raise RuntimeError(f"the scratch table holds {count} rows")
        return seconds


def bench_store(kind: str, rounds: int, one_command: bool = False) -> list[dict[str, Any]]:
    """``one_command``: each round as one command (``app.play_round``), so one transaction per
    round; otherwise one command (and transaction) per stake and decision, as over the API."""
    shape = "one command per round" if one_command else "one command per decision"
    note(f"throughput: {rounds} rounds on {kind}, {shape}")
    settings = Settings(
        rounds=rounds, seed=SEED, players=1, strategy="basic", store=kind, one_command=one_command
    )
    with store(kind) as env:
        app = CountingLedger(env=env)
        try:
            result = run(settings, app)
            transactions = rows_of_run(app, result["events"])
        finally:
            app.close()
    if kind == "postgres":
        raw_seconds = raw_psycopg_seconds(transactions)
        how = "plain psycopg, the same rows, one transaction per command"
    else:
        raw_seconds = raw_recorder_seconds(kind, transactions)
        how = "recorder.insert_events, the same rows, one call per command"
    seconds, events = result["seconds"], result["events"]
    detail = {
        "rounds": rounds,
        "events": events,
        "transactions": len(transactions),
        "seconds": seconds,
        "raw_seconds": round(raw_seconds, 4),
        "baseline_is": how,
        "policy": f"one player, basic strategy, casino 6 decks S17, {shape}",
    }
    suffix = "_one_command" if one_command else ""
    return [
        emit(
            f"rounds_per_s_{kind}{suffix}",
            rounds / seconds,
            "rounds/s",
            rounds / raw_seconds,
            detail=detail,
        ),
        emit(
            f"events_per_s_{kind}{suffix}",
            events / seconds,
            "events/s",
            events / raw_seconds,
            detail=detail,
        ),
        *(store_append_figures(transactions, suffix) if kind == "postgres" else []),
    ]


def interleaved_append_seconds(transactions: list[list[StoredEvent]]) -> tuple[float, float]:
    """Seconds to insert the same transactions through the ledger's PostgreSQL recorder and
    with plain psycopg, one after the other for each transaction (alternating which goes
    first), so both meet the same server load, checkpoints and caches."""
    import psycopg
    from psycopg import sql

    with store("postgres") as env_recorder, store("postgres") as env_raw:
        app = CountingLedger(env=env_recorder)
        try:
            with psycopg.connect(**postgres_params(env_raw)) as conn:
                with conn.transaction():
                    conn.execute(
                        sql.SQL("SET search_path TO {}").format(
                            sql.Identifier(env_raw["POSTGRES_SCHEMA"])
                        )
                    )
                    conn.execute(RAW_TABLE)
                insert = (
                    "INSERT INTO raw_events (originator_id, originator_version, topic, state) "
                    "VALUES (%s, %s, %s, %s)"
                )

                def plain(rows: list[StoredEvent]) -> float:
                    started = time.perf_counter()
                    with conn.transaction(), conn.cursor() as cur:
                        cur.executemany(
                            insert,
                            [
                                (r.originator_id, r.originator_version, r.topic, r.state)
                                for r in rows
                            ],
                        )
                    return time.perf_counter() - started

                def recorded(rows: list[StoredEvent]) -> float:
                    started = time.perf_counter()
                    app.recorder.insert_events(rows)
                    return time.perf_counter() - started

                recorder_seconds = plain_seconds = 0.0
                for i, rows in enumerate(transactions):
                    if i % 2:
                        plain_seconds += plain(rows)
                        recorder_seconds += recorded(rows)
                    else:
                        recorder_seconds += recorded(rows)
                        plain_seconds += plain(rows)
            return recorder_seconds, plain_seconds
        finally:
            app.close()


def store_append_figures(
    transactions: list[list[StoredEvent]], suffix: str
) -> list[dict[str, Any]]:
    """The append itself: the ledger's PostgreSQL recorder (with its table lock and notify)
    against plain psycopg, the same rows in the same transactions, interleaved. The issue's
    0.5 target applies here; the figures above add the whole application around the append."""
    recorder_seconds, plain_seconds = interleaved_append_seconds(transactions)
    events = sum(len(rows) for rows in transactions)
    detail = {
        "events": events,
        "transactions": len(transactions),
        "recorder_seconds": round(recorder_seconds, 4),
        "psycopg_seconds": round(plain_seconds, 4),
        "baseline_is": "plain psycopg executemany, one transaction per command, same rows, "
        "interleaved transaction by transaction with the recorder",
    }
    return [
        emit(
            f"store_append_events_per_s_postgres{suffix}",
            events / recorder_seconds,
            "events/s",
            events / plain_seconds,
            target=TARGETS["postgres_append"],
            detail=detail,
        )
    ]
