"""Work shared out over processes that start together: each process gets ready first (opens
its store, sets its table up) and says so, then all are let go at once, and the time is taken
from that moment to the last one's result. Setting up is left out of the time, as it is in a
run of one process (``ledger.simulate.run`` starts its clock at the first round).

Processes are started with ``forkserver`` where the platform has it, else ``spawn``: never
plain ``fork``, which copies a parent's open connections and any lock another of its threads
holds (a PostgreSQL pool's, a progress bar's) into the child. A worker runs with the parent's
environment as it is when the work starts (a forkserver keeps the one it started with), and
ends itself when the parent is gone, so a killed parent leaves nothing writing to a store.

A job is a module-level function ``job(share, ready, tick)``: it calls ``ready()`` once it is
set up, ``tick(n)`` as it goes (``n`` units done since its last tick, for a progress bar), and
returns a picklable result. A job that raises, or a worker that dies, stops the others at
once: the error is raised in the parent as it was where it can be carried over (a
``LedgerError``, a store's ``PersistenceError``), with the worker's traceback as a note, else
as a ``WorkerFailed``."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import wait
from typing import Any

# How long the workers may take to get ready (open their stores, set their tables up) before
# the run is called off: a store that hangs must not hang the caller with it.
READY_TIMEOUT = 120.0
TICK_EVERY = 0.1  # seconds between two reports of progress to the parent


class WorkerFailed(RuntimeError):
    """A worker that died, or whose error could not be carried to the parent as it was."""


def start_method() -> str:
    methods = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in methods else "spawn"


def even_shares(total: int, parts: int) -> list[int]:
    """``total`` cut into at most ``parts`` sizes as even as they go, none of them zero."""
    whole, rest = divmod(total, parts)
    sizes = [whole + (index < rest) for index in range(parts)]
    return [size for size in sizes if size]


def run_together(
    job: Callable[..., Any],
    shares: Sequence[Any],
    progress: Callable[[int], None] | None = None,
    *,
    ready_timeout: float = READY_TIMEOUT,
) -> tuple[list[Any], float]:
    """Run ``job`` on each share in a process of its own; return the results (in the order
    of ``shares``) and the seconds from the moment all were ready to the last one's result.
    ``progress(done)``, if given, hears the sum of all workers' ticks as it grows."""
    ctx = multiprocessing.get_context(start_method())
    go = ctx.Event()
    done = ctx.Value("q", 0)
    environ = dict(os.environ)
    workers: list[tuple[Any, Any]] = []
    try:
        for share in shares:
            receive, send = ctx.Pipe(duplex=False)
            process = ctx.Process(
                target=_work, args=(job, share, go, done, send, environ), daemon=True
            )
            workers.append((process, receive))
            process.start()
            send.close()  # the worker holds the sending end: its death reads as an EOF
        _await(workers, "ready", ready_timeout)
        go.set()
        started = time.perf_counter()
        results = _await(workers, "done", None, progress, done)
        seconds = time.perf_counter() - started
    finally:
        for process, receive in workers:
            if process.pid is not None:  # started
                if process.is_alive():
                    process.terminate()
                process.join()
            receive.close()
    return results, seconds


def _await(
    workers: list[tuple[Any, Any]],
    expected: str,
    timeout: float | None,
    progress: Callable[[int], None] | None = None,
    done: Any = None,
) -> list[Any]:
    """Every worker's ``expected`` message, in the workers' order; the first error or death
    among them is raised as soon as it is heard, whichever worker it comes from."""
    deadline = None if timeout is None else time.monotonic() + timeout
    waiting = {receive: index for index, (_, receive) in enumerate(workers)}
    heard: dict[int, Any] = {}
    while waiting:
        left = TICK_EVERY if deadline is None else min(TICK_EVERY, deadline - time.monotonic())
        if left <= 0:
            late = ", ".join(str(index + 1) for index in sorted(waiting.values()))
            raise WorkerFailed(f"worker(s) {late} not {expected} within {timeout:.0f} s")
        for receive in wait(list(waiting), timeout=left):
            index = waiting.pop(receive)
            heard[index] = _message(receive, workers[index][0], index, expected)
        if progress is not None:
            progress(done.value)
    return [heard[index] for index in range(len(workers))]


def _message(receive: Any, process: Any, index: int, expected: str) -> Any:
    try:
        kind, value = receive.recv()
    except EOFError:
        process.join()
        raise WorkerFailed(
            f"worker {index + 1} stopped without a result ({_ending(process)})"
        ) from None
    if kind == "error":
        raise value
    if kind != expected:  # pragma: no cover - the protocol below sends nothing else
        raise WorkerFailed(f"worker {index + 1} said {kind!r} where {expected!r} was due")
    return value


def _ending(process: Any) -> str:
    """How a process ended, as a person reads it: a negative exit code is a signal's."""
    code = process.exitcode
    if code is not None and code < 0:
        try:
            return f"killed by signal {-code} ({signal.Signals(-code).name})"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _work(
    job: Callable[..., Any],
    share: Any,
    go: Any,
    done: Any,
    send: Any,
    environ: dict[str, str],
) -> None:
    os.environ.clear()
    os.environ.update(environ)
    _end_with_parent()
    last = time.perf_counter()
    pending = 0

    def ready() -> None:
        send.send(("ready", None))
        go.wait()  # set once every worker is ready; else the parent ends this process

    def tick(n: int = 1) -> None:
        nonlocal last, pending
        pending += n
        now = time.perf_counter()
        if now - last >= TICK_EVERY:
            with done.get_lock():
                done.value += pending
            pending, last = 0, now

    try:
        result = job(share, ready, tick)
        with done.get_lock():
            done.value += pending
        send.send(("done", result))
    except BaseException as error:  # noqa: BLE001 - every failure is the parent's to report
        send.send(("error", _portable(error)))
    finally:
        send.close()


def _end_with_parent() -> None:
    """End this worker when its parent process ends, however it ends (a SIGKILL runs no
    clean-up in the parent): a worker left behind would go on writing to the store."""
    parent = multiprocessing.parent_process()
    if parent is None:  # pragma: no cover - a worker always has one
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _portable(error: BaseException) -> BaseException:
    """``error`` itself when it survives pickling (the ledger's and the store's errors do),
    with the worker's traceback as a note, else a ``WorkerFailed`` carrying that traceback."""
    text = "".join(traceback.format_exception(error)).rstrip()
    try:
        error.add_note(f"in a worker process:\n{text}")
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:  # noqa: BLE001 - any failure to carry it means: carry its text
        return WorkerFailed(f"a worker failed:\n{text}")
