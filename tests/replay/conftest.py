"""The replay tests read real stores (memory, SQLite, PostgreSQL): integration tests."""

from __future__ import annotations

from pathlib import Path

import pytest

# The projections' shared fixtures: one history per store (module-scoped) and a live ledger
# with its projections, used by every test_projection*.py.
from test_projections import live, projected  # noqa: F401

HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.integration)
