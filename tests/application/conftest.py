"""Fixtures for use-case tests: players with money (the application on the in-memory store,
``app``, is shared from tests/conftest.py), tables whose shoes the test fixes card by card,
and the check that a refused command wrote nothing."""

from __future__ import annotations

from contextlib import contextmanager

import pytest


@pytest.fixture
def fund(app):
    """Register a player with a balance: ``fund("Ann", 10_000) -> player id``."""

    def make(name: str, amount: int = 1_000_000) -> str:
        pid = app.register_player(name)["player_id"]
        if amount:
            app.deposit(pid, amount)
        return pid

    return make


def stored(app) -> tuple[list, list]:
    """Every stored event of the ledger and of its shoe vault, as the recorders hold them."""
    return tuple(
        [
            (n.id, n.originator_id, n.originator_version, n.topic, n.state)
            for n in recorder.select_notifications(start=1, limit=10**6)
        ]
        for recorder in (app.recorder, app.vault.recorder)
    )


@pytest.fixture
def nothing_written(app):
    """``with nothing_written(), pytest.raises(Error): command()``: the refused command left
    the ledger and the shoe vault exactly as they were."""

    @contextmanager
    def check():
        before = stored(app)
        yield
        assert stored(app) == before, "a refused command wrote to the store"

    return check
