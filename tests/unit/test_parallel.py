"""``ledger.parallel.run_together``: shares run in processes of their own, started together;
results come back in order, progress adds up, and a worker's failure is the parent's error."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ledger.errors import InvalidCommand
from ledger.parallel import WorkerFailed, run_together


def _square(share, ready, tick):
    ready()
    for _ in range(share):
        tick(1)
    return share * share, os.getpid()


def _refuse(share, ready, tick):
    if share == "refuse":
        raise InvalidCommand("a stake must be whole", "CB-1", amount=share)
    ready()
    return share


class _Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("not today")


def _raise_unpicklable(share, ready, tick):
    ready()
    raise _Unpicklable(f"share {share} went wrong")


def _vanish(share, ready, tick):
    ready()
    os._exit(3)


def _vanish_or_wait(share, ready, tick):
    """Share 0 dies while setting up; the others take their time to get ready."""
    if share == 0:
        os._exit(7)
    time.sleep(share)
    ready()
    return share


def _fail_or_wait(share, ready, tick):
    if share == 0:
        raise InvalidCommand("no table for this worker")
    time.sleep(share)
    ready()
    return share


def _environment(share, ready, tick):
    ready()
    return os.environ.get(share)


def _sleep_after_ready(share, ready, tick):
    Path(share).write_text(str(os.getpid()))
    ready()
    time.sleep(60)


class _Unsendable:
    def __reduce__(self):
        raise TypeError("this share cannot be sent")


def test_each_share_runs_in_a_process_of_its_own_and_progress_adds_up():
    heard = []

    results, seconds = run_together(_square, [3, 5, 7], heard.append)

    assert [value for value, _ in results] == [9, 25, 49]
    pids = {pid for _, pid in results}
    assert len(pids) == 3 and os.getpid() not in pids
    assert seconds > 0
    assert heard and heard == sorted(heard) and heard[-1] == 15


def test_a_ledger_error_in_a_worker_is_raised_as_it_was():
    with pytest.raises(InvalidCommand) as raised:
        run_together(_refuse, ["fine", "refuse"])

    assert str(raised.value) == "a stake must be whole [CB-1]"
    assert raised.value.details == {"amount": "refuse"}
    assert any("in a worker process" in note for note in raised.value.__notes__)


def test_an_error_that_cannot_travel_comes_back_with_its_traceback():
    with pytest.raises(WorkerFailed, match=r"(?s)_Unpicklable: share 2 went wrong"):
        run_together(_raise_unpicklable, [2])


def test_a_worker_that_dies_is_named_with_its_exit_code():
    with pytest.raises(WorkerFailed, match=r"worker 1 stopped without a result \(exit code 3\)"):
        run_together(_vanish, [1])


def test_a_worker_that_dies_while_the_others_get_ready_is_heard_at_once():
    started = time.monotonic()

    with pytest.raises(WorkerFailed, match=r"worker 1 stopped without a result \(exit code 7\)"):
        run_together(_vanish_or_wait, [0, 30, 30], ready_timeout=60)
    assert time.monotonic() - started < 20
    assert multiprocessing_children() == []


def test_an_error_while_getting_ready_is_raised_without_waiting_for_the_others():
    started = time.monotonic()

    with pytest.raises(InvalidCommand, match="no table for this worker"):
        run_together(_fail_or_wait, [30, 0, 30], ready_timeout=60)
    assert time.monotonic() - started < 20


def test_workers_not_ready_in_time_are_named_and_stopped():
    with pytest.raises(WorkerFailed, match=r"worker\(s\) 2 not ready within 1 s"):
        run_together(_vanish_or_wait, [1 / 100, 30], ready_timeout=1)
    assert multiprocessing_children() == []


def test_a_share_that_cannot_be_sent_leaves_no_worker_behind():
    with pytest.raises(TypeError, match="cannot be sent"):
        run_together(_square, [2, _Unsendable()])
    assert multiprocessing_children() == []


def test_workers_see_the_environment_as_it_is_when_the_work_starts(monkeypatch):
    run_together(_square, [1])  # the start-up server, if any, is running from here on
    monkeypatch.setenv("LEDGER_PARALLEL_PROBE", "seen")

    assert run_together(_environment, ["LEDGER_PARALLEL_PROBE"])[0] == ["seen"]


def test_workers_end_when_their_parent_is_killed(tmp_path):
    """A SIGKILL runs no clean-up in the parent: its workers must still stop, not go on
    writing to a store."""
    pids = [tmp_path / "one", tmp_path / "two"]
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from ledger.parallel import run_together
        from test_parallel import _sleep_after_ready
        run_together(_sleep_after_ready, {[str(p) for p in pids]!r})
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=Path(__file__).parents[2])
    try:
        deadline = time.monotonic() + 30
        while not all(p.exists() and p.read_text() for p in pids):
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.05)
        workers = [int(p.read_text()) for p in pids]
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()

    deadline = time.monotonic() + 10
    while any(_running(pid) for pid in workers):
        assert time.monotonic() < deadline, "a worker outlived its parent"
        time.sleep(0.05)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"  # a zombie has ended, whoever is to reap it


def multiprocessing_children() -> list:
    import multiprocessing

    return multiprocessing.active_children()


def _killed(share, ready, tick):
    ready()
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_worker_killed_by_a_signal_is_named_by_it():
    with pytest.raises(
        WorkerFailed, match=r"worker 1 stopped without a result \(killed by signal 9 \(SIGKILL\)\)"
    ):
        run_together(_killed, [1])
