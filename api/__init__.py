"""The HTTP adapter: a thin Flask layer over the ledger application.

Nothing is built at import time; :func:`create_app` builds everything, so tests can create as
many independent apps as they like.
"""

import os
from collections.abc import Mapping
from typing import Any

from flask import Flask

from ledger.config import store_env

# Keys of ``config`` that choose the store (the same names as the environment variables).
_STORE_KEYS = ("LEDGER_", "POSTGRES_")


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app.

    ``config`` is layered over the environment: ``LEDGER_*`` and ``POSTGRES_*`` keys choose the
    store as the variables of the same names would, a ready eventsourcing env may be given as
    ``STORE_ENV`` (what the test fixtures do), and any other key goes to ``app.config``.
    """
    config = dict(config or {})
    env = config.pop("STORE_ENV", None)
    if env is None:
        overrides = {k: str(v) for k, v in config.items() if k.startswith(_STORE_KEYS)}
        env = store_env(environ={**os.environ, **overrides})

    app = Flask(__name__)
    app.config.from_mapping(config)
    app.config["STORE_ENV"] = dict(env)

    from api.health import bp as health_bp
    from ledger.application import TwentyOneLedger

    # One ledger application per process; it opens (and on SQLite creates) the store now,
    # so a bad store configuration fails at start, not on the first request.
    app.extensions["ledger"] = TwentyOneLedger(env=dict(env))
    app.register_blueprint(health_bp)
    return app
