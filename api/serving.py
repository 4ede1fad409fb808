"""What a server of several processes needs of its store.

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

from ledger.config import store_kind

MEMORY_STORE_REFUSED = (
    "LEDGER_STORE=memory keeps the events in one process's memory, but gunicorn serves from "
    "several worker processes, each of which would start with an empty store (and no API key) "
    "of its own. For a throwaway in-memory server run `python -m api --dev` (one process: the "
    "admin key it prints works); to serve with gunicorn, use LEDGER_STORE=sqlite or postgres."
)


def multiprocess_refusal(env: Mapping[str, str]) -> str | None:
    """Why gunicorn must not serve the store ``env`` selects, or None when it may."""
    return MEMORY_STORE_REFUSED if store_kind(env) == "memory" else None
