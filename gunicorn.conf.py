"""gunicorn's settings for the ledger's HTTP API (``python -m api`` and ``make run`` use it;
``gunicorn -c gunicorn.conf.py`` works as well).

Environment:

* ``HOST`` / ``PORT``: where to listen (default 127.0.0.1:8000; ``PORT=0`` picks a free port,
  which the log line ``Listening at: …`` names — the end-to-end tests rely on it).
* ``WEB_CONCURRENCY``: worker processes (default 2). Each builds its own app (``api.wsgi``).
* ``GUNICORN_THREADS``: threads per worker (default 4). gthread workers keep HTTP connections
  alive and overlap requests waiting on the database; the GIL makes more threads pointless.
* ``GUNICORN_TIMEOUT``: seconds a silent worker may take before it is restarted (default 30).
* ``POSTGRES_POOL_SIZE``: when unset or empty, set to ``GUNICORN_THREADS`` for the workers.
* ``ACCESS_LOG``: ``-`` (default) logs each request to stdout, a path logs to that file (its
  directory must exist), and ``off`` (or ``none``) logs none.
* ``FORWARDED_ALLOW_IPS``: gunicorn's own, read here again so that a blank one is its default.
* A blank value counts as unset, for every variable.
* The ``LEDGER_*`` and ``POSTGRES_*`` variables choose the store, as everywhere else.
"""

import os

from api.serving import forwarded_allow_ips as _forwarded_allow_ips
from api.serving import server_settings
from ledger.settings import SettingError, blank

try:
    _server = server_settings()  # the variables above; python -m api checks them before exec
except SettingError as error:
    # gunicorn prints any other error of its config file as a traceback (exit 1); a
    # SystemExit passes through, one line naming the variable, as on_starting's below.
    raise SystemExit(f"gunicorn: {error}") from None

wsgi_app = "api.wsgi:app"
bind = [_server.bind]
workers = _server.workers
worker_class = "gthread"
threads = _server.threads
# Off on purpose: an app built in the master would share its database connections with every
# forked worker. Each worker imports api.wsgi itself.
preload_app = False
timeout = _server.timeout
graceful_timeout = 10  # a stop lets requests in flight finish, but not forever
keepalive = 5  # load generators and front ends reuse connections between calls
# gunicorn 24+ opens a control socket at one fixed path per user: two servers on one machine
# (tests, benchmarks) would fight over it, and nothing here uses it. Older versions ignore it.
control_socket_disable = True

accesslog = _server.access_log
# gunicorn's own variable, read again here: gunicorn takes an empty one for "no proxy".
forwarded_allow_ips = _forwarded_allow_ips()
# Ends with the worker's pid, "<1234>": with several workers, which one served a request.
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms %(p)s'
errorlog = "-"
loglevel = _server.log_level

# A worker serves at most ``threads`` requests at once, so its PostgreSQL pools need no more
# connections than that; eventsourcing's default (5 per application, 3 applications per worker)
# would exhaust a stock server's 100 connections with a handful of workers. An empty value (as
# `set -a; . ./.env` exports for a blank line) counts as unset, as it does everywhere else.
if blank(os.environ.get("POSTGRES_POOL_SIZE")):
    os.environ["POSTGRES_POOL_SIZE"] = str(threads)


def on_starting(server):  # noqa: ARG001 - gunicorn's hook signature
    """Create the store's tables once, in the master, before any worker exists, and tell the
    workers (they inherit the master's environment) not to: eventsourcing's table creation
    also replaces PostgreSQL functions, and workers doing that at once fail with "tuple
    concurrently updated" even when the tables exist. A bad store setting fails here, at
    start, with one clear traceback instead of one per worker."""
    from api import create_app
    from api.serving import multiprocess_refusal
    from ledger.config import store_env
    from ledger.settings import SettingError

    try:
        refusal = multiprocess_refusal(store_env())
        if refusal is not None:
            raise SystemExit(f"gunicorn: {refusal}")
        app = create_app()
    except SettingError as error:  # one line naming the variable, as python -m api says it
        raise SystemExit(f"gunicorn: {error}") from None
    app.extensions["ledger"].close()
    app.extensions["api_store"].close()
    os.environ["CREATE_TABLE"] = "false"
