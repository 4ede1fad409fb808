"""``python -m benchmarks`` (``make bench``): ONE JSON line per figure on stdout, each beside a
baseline measured in the same run; progress notes on stderr. See benchmarks/README.md.

    python -m benchmarks                      # everything, every store (a few minutes)
    BENCH_QUICK=1 python -m benchmarks        # tiny sizes: checks that it runs, nothing more
    python -m benchmarks --stores memory,sqlite --only throughput,history
    python -m benchmarks --only replay --replay-events 100000   # a smaller history
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from benchmarks.common import STORES, emit, note, postgres_unreachable, quick

GROUPS = ("throughput", "history", "gym", "http", "replay")

FULL = {
    "throughput": {"memory": 1000, "sqlite": 500, "postgres": 300},
    "history": [100, 1000, 10_000],
    "history_repeats": 3,
    "history_window": 25,
    "gym_rounds": 1000,
    "gym_hands": 20_000,
    "sim_workers_rounds": 20_000,  # a few seconds: the processes' start-up is left out anyway
}
QUICK = {
    "throughput": {"memory": 20, "sqlite": 15, "postgres": 10},
    "history": [10, 30, 100],
    "history_repeats": 1,
    "history_window": 3,
    "gym_rounds": 20,
    "gym_hands": 200,
    "sim_workers_rounds": 40,
}


def _names(text: str, allowed: Sequence[str], what: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in allowed]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"{what}: choose from {', '.join(allowed)}; got {text!r}")
    return names


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--quick", action="store_true", default=None, help="tiny sizes (also BENCH_QUICK=1)"
    )
    parser.add_argument(
        "--stores",
        type=lambda t: _names(t, STORES, "--stores"),
        default=os.environ.get("BENCH_STORES") or ",".join(STORES),
        help="comma-separated stores (default memory,sqlite,postgres; also BENCH_STORES)",
    )
    parser.add_argument(
        "--only",
        type=lambda t: _names(t, GROUPS, "--only"),
        default=",".join(GROUPS),
        help="comma-separated groups: throughput, history, gym, http, replay (default all)",
    )
    parser.add_argument(
        "--replay-events",
        type=int,
        default=None,
        help="events in the replay group's history (default 1,000,000, 3,000 with --quick; "
        "also BENCH_REPLAY_EVENTS)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    stores, groups = args.stores, args.only  # argparse converts the string defaults too
    sizes = QUICK if (args.quick or quick()) else FULL

    if "postgres" in stores and "throughput" in groups:
        reason = postgres_unreachable()
        if reason is not None:
            note(f"PostgreSQL skipped, unreachable: {reason}")
            for name, unit in (
                ("rounds_per_s_postgres", "rounds/s"),
                ("events_per_s_postgres", "events/s"),
            ):
                emit(name, None, unit, None, skipped=f"PostgreSQL unreachable: {reason}")
            stores = [s for s in stores if s != "postgres"]

    if "throughput" in groups:
        from benchmarks.throughput import bench_store

        for kind in stores:
            bench_store(kind, sizes["throughput"][kind])
            bench_store(kind, sizes["throughput"][kind], one_command=True)
    if "history" in groups:
        from benchmarks.history import bench_history

        bench_history(
            sizes["history"], "sqlite" in stores, sizes["history_repeats"], sizes["history_window"]
        )
    if "gym" in groups:
        from benchmarks.gym_compare import bench_gym

        bench_gym(sizes["gym_rounds"], sizes["gym_hands"], sizes["sim_workers_rounds"])
    if "http" in groups and "postgres" in args.stores:  # gunicorn on PostgreSQL only
        from benchmarks.http_load import bench_http

        bench_http(args.quick or quick())
    if "replay" in groups:  # SQLite and PostgreSQL only
        from benchmarks.replay_scale import bench_replay, events_asked

        bench_replay(events_asked(bool(args.quick or quick()), args.replay_events), args.stores)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
