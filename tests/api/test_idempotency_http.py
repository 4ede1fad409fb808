"""``Idempotency-Key``: a retried POST replays its first answer and never applies twice."""

import pytest

from api import idempotency
from api.store import key_id_for

URL = "/v1/_probe/players"


@pytest.fixture
def player_key(app, make_key):
    pid = app.extensions["ledger"].register_player("Keyholder")["player_id"]
    return make_key("player", pid)


def players(app):
    """How many players the ledger holds."""
    notifications = app.extensions["ledger"].recorder.select_notifications(start=1, limit=1000)
    return sum(n.topic.endswith("Player.Registered") for n in notifications)


def post(client, secret, auth, idem=None, body=None):
    more = {} if idem is None else {"Idempotency-Key": idem}
    return client.post(URL, json=body or {"name": "Bo"}, headers=auth(secret, more))


def test_without_the_header_each_post_applies(probe_client, app, player_key, auth, probe):
    before = players(app)
    first, second = post(probe_client, player_key, auth), post(probe_client, player_key, auth)
    assert first.status_code == second.status_code == 201
    assert first.json["player_id"] != second.json["player_id"]
    assert first.json["command_id"] is None
    assert players(app) == before + 2


def test_retry_replays_the_stored_response(probe_client, app, player_key, auth, probe):
    before = players(app)
    first = post(probe_client, player_key, auth, "k-1")
    assert first.status_code == 201
    assert "Idempotent-Replayed" not in first.headers
    assert first.json["command_id"] == f"http:{key_id_for(player_key)}:k-1"

    again = post(probe_client, player_key, auth, "k-1")
    assert again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json == first.json
    assert again.headers["Location"] == first.headers["Location"]
    assert again.mimetype == "application/json"
    assert probe.calls["players"] == 1
    assert players(app) == before + 1


def test_key_order_and_whitespace_do_not_change_the_request(probe_client, player_key, auth):
    first = post(probe_client, player_key, auth, "k-ws", {"name": "Bo"})
    again = probe_client.post(
        URL,
        data='{ "name" :  "Bo" }',
        content_type="application/json",
        headers=auth(player_key, {"Idempotency-Key": "k-ws"}),
    )
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json == first.json


def test_same_key_other_body_is_a_422_problem(probe_client, player_key, auth):
    assert post(probe_client, player_key, auth, "k-2", {"name": "Bo"}).status_code == 201
    response = post(probe_client, player_key, auth, "k-2", {"name": "Cy"})
    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    assert response.json["type"].endswith("/idempotency-conflict")


def test_keys_are_per_api_key(probe_client, app, make_key, player_key, auth):
    pid = app.extensions["ledger"].register_player("Other")["player_id"]
    other = make_key("player", pid)
    mine = post(probe_client, player_key, auth, "shared")
    theirs = post(probe_client, other, auth, "shared")
    assert "Idempotent-Replayed" not in theirs.headers
    assert mine.json["player_id"] != theirs.json["player_id"]


@pytest.mark.parametrize("idem", ["", "x" * 201, "bad\x01key"])
def test_bad_header_is_400(probe_client, player_key, auth, idem, probe):
    response = post(probe_client, player_key, auth, idem)
    assert response.status_code == 400
    assert response.json["type"].endswith("/bad-idempotency-key")
    assert probe.calls["players"] == 0


def test_200_character_header_is_accepted(probe_client, player_key, auth):
    assert post(probe_client, player_key, auth, "x" * 200).status_code == 201


def test_refusals_are_not_stored(probe_client, player_key, auth, probe):
    bad = post(probe_client, player_key, auth, "k-3", {"name": ""})
    assert bad.status_code == 422
    good = post(probe_client, player_key, auth, "k-3", {"name": "Bo"})
    assert good.status_code == 201
    assert "Idempotent-Replayed" not in good.headers


def test_unauthenticated_retry_is_still_401(probe_client, player_key, auth):
    post(probe_client, player_key, auth, "k-4")
    response = probe_client.post(URL, json={"name": "Bo"}, headers={"Idempotency-Key": "k-4"})
    assert response.status_code == 401


def test_crash_after_the_ledger_write_does_not_apply_twice(
    probe_client, app, player_key, auth, monkeypatch, probe
):
    """The ledger wrote, then the response could not be kept: the retry reuses the command id,
    so the ledger replays its first result instead of registering a second player."""
    store = app.extensions["api_store"]
    real_save = store.save_response

    def crash(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(store, "save_response", crash)
    before = players(app)
    assert post(probe_client, player_key, auth, "k-5").status_code == 500
    assert players(app) == before + 1

    monkeypatch.setattr(store, "save_response", real_save)
    monkeypatch.setattr(idempotency, "FIRST_RESPONSE_WAIT", 0.05)  # none will be kept
    retry = post(probe_client, player_key, auth, "k-5")
    assert retry.status_code == 201
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert players(app) == before + 1  # the CommandRecord replayed; nothing new was written
    third = post(probe_client, player_key, auth, "k-5")
    assert third.headers["Idempotent-Replayed"] == "true"
    assert third.json == retry.json


def test_stored_responses_survive_a_restart(store_env, probe_blueprint, build_app):
    def build():
        app = build_app(store_env)
        app.extensions["api"].register_blueprint(probe_blueprint())
        return app

    first = build()
    ledger = first.extensions["ledger"]
    pid = ledger.register_player("Kept")["player_id"]
    secret, _ = first.extensions["api_store"].create_key("player", pid)
    headers = {"Authorization": f"Bearer {secret}", "Idempotency-Key": "restart"}
    one = first.test_client().post(URL, json={"name": "Bo"}, headers=headers)
    assert one.status_code == 201
    if store_env["PERSISTENCE_MODULE"] == "ledger.memory_store":
        return
    second = build()
    two = second.test_client().post(URL, json={"name": "Bo"}, headers=headers)
    assert two.headers["Idempotent-Replayed"] == "true"
    assert two.json == one.json
