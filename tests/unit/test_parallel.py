"""``ledger.parallel.run_together``: shares run in processes of their own, started together;
results come back in order, progress adds up, and a worker's failure is the parent's error."""

from __future__ import annotations

import os

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
