"""The test suite's own variables (README, Configuration), read as the ledger reads its own: a
blank value counts as unset (``ledger.settings.env_str``).

Kept beside the top-level conftest.py, whose folder pytest puts on ``sys.path``, so that every
conftest can import it (``from environment import under_ci``)."""

from __future__ import annotations

from pathlib import Path

from ledger.settings import env_str


def under_ci() -> bool:
    """``CI=true``: an unreachable PostgreSQL or a missing browser fails its tests."""
    return env_str("CI", "").strip().lower() == "true"


def chromium() -> Path:
    """The browser the browser tests drive (``CHROMIUM``)."""
    return Path(env_str("CHROMIUM", "/usr/bin/chromium"))
