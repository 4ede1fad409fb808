"""What a server of several processes needs: a store they share, and its settings.

gunicorn (``python -m api``, ``make run``, ``gunicorn -c gunicorn.conf.py``) serves from worker
processes of their own, each building its own app (``api.wsgi``). On SQLite and PostgreSQL they
share the store. The memory store (``LEDGER_STORE=memory``) lives in one process's memory: each
worker would start with an empty ledger and an empty key store of its own, so the admin key
printed at start (made in the launching process) and every key ``flask --app api keys create``
makes (in a process of its own) would be unknown to every worker, and each request would be
refused. Such a server is refused at start instead; ``python -m api --dev`` serves the memory
store from one process, where the printed key works.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path

from ledger.config import store_kind
from ledger.settings import SettingError, blank, env_choice, env_int, env_str

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")  # gunicorn's
ACCESS_LOG_OFF = ("off", "none")

# Every variable of README.md's Configuration table (a test holds the two together). A blank
# one counts as unset, for this code (``ledger.settings.blank``) and, through
# :func:`unset_blank`, for what reads the environment itself: gunicorn reads WEB_CONCURRENCY
# with ``int()`` as it is imported, before any config file, and FORWARDED_ALLOW_IPS as given.
VARIABLES = (
    "HOST",
    "PORT",
    "WEB_CONCURRENCY",
    "GUNICORN_THREADS",
    "GUNICORN_TIMEOUT",
    "GUNICORN_LOG_LEVEL",
    "ACCESS_LOG",
    "AUDIT_COOKIE_SECURE",
    "FORWARDED_ALLOW_IPS",
    "API_KEY_CACHE_SECONDS",
    "LEDGER_STORE",
    "LEDGER_SQLITE_PATH",
    "POSTGRES_HOST",
    "POSTGRES_PORT",
    "POSTGRES_DBNAME",
    "POSTGRES_USER",
    "POSTGRES_PASSWORD",
    "POSTGRES_SCHEMA",
    "POSTGRES_CONNECT_TIMEOUT",
    "POSTGRES_POOL_SIZE",
    "POSTGRES_MAX_OVERFLOW",
    "POSTGRES_LOCK_TIMEOUT",
    "AGGREGATE_CACHE_MAXSIZE",
    "LEDGER_PROJECTIONS",
    "LEDGER_PROJECTION_WAIT_MS",
    "LEDGER_ALLOW_FIXED_SHOES",
    "FLASK_DEBUG",
    "CREATE_TABLE",
    "TRANSCODER_TOPIC",
    "CHROMIUM",
    "CI",
)
FORWARDED_ALLOW_IPS = "127.0.0.1,::1"  # gunicorn's default

MEMORY_STORE_REFUSED = (
    "LEDGER_STORE=memory keeps the events in one process's memory, but gunicorn serves from "
    "several worker processes, each of which would start with an empty store (and no API key) "
    "of its own. For a throwaway in-memory server run `python -m api --dev` (one process: the "
    "admin key it prints works); to serve with gunicorn, use LEDGER_STORE=sqlite or postgres."
)


def multiprocess_refusal(env: Mapping[str, str]) -> str | None:
    """Why gunicorn must not serve the store ``env`` selects, or None when it may."""
    return MEMORY_STORE_REFUSED if store_kind(env) == "memory" else None


@dataclass(frozen=True)
class ServerSettings:
    """What gunicorn is told (``gunicorn.conf.py``), read once from the environment, so that
    ``python -m api`` refuses a bad value before it opens the store or starts gunicorn
    (which reads ``WEB_CONCURRENCY`` itself, and would fail on it with a traceback)."""

    host: str
    port: int
    workers: int
    threads: int
    timeout: int
    access_log: str | None  # None: no access log
    log_level: str

    @property
    def bind(self) -> str:
        # An IPv6 address needs brackets in a bind address.
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def server_settings(environ: Mapping[str, str] | None = None) -> ServerSettings:
    """The server's settings; a bad one raises ``SettingError`` naming it."""
    access = env_str("ACCESS_LOG", "-", environ)
    access_log = None if access.strip().lower() in ACCESS_LOG_OFF else access
    if access_log not in (None, "-"):
        check_access_log(access_log)
    return ServerSettings(
        host=env_str("HOST", "127.0.0.1", environ),
        port=env_int("PORT", 8000, environ, minimum=0, maximum=65535),  # 0: any free port
        workers=env_int("WEB_CONCURRENCY", 2, environ, minimum=1),
        threads=env_int("GUNICORN_THREADS", 4, environ, minimum=1),
        timeout=env_int("GUNICORN_TIMEOUT", 30, environ, minimum=0),
        access_log=access_log,
        log_level=env_choice("GUNICORN_LOG_LEVEL", "info", LOG_LEVELS, environ),
    )


def check_access_log(path: str) -> None:
    """Refuse an access log file gunicorn could not open: it would find out only after the
    store was opened and the first admin key printed, and stop there (exit 1). The file
    may be new, but its directory must be there: the server makes none for it."""
    where = Path(path)
    if where.is_dir():
        raise SettingError(f"ACCESS_LOG {path!r} is a directory, not a file")
    if where.exists():
        if not os.access(where, os.W_OK):
            raise SettingError(f"ACCESS_LOG {path!r} cannot be written")
        return
    folder = where.parent
    if not folder.is_dir():
        raise SettingError(
            f"ACCESS_LOG {path!r}: its directory {str(folder)!r} does not exist (the server "
            "makes none for the log)"
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise SettingError(f"ACCESS_LOG {path!r}: its directory {str(folder)!r} cannot be written")


def forwarded_allow_ips(environ: Mapping[str, str] | None = None) -> str:
    """gunicorn's FORWARDED_ALLOW_IPS, blank counting as unset (gunicorn took it for none)."""
    return env_str("FORWARDED_ALLOW_IPS", FORWARDED_ALLOW_IPS, environ)


def unset_blank(environ: MutableMapping[str, str]) -> None:
    """Remove from ``environ`` every variable of :data:`VARIABLES` whose value is blank, so
    that the programs run with it (gunicorn, and eventsourcing and Flask in its workers)
    see it unset too."""
    for name in VARIABLES:
        # A password is taken as it is written, spaces and all (README, Configuration).
        if name != "POSTGRES_PASSWORD" and name in environ and blank(environ[name]):
            del environ[name]
