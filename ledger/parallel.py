"""Work shared out over processes that start together: each process gets ready first (opens
its store, sets its table up), then all are let go at once, and the time is taken from that
moment to the last one's finish. Setting up is left out of the time, as it is in a run of one
process (``ledger.simulate.run`` starts its clock at the first round).

Processes are started with ``forkserver`` where the platform has it, else ``spawn``: never
plain ``fork``, which copies a parent's open connections and any lock another of its threads
holds (a PostgreSQL pool's, a progress bar's) into the child.

A job is a module-level function ``job(share, ready, tick)``: it calls ``ready()`` once it is
set up, ``tick(n)`` as it goes (``n`` units done since its last tick, for a progress bar), and
returns a picklable result. A job that raises has its error raised in the parent, as it was
where it can be carried over (a ``LedgerError``, a store's ``PersistenceError``), else as a
``WorkerFailed`` with the worker's traceback; the other workers are stopped."""

from __future__ import annotations

import multiprocessing
import pickle
import time
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import wait
from threading import BrokenBarrierError
from typing import Any

# How long a worker may take to get ready (open its store, set its table up) before the run
# is called off: a store that hangs must not hang the simulation with it.
READY_TIMEOUT = 120.0
TICK_EVERY = 0.1  # seconds between two reports of progress to the parent


class WorkerFailed(RuntimeError):
    """A worker's error that could not be carried to the parent as it was."""


def even_shares(total: int, parts: int) -> list[int]:
    """``total`` cut into at most ``parts`` sizes as even as they go, none of them zero."""
    whole, rest = divmod(total, parts)
    sizes = [whole + (index < rest) for index in range(parts)]
    return [size for size in sizes if size]


def start_method() -> str:
    methods = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in methods else "spawn"


def run_together(
    job: Callable[..., Any],
    shares: Sequence[Any],
    progress: Callable[[int], None] | None = None,
) -> tuple[list[Any], float]:
    """Run ``job`` on each share in a process of its own; return the results (in the order
    of ``shares``) and the seconds from the moment all were ready to the last one's finish.
    ``progress(done)``, if given, hears the sum of all workers' ticks as it grows."""
    ctx = multiprocessing.get_context(start_method())
    barrier = ctx.Barrier(len(shares) + 1)
    done = ctx.Value("q", 0)
    workers = []
    for share in shares:
        receive, send = ctx.Pipe(duplex=False)
        process = ctx.Process(target=_work, args=(job, share, barrier, done, send), daemon=True)
        process.start()
        send.close()  # the worker holds the sending end: its exit without a word is an EOF
        workers.append((process, receive))
    try:
        try:
            barrier.wait(READY_TIMEOUT)
        except BrokenBarrierError:
            # A worker failed to get ready (it broke the barrier), or one took too long: its
            # error, if it sent one, says why.
            _raise_first_error(workers)
            raise WorkerFailed(
                f"the workers were not all ready within {READY_TIMEOUT:.0f} s"
            ) from None
        started = time.perf_counter()
        results: dict[int, Any] = {}
        waiting = {receive: index for index, (_, receive) in enumerate(workers)}
        while waiting:
            for receive in wait(list(waiting), timeout=TICK_EVERY):
                index = waiting.pop(receive)
                results[index] = _outcome(receive, workers[index][0], index)
            if progress is not None:
                progress(done.value)
        seconds = time.perf_counter() - started
    finally:
        for process, receive in workers:
            if process.is_alive():
                process.terminate()
            process.join()
            receive.close()
    return [results[i] for i in range(len(shares))], seconds


def _raise_first_error(workers: list) -> None:
    """Raise the error that stopped a worker getting ready, if one did: the others' broken
    barriers are only its echo."""
    for index, (process, receive) in enumerate(workers):
        try:
            if receive.poll(READY_TIMEOUT / 10 if process.is_alive() else 0):
                _outcome(receive, process, index)
        except BrokenBarrierError:
            continue


def _outcome(receive: Any, process: Any, index: int) -> Any:
    try:
        kind, value = receive.recv()
    except EOFError:
        process.join()
        raise WorkerFailed(
            f"worker {index + 1} stopped without a result (exit code {process.exitcode})"
        ) from None
    if kind == "error":
        raise value
    return value


def _work(job: Callable[..., Any], share: Any, barrier: Any, done: Any, send: Any) -> None:
    last = time.perf_counter()
    pending = 0

    def ready() -> None:
        barrier.wait(READY_TIMEOUT)

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
        barrier.abort()  # a parent still waiting for everyone to be ready stops waiting
        send.send(("error", _portable(error)))
    finally:
        send.close()


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
