"""The test PostgreSQL server, and scratch schemas on it: one per test (``store_env``), or a
second one beside it (an import target, a from-scratch rebuild)."""

from __future__ import annotations

import os
import uuid

import psycopg
from psycopg import sql

from ledger.settings import env_str


def postgres_settings() -> dict[str, str]:
    """The test server, from the ledger's own variables read as the ledger reads them (a
    blank one is its default)."""
    return {
        "host": env_str("POSTGRES_HOST", "127.0.0.1"),
        "port": env_str("POSTGRES_PORT", "5432"),
        "dbname": env_str("POSTGRES_DBNAME", "test"),
        "user": env_str("POSTGRES_USER", "postgres"),
        "password": os.environ.get("POSTGRES_PASSWORD") or "",
    }


def postgres_connect() -> psycopg.Connection:
    return psycopg.connect(**postgres_settings(), connect_timeout=2, autocommit=True)


def create_schema(name: str | None = None) -> str:
    name = name or f"t_{uuid.uuid4().hex[:12]}"
    with postgres_connect() as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
    return name


def drop_schema(name: str) -> None:
    with postgres_connect() as conn:
        # An application a test left open could hold a lock: wait a while, never forever.
        conn.execute("SET lock_timeout = '10s'")
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))
