"""Shared fixtures: layer markers by directory, and the stores every scenario runs on.

PostgreSQL tests skip when the server is unreachable on a developer's machine, but fail when
``CI=true``: a CI run that quietly skipped the PostgreSQL half would prove nothing about it.
"""

import os
import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

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


def postgres_settings() -> dict[str, str]:
    return {
        "host": os.environ.get("POSTGRES_HOST", "127.0.0.1"),
        "port": os.environ.get("POSTGRES_PORT", "5432"),
        "dbname": os.environ.get("POSTGRES_DBNAME", "test"),
        "user": os.environ.get("POSTGRES_USER", "postgres"),
        "password": os.environ.get("POSTGRES_PASSWORD", ""),
    }


def postgres_connect() -> psycopg.Connection:
    return psycopg.connect(**postgres_settings(), connect_timeout=2, autocommit=True)


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
    if os.environ.get("CI", "").lower() == "true":
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


def _create_schema() -> str:
    name = f"t_{uuid.uuid4().hex[:12]}"
    with postgres_connect() as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
    return name


def _drop_schema(name: str) -> None:
    with postgres_connect() as conn:
        # An application a test left open could hold a lock: wait a while, never forever.
        conn.execute("SET lock_timeout = '10s'")
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))


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
        schema = _create_schema()
        environ = {
            "POSTGRES_POOL_SIZE": "1",  # a test needs few connections; overflow covers bursts
            **os.environ,
            **postgres_settings_env(),
            "POSTGRES_SCHEMA": schema,
        }
        try:
            yield {**build_store_env("postgres", environ=environ), **TEST_ENV}
        finally:
            _drop_schema(schema)
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
def memory_env() -> dict[str, str]:
    """The in-memory store only: for fast application tests."""
    return {**build_store_env("memory", environ={}), **TEST_ENV}
