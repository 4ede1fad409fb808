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

from collections.abc import Mapping
from dataclasses import dataclass

from ledger.config import env_choice, env_int, env_str, store_kind

LOG_LEVELS = ("debug", "info", "warning", "error", "critical")  # gunicorn's

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
    return ServerSettings(
        host=env_str("HOST", "127.0.0.1", environ),
        port=env_int("PORT", 8000, environ, minimum=0, maximum=65535),  # 0: any free port
        workers=env_int("WEB_CONCURRENCY", 2, environ, minimum=1),
        threads=env_int("GUNICORN_THREADS", 4, environ, minimum=1),
        timeout=env_int("GUNICORN_TIMEOUT", 30, environ, minimum=0),
        access_log=None if access.strip().lower() in ("off", "none", "") else access,
        log_level=env_choice("GUNICORN_LOG_LEVEL", "info", LOG_LEVELS, environ),
    )
