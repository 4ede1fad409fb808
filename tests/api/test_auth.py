"""Bearer keys: who may call what, key storage, and the ``flask keys`` commands."""

import re
import time

import pytest

from api import create_app
from api.auth import Caller, actor_for
from api.keys_cli import ensure_admin_key
from api.store import ApiStore, key_id_for
from ledger.errors import InvalidCommand


@pytest.fixture
def player_id(app):
    return app.extensions["ledger"].register_player("Ann")["player_id"]


@pytest.mark.parametrize(
    "header",
    [None, "Bearer", "Bearer ", "Basic abc", "Bearer tol_not-a-real-key", "tol_no-scheme"],
)
def test_missing_or_unknown_key_is_401(probe_client, header):
    headers = {} if header is None else {"Authorization": header}
    response = probe_client.get("/v1/_probe/whoami", headers=headers)
    assert response.status_code == 401
    assert response.mimetype == "application/problem+json"
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_401_comes_before_validation(probe_client):
    response = probe_client.post("/v1/_probe/players", json={})
    assert response.status_code == 401


def test_revoked_key_is_401(probe_client, app, make_key, auth, player_id):
    secret = make_key("player", player_id)
    assert probe_client.get("/v1/_probe/whoami", headers=auth(secret)).status_code == 200
    app.extensions["api_store"].revoke(key_id_for(secret))
    assert probe_client.get("/v1/_probe/whoami", headers=auth(secret)).status_code == 401


def test_key_is_exposed_on_g(probe_client, make_key, auth, player_id):
    secret = make_key("player", player_id)
    body = probe_client.get("/v1/_probe/whoami", headers=auth(secret)).get_json()
    assert body == {"id": str(key_id_for(secret)), "role": "player", "player_id": player_id}


def test_scheme_is_case_insensitive(probe_client, admin_key):
    headers = {"Authorization": f"bearer {admin_key}"}
    assert probe_client.get("/v1/_probe/whoami", headers=headers).status_code == 200


@pytest.mark.parametrize(
    ("role", "path", "method", "status"),
    [
        ("admin", "/v1/_probe/admin-only", "get", 200),
        ("admin", "/v1/_probe/whoami", "get", 200),  # admin passes every require
        ("player", "/v1/_probe/admin-only", "get", 403),
        ("dealer", "/v1/_probe/admin-only", "get", 403),
        ("auditor", "/v1/_probe/admin-only", "get", 200),  # auditors read everything
        ("auditor", "/v1/_probe/whoami", "get", 200),
        ("auditor", "/v1/_probe/anyone", "get", 200),
        ("auditor", "/v1/_probe/anyone", "post", 403),  # auditors never write
        ("player", "/v1/_probe/anyone", "post", 200),
    ],
)
def test_roles(probe_client, make_key, auth, player_id, role, path, method, status):
    secret = make_key(role, player_id if role in ("player", "dealer") else None)
    response = getattr(probe_client, method)(path, headers=auth(secret))
    assert response.status_code == status
    if status == 403:
        assert response.mimetype == "application/problem+json"


def test_require_rejects_unknown_roles():
    from api.auth import require

    with pytest.raises(ValueError):
        require("croupier")


def test_actor_for():
    assert actor_for(Caller("k", "player", "p1")) == "p1"
    assert actor_for(Caller("k", "dealer", "p2")) == "p2"
    assert actor_for(Caller("k", "dealer")) == "house"
    assert actor_for(Caller("k", "admin")) == "admin"
    assert actor_for(Caller("k", "auditor")) == "auditor"


# --- the store --------------------------------------------------------------------------------


def test_create_key_checks_its_fields(app):
    store = app.extensions["api_store"]
    with pytest.raises(InvalidCommand):
        store.create_key("croupier")
    with pytest.raises(InvalidCommand):
        store.create_key("player")  # a player key needs its player
    with pytest.raises(InvalidCommand):
        store.create_key("admin", "6c1f7d0e-5d0c-4c57-9a60-7a3ad4f5c0d1")


def test_secret_is_not_stored(app):
    store = app.extensions["api_store"]
    secret, key = store.create_key("auditor", label="books")
    assert key.id == key_id_for(secret)
    notifications = store.recorder.select_notifications(start=1, limit=100)
    assert all(secret.encode() not in n.state for n in notifications)
    assert store.find_key(secret).label == "books"
    assert store.find_key(secret + "x") is None


def test_keys_survive_a_restart(store_env, build_app):
    first = build_app(store_env)
    secret, _ = first.extensions["api_store"].create_key("admin")
    if store_env["PERSISTENCE_MODULE"] == "ledger.memory_store":
        return  # nothing survives a restart in memory
    second = build_app(store_env)
    response = second.test_client().get(
        "/v1/no-such", headers={"Authorization": f"Bearer {secret}"}
    )
    assert response.status_code == 404
    assert second.extensions["api_store"].find_key(secret).role == "admin"
    assert second.extensions["api_store"].any_admin_key()


def test_sqlite_store_has_its_own_file(tmp_path):
    from ledger.config import store_env

    path = tmp_path / "ledger.sqlite3"
    app = create_app({"TESTING": True, "STORE_ENV": store_env("sqlite", sqlite_path=str(path))})
    app.extensions["api_store"].create_key("admin")
    assert (tmp_path / "ledger.sqlite3.api").exists()
    assert app.extensions["api_store"].env["SQLITE_DBNAME"] == str(path) + ".api"


def test_api_store_and_ledger_do_not_share_events(app):
    app.extensions["api_store"].create_key("admin")
    ledger = app.extensions["ledger"]
    assert not ledger.recorder.select_notifications(start=1, limit=10)


def test_ensure_admin_key_only_once(memory_env):
    app = create_app({"TESTING": True, "STORE_ENV": memory_env})
    secret = ensure_admin_key(app)
    assert secret and app.extensions["api_store"].find_key(secret).role == "admin"
    assert ensure_admin_key(app) is None


def test_ensure_admin_key_again_when_every_admin_is_revoked(app):
    store: ApiStore = app.extensions["api_store"]
    secret = ensure_admin_key(app)
    store.revoke(key_id_for(secret))
    assert ensure_admin_key(app) not in (None, secret)


# --- flask keys ---------------------------------------------------------------------------------


def test_cli_create_list_revoke(app, runner, probe, player_id):
    result = runner.invoke(args=["keys", "create", "--role", "player", "--player", player_id])
    assert result.exit_code == 0, result.output
    secret = re.search(r"secret \(shown once\): (\S+)", result.output).group(1)
    key_id = str(key_id_for(secret))
    client = app.test_client()
    assert (
        client.get("/v1/_probe/whoami", headers={"Authorization": f"Bearer {secret}"}).json[
            "player_id"
        ]
        == player_id
    )

    listing = runner.invoke(args=["keys", "list"])
    assert listing.exit_code == 0
    assert key_id in listing.output and "active" in listing.output
    assert secret not in listing.output

    revoked = runner.invoke(args=["keys", "revoke", key_id])
    assert revoked.exit_code == 0, revoked.output
    assert "revoked" in runner.invoke(args=["keys", "list"]).output
    response = client.get("/v1/_probe/whoami", headers={"Authorization": f"Bearer {secret}"})
    assert response.status_code == 401


def test_cli_refuses_unknown_player_and_bad_role(runner):
    result = runner.invoke(
        args=[
            "keys",
            "create",
            "--role",
            "player",
            "--player",
            "6c1f7d0e-5d0c-4c57-9a60-7a3ad4f5c0d1",
        ]
    )
    assert result.exit_code != 0
    assert runner.invoke(args=["keys", "create", "--role", "croupier"]).exit_code != 0
    assert runner.invoke(args=["keys", "create", "--role", "player"]).exit_code != 0
    assert runner.invoke(args=["keys", "revoke", "not-a-key"]).exit_code != 0


def test_cli_creates_house_dealer_and_admin_keys(runner, app):
    assert runner.invoke(args=["keys", "create", "--role", "dealer"]).exit_code == 0
    result = runner.invoke(args=["keys", "create", "--role", "admin", "--label", "ops"])
    assert result.exit_code == 0
    roles = sorted(k.role for k in app.extensions["api_store"].list_keys())
    assert roles == ["admin", "dealer"]


def test_an_open_event_stream_ends_when_its_key_is_revoked(app, client, make_key, auth):
    """A stream is authorised at its start; a key revoked while it is open must not go on
    receiving the table's events to the stream's timeout (up to 300 s)."""
    admin = make_key("admin")
    table = client.post(
        "/v1/tables", json={"family": "casino", "name": "t"}, headers=auth(admin)
    ).get_json()["table_id"]
    secret = make_key("auditor")
    response = client.get(
        f"/v1/tables/{table}/events/stream?timeout=60", headers=auth(secret), buffered=False
    )
    assert response.status_code == 200
    frames = iter(response.response)
    assert next(frames).startswith(b": open")

    app.extensions["api_store"].revoke(key_id_for(secret))
    started = time.monotonic()
    rest = "".join(chunk if isinstance(chunk, str) else chunk.decode() for chunk in frames)

    assert time.monotonic() - started < 10  # the key cache (2 s) and a poll, not 60 s
    assert rest.rstrip().endswith(": the key was revoked")
    response.close()
