"""Export and import on every store. Items here are marked ``integration``; ``target_env``
is a second, empty store of the same kind as ``store_env`` (a fresh in-memory store, another
SQLite file, or another PostgreSQL schema) to import into."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from postgres_schemas import create_schema, drop_schema

from ledger.config import store_kind

HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture
def target_env(store_env: dict[str, str], tmp_path: Path):
    kind = store_kind(store_env)
    if kind == "sqlite":
        yield {**store_env, "SQLITE_DBNAME": str(tmp_path / "imported.sqlite3")}
    elif kind == "postgres":
        schema = create_schema(f"t_imp_{uuid.uuid4().hex[:12]}")
        try:
            yield {**store_env, "POSTGRES_SCHEMA": schema}
        finally:
            drop_schema(schema)
    else:
        yield dict(store_env)  # every application object gets its own in-memory store
