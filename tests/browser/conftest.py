"""Browser fixtures: a real gunicorn process (``benchmarks.server``'s, as in tests/e2e) and
Debian's headless chromium driven by Playwright.

The browser is the system's ``/usr/bin/chromium`` (``make browser`` installs it); Playwright
never downloads one here. Without it these tests skip with the command to run, and fail when
``CI=true``: a CI run that skipped the browser would prove nothing about the page.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from environment import chromium as chromium_path
from environment import under_ci

from api.store import ApiStore
from benchmarks.server import GunicornServer
from ledger.config import store_env

CHROMIUM = chromium_path()
INSTALL_HINT = (
    "run `make browser` (apt-get install -y --no-install-recommends chromium), "
    "and `pip install -e '.[test]'` for playwright"
)
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 15_000


def _missing() -> str | None:
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        return f"{CHROMIUM} is missing"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing"
    return None


@pytest.fixture(scope="session")
def chromium() -> Path:
    missing = _missing()
    if missing is None:
        return CHROMIUM
    if under_ci():
        pytest.fail(
            f"CI=true and {missing}: CI must run the browser tests, not skip them; {INSTALL_HINT}.",
            pytrace=False,
        )
    pytest.skip(f"{missing}: {INSTALL_HINT}")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[GunicornServer]:
    """gunicorn on a fresh SQLite store; its log is printed when the test fails."""
    environ = {
        "LEDGER_STORE": "sqlite",
        "LEDGER_SQLITE_PATH": str(tmp_path / "ledger.sqlite3"),
        "WEB_CONCURRENCY": "1",
        "ACCESS_LOG": "off",
    }
    started = GunicornServer(environ, tmp_path / "gunicorn.log")
    started.start()
    try:
        yield started
    finally:
        started.stop()
        print(started.log()[-4000:])


@pytest.fixture
def make_key(tmp_path: Path, server: GunicornServer) -> Iterator[Callable[..., str]]:
    """``make_key(role, player_id=None)``: a key written to the server's store from this
    process (the server reads keys from the store, so it sees new ones at once)."""
    sqlite_path = str(tmp_path / "ledger.sqlite3")
    store = ApiStore(env=store_env("sqlite", sqlite_path=sqlite_path, environ={}))

    def make(role: str, player_id: str | None = None) -> str:
        return store.create_key(role, player_id, f"browser test {role}")[0]

    yield make
    store.close()


@pytest.fixture
def browser(chromium: Path, tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """``browser(**context_options)``: a new headless chromium with a fresh profile each
    time; all are closed at the end of the test."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        contexts: list[Any] = []

        def open_context(**options: Any) -> Any:
            profile = tmp_path / f"profile-{len(contexts)}"
            context = playwright.chromium.launch_persistent_context(
                str(profile),
                executable_path=str(chromium),
                headless=True,
                args=LAUNCH_ARGS,
                viewport={"width": 1200, "height": 900},
                timeout=TIMEOUT_MS,
                **options,
            )
            context.set_default_timeout(TIMEOUT_MS)
            contexts.append(context)
            return context

        try:
            yield open_context
        finally:
            for context in contexts:
                context.close()
            for index in range(len(contexts)):
                shutil.rmtree(tmp_path / f"profile-{index}", ignore_errors=True)
