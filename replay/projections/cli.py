"""``python -m replay project | rebuild | projections``: run, rebuild and inspect the read models.

    python -m replay project [--once] [--poll SECONDS]   keep them current (a worker process)
    python -m replay rebuild [--only NAME ...] [--json]  from the first event, with progress
    python -m replay projections [--json]                where each one stands

Rebuilding empties the chosen projections and folds the whole log again, batch by batch; a
running API or worker keeps serving meanwhile and simply sees the rows fill up again.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TextIO

from ledger.progress import terminal_bar
from replay.json_option import json_parent, wants_json
from replay.projections import ProjectionBusy, open_projections
from replay.store import ledger


@contextmanager
def progress_bar(label: str, stream: TextIO) -> Iterator[Callable[[int, int, int], None] | None]:
    """A bar (position of head, events/s) on ``stream`` when it is a terminal; else None."""
    started = time.perf_counter()
    with terminal_bar(stream, label, "{task.fields[rate]:>9,.0f} events/s") as bar:
        if bar is None:
            yield None
            return
        task = bar.add_task(label, total=None, rate=0.0)

        def update(position: int, head: int, folded: int) -> None:
            rate = folded / max(time.perf_counter() - started, 1e-9)
            bar.update(task, completed=position, total=head, rate=rate)

        yield update


def _summary(proj: Any, folded_from: int, seconds: float) -> dict[str, Any]:
    position = proj.position()
    events = position - folded_from
    return {
        "projections": proj.positions(),
        "position": position,
        "head": proj.head(),
        "events": events,
        "seconds": round(seconds, 3),
        "events_per_second": round(events / seconds) if seconds > 0 else None,
    }


REBUILD_BATCH = 20_000  # a rebuild holds the lock per batch; larger ones go faster on PostgreSQL


def cmd_rebuild(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    with ledger(env) as app:
        proj = open_projections(app, app.env if env is None else env, batch=REBUILD_BATCH)
        try:
            started = time.perf_counter()
            try:
                chosen = proj.reset(args.only)
            except ValueError as error:
                print(f"python -m replay rebuild: {error}", file=sys.stderr)
                return 2
            with progress_bar("rebuilding", sys.stderr) as progress:
                proj.catch_up(progress=progress)
            out = {**_summary(proj, 0, time.perf_counter() - started), "rebuilt": chosen}
        finally:
            proj.close()
    if wants_json(args):
        print(json.dumps(out, sort_keys=True))
    else:
        print(
            f"rebuilt {', '.join(chosen)}: {out['events']} events to position "
            f"{out['position']} in {out['seconds']} s ({out['events_per_second']} events/s)"
        )
    return 0


@contextmanager
def stop_on_sigterm() -> Iterator[dict[str, bool]]:
    """``{"now": True}`` once SIGTERM arrives, so the loop ends after its batch commits; the
    previous handler comes back afterwards. Off the main thread (where Python allows no
    handlers) it simply never stops by signal."""
    flag = {"now": False}
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def finish(*_: Any) -> None:
        flag["now"] = True

    previous = signal.signal(signal.SIGTERM, finish)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGTERM, previous)


def cmd_project(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    with ledger(env) as app, stop_on_sigterm() as stop:
        proj = open_projections(app, app.env if env is None else env)
        try:
            while True:
                before, started = proj.position(), time.perf_counter()
                try:
                    with progress_bar("projecting", sys.stderr) as progress:
                        proj.catch_up(progress=progress, stop=lambda: stop["now"])
                except ProjectionBusy:
                    pass  # another projector is folding this batch; ours resumes after it
                after = proj.position()
                # A one-off run always answers (a script reads its line); a worker speaks
                # only when it folded something.
                if after > before or args.once:
                    seconds = time.perf_counter() - started
                    line = _summary(proj, before, seconds)
                    print(json.dumps(line, sort_keys=True), flush=True)
                if args.once or stop["now"]:
                    return 0
                time.sleep(args.poll)
        except KeyboardInterrupt:
            return 0
        finally:
            proj.close()


def cmd_status(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    with ledger(env) as app:
        proj = open_projections(app, app.env if env is None else env)
        try:
            positions, head = proj.positions(), proj.head()
        finally:
            proj.close()
    out = {"head": head, "projections": {n: {"position": p, "lag": head - p}
                                         for n, p in positions.items()}}  # fmt: skip
    if wants_json(args):
        print(json.dumps(out, sort_keys=True))
    else:
        for name, where in out["projections"].items():
            print(f"{name:12} position {where['position']:>10}  lag {where['lag']}")
    return 0


# The longest wait between polls: a day (a sleep far longer overflows the platform's clock).
MAX_POLL = 86_400


def _seconds(text: str) -> float:
    """A wait in seconds (0 to a day): anything else is bad usage (exit 2), found before the
    worker starts rather than by its first sleep."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 <= value <= MAX_POLL):
        raise argparse.ArgumentTypeError(
            f"wants a number of seconds, 0 to {MAX_POLL} (a day); got {text!r}"
        )
    return value


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "project",
        parents=[json_parent("accepted like every command's; project prints JSON lines already")],
        help="keep the read models current (run as a worker process)",
        description="Fold new events into the read models, polling the notification log; "
        "several workers (and API processes) may run at once.",
    )
    p.add_argument("--once", action="store_true", help="catch up to the head, then exit")
    p.add_argument("--poll", type=_seconds, default=0.2, metavar="SECONDS", help="default 0.2")
    p.set_defaults(func=cmd_project)

    p = subparsers.add_parser(
        "rebuild",
        parents=[json_parent("the summary as one JSON document")],
        help="rebuild the read models from the first event, with progress",
        description="Empty the chosen projections and fold every event again.",
    )
    p.add_argument("--only", nargs="+", metavar="NAME", help="bankroll, history, audit_trail")
    p.set_defaults(func=cmd_rebuild)

    p = subparsers.add_parser(
        "projections", parents=[json_parent()], help="where each read model stands"
    )
    p.set_defaults(func=cmd_status)
