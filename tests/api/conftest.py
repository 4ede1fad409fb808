import pytest
from ledger_client import Http

from api import create_app


@pytest.fixture
def app(memory_env):
    return create_app({"TESTING": True, "STORE_ENV": memory_env})


@pytest.fixture
def http(app, client, make_key, admin_key):
    """A client of the API acting as admin unless told which key (tests/api/ledger_client.py)."""
    return Http(app, client, make_key, admin_key)


@pytest.fixture
def closes_apps():
    """``closes_apps(app)``: the app's stores are closed when the test ends. One left to the
    garbage collector may be closed later, from its own thread (a PostgreSQL pool) or with a
    warning, failing whichever test is running then."""
    apps = []
    yield apps.append
    for app in apps:
        for name in ("ledger", "api_store", "projections"):
            if name in app.extensions:
                app.extensions[name].close()


@pytest.fixture
def build_app(closes_apps):
    """``build_app(store_env)`` -> a new app on that store, closed when the test ends."""

    def build(store_env):
        app = create_app({"TESTING": True, "STORE_ENV": store_env})
        closes_apps(app)
        return app

    return build


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


# --- API keys (api/store.py, api/auth.py) -------------------------------------------------


@pytest.fixture
def make_key(app):
    """``make_key(role, player_id=None, label="")`` -> the new key's secret."""

    def make(role: str, player_id: str | None = None, label: str = "") -> str:
        secret, _ = app.extensions["api_store"].create_key(role, player_id, label)
        return secret

    return make


@pytest.fixture
def admin_key(make_key) -> str:
    return make_key("admin", label="test admin")


@pytest.fixture
def auth():
    """``auth(secret, more=None)`` -> the headers of a request made with that key (plus
    ``more``, e.g. ``{"Idempotency-Key": "k1"}``)."""

    def headers(secret: str, more: dict[str, str] | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {secret}", **(more or {})}

    return headers


def _probe_blueprint():
    """A throw-away blueprint exercising auth, idempotency and errors without the resources."""
    from flask import g
    from marshmallow import Schema, fields, validate

    from api.auth import require
    from api.body import Blueprint
    from api.idempotency import idempotent
    from ledger import errors as ledger_errors

    class NameSchema(Schema):
        name = fields.String(required=True, validate=validate.Length(min=1, max=100))

    blp = Blueprint("probe", __name__, url_prefix="/v1/_probe")
    calls = {"players": 0}

    @blp.route("/players", methods=["POST"])
    @require("player", "dealer")
    @idempotent
    @blp.arguments(NameSchema)
    @blp.response(201)
    def register(body):
        from flask import current_app

        calls["players"] += 1
        ledger = current_app.extensions["ledger"]
        made = ledger.register_player(body["name"], command_id=g.get("command_id"))
        return (
            {"player_id": made["player_id"], "command_id": g.get("command_id")},
            201,
            {"Location": f"/v1/players/{made['player_id']}"},
        )

    @blp.route("/whoami")
    @require("player", "dealer", "auditor")
    def whoami():
        key = g.key
        return {"id": key.id, "role": key.role, "player_id": key.player_id}

    @blp.route("/admin-only")
    @require("admin")
    def admin_only():
        return {"ok": True}

    @blp.route("/anyone", methods=["GET", "POST"])
    @require()
    def anyone():
        return {"ok": True}

    @blp.route("/raise/<kind>")
    def raise_(kind):
        cls = getattr(ledger_errors, kind)
        raise cls(f"refused: {kind}", clause="VU-7")

    @blp.route("/boom")
    def boom():
        raise RuntimeError("secret internals: password=hunter2")

    blp.calls = calls
    return blp


@pytest.fixture
def probe(app):
    """The ``app`` with the probe blueprint under /v1/_probe; ``probe.calls`` counts runs."""
    blp = _probe_blueprint()
    app.extensions["api"].register_blueprint(blp)
    return blp


@pytest.fixture
def probe_client(app, probe):
    return app.test_client()


@pytest.fixture
def probe_blueprint():
    """The probe blueprint's factory, for tests that build their own apps."""
    return _probe_blueprint
