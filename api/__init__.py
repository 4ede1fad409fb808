"""The HTTP adapter: a thin Flask layer over the ledger application.

Nothing is built at import time; :func:`create_app` builds everything, so tests can create as
many independent apps as they like. Blueprints and schemas are flask-smorest's, so the OpenAPI
document is generated from the same marshmallow schemas that validate the requests.
"""

import os
from collections.abc import Mapping
from typing import Any

import click
from flask import Flask

from ledger.config import store_env
from ledger.settings import SettingError

# Keys of ``config`` that choose the store (the same names as the environment variables).
_STORE_KEYS = ("LEDGER_", "POSTGRES_")
MAX_BODY = 64 * 1024
CONFLICT_RETRIES = 3  # times a command that lost a race is decided again before a 409


def app_settings(
    config: Mapping[str, Any], environ: Mapping[str, str], store: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Every setting the app reads besides the store's, parsed (app config over the store's
    env over the environment): one list, so ``python -m api`` refuses what ``create_app``
    would. A bad one raises ``SettingError`` naming it."""
    from api.audit_page import cookie_secure_setting
    from api.auth import key_cache_setting
    from api.read_models import projection_settings

    ledger = {k: str(v) for k, v in config.items() if k.startswith("LEDGER_")}
    mode, wait_ms = projection_settings({**environ, **(store or {}), **ledger})
    return {
        "API_KEY_CACHE_SECONDS": key_cache_setting(config, environ),
        "AUDIT_COOKIE_SECURE": cookie_secure_setting(config, environ),
        "LEDGER_PROJECTIONS": mode,
        "LEDGER_PROJECTION_WAIT_MS": wait_ms,
    }


def check_app_settings(environ: Mapping[str, str]) -> None:
    """Refuse a bad setting ``create_app`` would read from the environment before the store
    is opened or made (``SettingError`` naming it)."""
    app_settings({}, environ)


class SettingRefused(click.ClickException):
    """A bad setting met while a ``flask --app api …`` command builds the app: click prints
    the one line naming it and exits 2 (bad usage), where Flask would show a traceback."""

    exit_code = 2


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app; see :func:`_build`. A bad setting raises ``SettingError`` naming it
    (``SettingRefused`` inside a click command: ``flask --app api keys …``)."""
    try:
        return _build(config)
    except SettingError as error:
        if click.get_current_context(silent=True) is not None:
            raise SettingRefused(str(error)) from None
        raise


def _build(config: Mapping[str, Any] | None) -> Flask:
    """Build the app.

    ``config`` is layered over the environment: ``LEDGER_*`` and ``POSTGRES_*`` keys choose the
    store as the variables of the same names would, a ready eventsourcing env may be given as
    ``STORE_ENV`` (what the test fixtures do), and any other key goes to ``app.config``.
    """
    config = dict(config or {})
    given_env = config.pop("STORE_ENV", None)

    app = Flask(__name__)
    from api.json_provider import OrjsonProvider

    app.json = OrjsonProvider(app)
    app.config.update(
        API_TITLE="Twenty-One Ledger",
        API_VERSION="v1",
        OPENAPI_VERSION="3.1.0",
        MAX_CONTENT_LENGTH=MAX_BODY,
        JSON_SORT_KEYS=False,
    )
    app.config.from_mapping(config)
    from api import read_models

    # A bad value stops the app at start, before the store is opened (or, on SQLite, its
    # file made), not at a request.
    app.config.update(app_settings(app.config, os.environ, given_env))
    if given_env is None:
        overrides = {k: str(v) for k, v in config.items() if k.startswith(_STORE_KEYS)}
        env = store_env(environ={**os.environ, **overrides})
    else:
        env = given_env
    app.config["STORE_ENV"] = dict(env)

    from flask_smorest import Api

    from api.health import bp as health_bp
    from api.idempotency import note_replay
    from ledger.application import TwentyOneLedger

    # One ledger application per process; it opens (and on SQLite creates) the store now,
    # so a bad store configuration fails at start, not on the first request.
    app.extensions["ledger"] = ledger_app = TwentyOneLedger(env=dict(env))
    # A command that lost a race wrote nothing: decided again against what it now meets, it
    # is what the client's own retry would be, without a 409 (six players staking at once
    # at one table had more than half refused).
    ledger_app.conflict_retries = CONFLICT_RETRIES
    ledger_app.on_replay = note_replay
    read_models.init_app(app, ledger_app, dict(env))
    from api.table_members import TableMembers

    app.extensions["table_members"] = TableMembers()
    app.register_blueprint(health_bp)
    api = Api(app)
    app.extensions["api"] = api

    from api import errors, keys_cli
    from api.resources import BLUEPRINTS
    from api.store import ApiStore

    app.extensions["api_store"] = ApiStore(env=dict(env))
    errors.init_app(app, api)
    keys_cli.init_app(app)
    for blueprint in BLUEPRINTS:
        api.register_blueprint(blueprint)
    from api import audit_page, docs

    app.register_blueprint(docs.bp)
    app.register_blueprint(audit_page.bp)
    return app
