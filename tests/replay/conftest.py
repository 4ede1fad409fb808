"""The replay tests read real stores (memory, SQLite, PostgreSQL): integration tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from replay_history import play_fixed_casino

# The projections' shared fixtures: one history per store (module-scoped) and a live ledger
# with its projections, used by every test_projection*.py.
from test_projections import live, projected  # noqa: F401

from ledger.application import TwentyOneLedger

HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture
def stored_round(sqlite_file):
    """A SQLite ledger holding one ended casino round (``play_fixed_casino``): its env, its
    file (for tests that damage its rows) and the round's id."""
    env, path = sqlite_file
    app = TwentyOneLedger(env=env)
    try:
        rid = play_fixed_casino(app)
    finally:
        app.close()
    return env, path, rid
