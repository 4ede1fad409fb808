"""Shared fixtures: layer markers by directory, and the stores every scenario runs on.

PostgreSQL tests skip when the server is unreachable on a developer's machine, but fail when
``CI=true``: a CI run that quietly skipped the PostgreSQL half would prove nothing about it.
"""

import os
from pathlib import Path

import psycopg
import pytest
from environment import under_ci
from postgres_schemas import create_schema, drop_schema, postgres_connect, postgres_settings

from ledger.config import store_env as build_store_env

TESTS_DIR = Path(__file__).parent
LAYERS = ("unit", "application", "integration", "api", "e2e", "browser")
STORES = ("memory", "sqlite", "postgres")

TEST_ENV = {"LEDGER_ALLOW_FIXED_SHOES": "true"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        try:
            layer = item.path.relative_to(TESTS_DIR).parts[0]
        except ValueError:
            continue
        if layer in LAYERS:
            item.add_marker(getattr(pytest.mark, layer))


# --- PostgreSQL -------------------------------------------------------------------------------


_probe: dict[str, str | None] = {}


def postgres_available() -> bool:
    """Whether PostgreSQL answers; asked once per session."""
    if "error" not in _probe:
        try:
            with postgres_connect() as conn:
                conn.execute("SELECT 1")
        except psycopg.Error as error:
            _probe["error"] = str(error).strip() or type(error).__name__
        else:
            _probe["error"] = None
    return _probe["error"] is None


def require_postgres() -> None:
    if postgres_available():
        return
    s = postgres_settings()
    where = f"{s['host']}:{s['port']}/{s['dbname']}"
    if under_ci():
        pytest.fail(
            f"CI=true and PostgreSQL is NOT reachable at {where} as {s['user']}; "
            "CI must run the PostgreSQL tests, not skip them.\n"
            f"{'!' * 78}\n{_probe['error']}\nStart the server "
            "(pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start) "
            f"or fix POSTGRES_HOST/POSTGRES_PORT/POSTGRES_DBNAME/POSTGRES_USER.\n{'!' * 78}",
            pytrace=False,
        )
    pytest.skip(
        f"PostgreSQL not reachable at {where} — start it or set "
        "POSTGRES_HOST/POSTGRES_PORT/POSTGRES_DBNAME/POSTGRES_USER to run these tests"
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("postgres") is not None:
        require_postgres()


# --- Store environments -----------------------------------------------------------------------


@pytest.fixture(
    params=[
        "memory",
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.postgres),
    ],
    ids=list(STORES),
)
def store_env(request: pytest.FixtureRequest, tmp_path: Path):
    """An eventsourcing env for each store; PostgreSQL gets a fresh schema per test."""
    kind = request.param
    if kind == "postgres":
        require_postgres()  # also when a test picks this param by indirect parametrisation
        schema = create_schema()
        environ = {
            "POSTGRES_POOL_SIZE": "1",  # a test needs few connections; overflow covers bursts
            **os.environ,
            **postgres_settings_env(),
            "POSTGRES_SCHEMA": schema,
        }
        try:
            yield {**build_store_env("postgres", environ=environ), **TEST_ENV}
        finally:
            drop_schema(schema)
    else:
        sqlite_path = str(tmp_path / "ledger.sqlite3")
        yield {**build_store_env(kind, sqlite_path=sqlite_path, environ={}), **TEST_ENV}


def postgres_settings_env() -> dict[str, str]:
    s = postgres_settings()
    return {
        "POSTGRES_HOST": s["host"],
        "POSTGRES_PORT": s["port"],
        "POSTGRES_DBNAME": s["dbname"],
        "POSTGRES_USER": s["user"],
        "POSTGRES_PASSWORD": s["password"],
    }


@pytest.fixture
def sqlite_file(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A SQLite file in the test's own folder, fixed shoes allowed: its env and its path (for
    tests that read or damage the file's rows themselves)."""
    path = tmp_path / "l.sqlite3"
    return {**build_store_env("sqlite", sqlite_path=str(path), environ={}), **TEST_ENV}, path


@pytest.fixture
def memory_env() -> dict[str, str]:
    """The in-memory store only: for fast application tests."""
    return {**build_store_env("memory", environ={}), **TEST_ENV}


@pytest.fixture
def app(memory_env):
    """The ledger on the in-memory store (the API's tests mean their Flask app by ``app``)."""
    from ledger.application import TwentyOneLedger

    application = TwentyOneLedger(env=memory_env)
    yield application
    application.close()
