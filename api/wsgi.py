"""The WSGI entry point for gunicorn: ``app`` is built when this module is imported.

This is the one module of ``api`` that builds anything at import time, and only gunicorn
imports it (``wsgi_app = "api.wsgi:app"`` in ``gunicorn.conf.py``). ``preload_app`` is off, so
the import happens in each worker process after the fork: every worker gets its own ledger
application, with its own PostgreSQL pool or SQLite connections (neither survives a fork) and
its own aggregate cache. The caches stay consistent across workers because eventsourcing
fast-forwards a cached aggregate from the shared store on every read, and a write made from a
stale copy is refused by the store (409) rather than applied.
"""

from api import create_app

app = create_app()
