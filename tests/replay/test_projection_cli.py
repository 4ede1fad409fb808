"""``python -m replay projections | project | rebuild``: where the read models stand, a worker
that keeps them current, and a rebuild from the first event with a progress bar on a
terminal (and only there)."""

from __future__ import annotations

import io
import json
import re
import signal
import sys

import pytest
from test_projections import play_simulations, snapshot

from ledger.application import TwentyOneLedger
from replay.__main__ import main
from replay.projections import open_projections
from replay.projections.cli import progress_bar

# The commands open the store themselves: an in-memory one would start empty.
ON_DISK = pytest.mark.parametrize("store_env", ["sqlite", "postgres"], indirect=True)
NAMES = ["audit_trail", "bankroll", "history"]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def head(store_env):
    """A played history in the store the commands open; its head position."""
    app = TwentyOneLedger(env=store_env)
    try:
        play_simulations(app, rounds=1)
        return app.recorder.max_notification_id()
    finally:
        app.close()


@pytest.fixture(autouse=True)
def keep_sigterm():
    """``project`` installs its own SIGTERM handler (for a worker process); put ours back."""
    before = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, before)


def cli(capsys, env, *argv) -> tuple[int, str, str]:
    code = main(list(argv), env=env)
    out, err = capsys.readouterr()
    return code, out, err


def views(env) -> dict:
    app = TwentyOneLedger(env=env)
    proj = open_projections(app, env)
    try:
        return snapshot(proj)
    finally:
        proj.close()
        app.close()


@ON_DISK
def test_projections_shows_how_far_behind_each_read_model_is(store_env, head, capsys):
    code, out, _ = cli(capsys, store_env, "projections", "--json")
    assert code == 0
    assert json.loads(out) == {
        "head": head,
        "projections": {name: {"position": 0, "lag": head} for name in NAMES},
    }
    code, out, _ = cli(capsys, store_env, "projections")
    assert code == 0 and f"lag {head}" in out and "bankroll" in out


@ON_DISK
def test_project_once_catches_up_and_prints_one_json_line(store_env, head, capsys):
    code, out, _ = cli(capsys, store_env, "project", "--once")
    assert code == 0
    [line] = out.splitlines()
    summary = json.loads(line)
    assert (summary["position"], summary["head"], summary["events"]) == (head, head, head)
    assert summary["projections"] == dict.fromkeys(NAMES, head)
    code, out, _ = cli(capsys, store_env, "projections", "--json")
    assert {p["lag"] for p in json.loads(out)["projections"].values()} == {0}
    code, out, _ = cli(capsys, store_env, "project", "--once")
    [line] = out.splitlines()  # nothing new: still the one line a script reads
    again = json.loads(line)
    assert (code, again["events"], again["position"], again["head"]) == (0, 0, head, head)


@ON_DISK
def test_rebuild_reports_its_events_and_rate_and_builds_the_same_rows(store_env, head, capsys):
    assert cli(capsys, store_env, "project", "--once")[0] == 0
    before = views(store_env)
    code, out, _ = cli(capsys, store_env, "rebuild", "--json")
    assert code == 0
    report = json.loads(out)
    assert (report["events"], report["position"], report["head"]) == (head, head, head)
    assert sorted(report["rebuilt"]) == NAMES
    assert report["seconds"] > 0 and report["events_per_second"] > 0
    assert views(store_env) == before

    code, out, _ = cli(capsys, store_env, "rebuild", "--only", "history")
    assert code == 0 and out.startswith("rebuilt history: ") and "events/s" in out
    assert views(store_env) == before


@ON_DISK
def test_rebuild_of_an_unknown_projection_exits_2_naming_it(store_env, head, capsys):
    code, out, err = cli(capsys, store_env, "rebuild", "--only", "nosuch")
    assert (code, out) == (2, "")
    assert "nosuch" in err and "bankroll" in err


@ON_DISK
def test_a_rebuild_on_a_terminal_draws_a_progress_bar_with_events_per_second(
    store_env, head, capsys, monkeypatch
):
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["rebuild"], env=store_env) == 0
    drawn = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", terminal.getvalue())
    assert "rebuilding" in drawn and f"{head}/{head}" in drawn and "events/s" in drawn


def test_the_progress_bar_appears_only_on_a_terminal():
    with progress_bar("rebuilding", io.StringIO()) as update:
        assert update is None
    terminal = Terminal()
    with progress_bar("rebuilding", terminal) as update:
        assert callable(update)
        update(0, 0, 0)  # an empty log
        update(5, 10, 5)
        update(10, 10, 10)
    assert "10/10" in terminal.getvalue()
