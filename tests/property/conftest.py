"""Property tests run on the in-memory store, so they belong to the ``application`` layer:
``make test-application`` (``-m application``) selects them with the use-case tests."""

from __future__ import annotations

from pathlib import Path

import pytest

PROPERTY_DIR = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        try:
            item.path.relative_to(PROPERTY_DIR)
        except ValueError:
            continue
        item.add_marker(pytest.mark.application)
