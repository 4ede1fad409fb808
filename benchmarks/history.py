"""Figure 2: does loading get slower as history grows? The time to load a table, its latest
round and a seated player's wallet after 10², 10³ and 10⁴ rounds at one casino table, each
beside the same load after 10² rounds (the baseline). Target: at most 2x after 10⁴ rounds.

The history is played once, through the application on the in-memory store (one player,
mimic policy, each round as one command: the same events as step by step, in less time). For
SQLite the same stored events and snapshots are copied into an SQLite file as they are made
and loaded by a second application on it. Every load starts with the aggregate evicted from
the application's cache, so it reads the store (the latest snapshot, then the events after
it) and folds the events.

A table or a wallet is snapshotted every 50 events, so one load folds anything from 0 to 49
events depending on where the last snapshot fell; a single load would measure that phase
rather than the history. Each figure is therefore the mean over a window of ``window`` rounds
played from the checkpoint on (about one snapshot interval), of the median of ``repeats``
loads after each of them.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from benchmarks.common import SEED, TARGETS, cold_load_seconds, emit, note
from ledger.application import TwentyOneLedger
from ledger.config import store_env
from ledger.simulate import Settings, play_round, setup_table
from ledger.simulate_tally import Tally

WHAT = ("table", "round", "player")


def _stored(items: Any) -> list[StoredEvent]:
    return [
        StoredEvent(
            originator_id=e.originator_id,
            originator_version=e.originator_version,
            topic=e.topic,
            state=e.state,
        )
        for e in items
    ]


class SqliteCopy:
    """An SQLite store kept equal to the in-memory one by copying what is new."""

    def __init__(self, source: TwentyOneLedger, path: str, snapshotted: list[str]) -> None:
        self.source = source
        self.app = TwentyOneLedger(env=store_env("sqlite", sqlite_path=path, environ={}))
        self.copied = 0
        self.snapshot_versions: dict[str, int] = {aid: 0 for aid in snapshotted}

    def catch_up(self) -> None:
        while True:
            batch = self.source.recorder.select_notifications(start=self.copied + 1, limit=2000)
            if not batch:
                break
            self.app.recorder.insert_events(_stored(batch))
            self.copied = batch[-1].id
        for aid, version in self.snapshot_versions.items():
            new = self.source.snapshots.recorder.select_events(UUID(aid), gt=version)
            if new:
                self.app.snapshots.recorder.insert_events(_stored(new))
                self.snapshot_versions[aid] = new[-1].originator_version

    def close(self) -> None:
        self.app.close()


def loads(app: TwentyOneLedger, ids: dict[str, str], repeats: int) -> dict[str, float]:
    getters = {"table": app.get_table, "round": app.get_round, "player": app.get_player}
    return {
        what: cold_load_seconds(app, ids[what], lambda w=what: getters[w](ids[w]), repeats)
        for what in WHAT
    }


def bench_history(
    checkpoints: list[int], with_sqlite: bool, repeats: int, window: int
) -> list[dict[str, Any]]:
    app = TwentyOneLedger(env=store_env("memory", environ={}))
    settings = Settings(
        rounds=checkpoints[-1], seed=SEED, players=1, strategy="mimic", one_command=True
    )
    table, view = setup_table(settings, app)
    player = app.get_table(table).seats["1"]
    tally = Tally()
    measured: dict[str, dict[int, dict[str, float]]] = {"memory": {}, "sqlite": {}}
    events: dict[int, int] = {}
    scratch = tempfile.TemporaryDirectory(prefix="ledger-bench-history-")
    copy = None
    if with_sqlite:
        copy = SqliteCopy(app, str(Path(scratch.name) / "history.sqlite3"), [table, player])
    try:
        for checkpoint in checkpoints:
            note(f"history: playing up to {checkpoint} rounds")
            while tally.rounds < checkpoint:
                play_round(app, table, settings, view, tally)
            events[checkpoint] = app.recorder.max_notification_id() or 0
            samples: dict[str, list[dict[str, float]]] = {"memory": [], "sqlite": []}
            for _ in range(window):
                rid = play_round(app, table, settings, view, tally)
                ids = {"table": table, "round": rid, "player": player}
                samples["memory"].append(loads(app, ids, repeats))
                if copy is not None:
                    copy.catch_up()
                    samples["sqlite"].append(loads(copy.app, ids, repeats))
            for kind, rows in samples.items():
                if rows:
                    measured[kind][checkpoint] = {
                        what: statistics.fmean(row[what] for row in rows) for what in WHAT
                    }
    finally:
        if copy is not None:
            copy.close()
        scratch.cleanup()
        app.close()

    lines = []
    first, last = checkpoints[0], checkpoints[-1]
    for kind in ("memory", "sqlite"):
        by_checkpoint = measured[kind]
        if not by_checkpoint:
            continue
        for what in WHAT:
            base = by_checkpoint[first][what]
            for checkpoint in checkpoints:
                lines.append(
                    emit(
                        f"load_{what}_{kind}_after_{checkpoint}_rounds",
                        by_checkpoint[checkpoint][what] * 1000,
                        "ms",
                        base * 1000,
                        target=TARGETS["load"] if checkpoint == last else None,
                        detail={
                            "baseline_is": f"the same load after {first} rounds",
                            "window_rounds": window,
                            "repeats": repeats,
                            "events_in_store": events[checkpoint],
                        },
                    )
                )
    return lines
