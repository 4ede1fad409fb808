"""Fixtures for use-case tests: players with money (the application on the in-memory store,
``app``, is shared from tests/conftest.py), and tables whose shoes the test fixes card by
card."""

from __future__ import annotations

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
