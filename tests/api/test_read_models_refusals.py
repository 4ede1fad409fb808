"""The read-model reads when they cannot answer (reviewer's report): a ``?position=`` beyond
the log's last position is refused at once with the feed's 422 ``cursor-beyond-log`` (never
waited for, never a 503 whose Retry-After a client would obey forever), and a stored event the
projectors cannot decode is the audit's 500 ``stored-events-damaged`` problem naming it, for
every read, not a bare internal error."""

from __future__ import annotations

import pytest
from tampering import alter, damage

from api import create_app
from ledger.application import TwentyOneLedger
from replay.damage import StoreDamaged
from replay.projections import open_projections

PROBLEM = "application/problem+json"


@pytest.fixture
def store(sqlite_file):
    """A SQLite ledger: Ann and Bob funded, a casino table, a round with both stakes."""
    env, path = sqlite_file
    ledger = TwentyOneLedger(env=env)
    try:
        ann = ledger.register_player("Ann")["player_id"]
        bob = ledger.register_player("Bob")["player_id"]
        for pid in (ann, bob):
            ledger.deposit(pid, 10_000)
        table = ledger.open_table("casino", {"insurance": False})["table_id"]
        ledger.seat_player(table, ann, 1)
        ledger.seat_player(table, bob, 2)
        ledger.fix_next_shoe(table, ["2C"] * 30)
        rid = ledger.start_round(table)["round_id"]
        ledger.place_stake(rid, ann, 500)
        ledger.place_stake(rid, bob, 500)
    finally:
        ledger.close()
    return {"env": env, "path": path, "ann": ann, "bob": bob, "table": table, "round": rid}


@pytest.fixture
def app(store):
    return create_app({"TESTING": True, "STORE_ENV": store["env"]})


def reads(store) -> list[str]:
    return [
        f"/v1/players/{store['bob']}/bankroll",
        f"/v1/players/{store['bob']}/rounds",
        f"/v1/tables/{store['table']}/rounds",
        f"/v1/tables/{store['table']}/results",
        "/v1/accounts/cashier",
        f"/v1/rounds/{store['round']}/trail",
    ]


READS = range(6)


@pytest.mark.parametrize("which", READS)
def test_a_position_beyond_the_log_is_refused_at_once_as_the_feed_refuses_a_cursor(
    app, store, client, make_key, auth, monkeypatch, which
):
    projections = app.extensions["projections"]
    real, waited = projections.ensure, []
    monkeypatch.setattr(projections, "ensure", lambda *a, **k: waited.append(a) or real(*a, **k))
    head = projections.head()
    path = reads(store)[which]

    response = client.get(f"{path}?position={head + 1}", headers=auth(make_key("admin")))

    assert response.status_code == 422 and response.mimetype == PROBLEM
    problem = response.get_json()
    assert problem["type"].endswith("/cursor-beyond-log")
    assert f"position={head + 1} is beyond the log's last position ({head})" in problem["detail"]
    assert "Retry-After" not in response.headers
    assert waited == []  # refused before any wait for the read models


def test_a_position_at_the_head_is_still_read(store, client, make_key, auth, app):
    head = app.extensions["projections"].head()

    response = client.get(
        f"/v1/players/{store['bob']}/bankroll?position={head}", headers=auth(make_key("admin"))
    )

    assert response.status_code == 200 and response.get_json()["projected_to"] >= head


def damage_anns_deposit(path, ann: str, altered: bool = False) -> tuple[int, int]:
    """Garbage in place of Ann's deposit (a Player.FundsTransferred), or when ``altered`` its
    JSON without its amount; its position, version."""
    if altered:
        position, _, version = alter(path, "Player.FundsTransferred", _no_amount, stream=ann)
    else:
        position, _, version = damage(path, "Player.FundsTransferred", stream=ann)
    return position, version


def _no_amount(fields: dict) -> None:
    del fields["amount"]


@pytest.mark.parametrize("which", READS)
@pytest.mark.parametrize("with_position", [False, True])
def test_a_damaged_event_is_named_by_every_read_model_read(
    store, client, make_key, auth, app, which, with_position
):
    position, version = damage_anns_deposit(store["path"], store["ann"])
    path = reads(store)[which]
    if with_position:
        path += f"?position={app.extensions['projections'].head()}"

    response = client.get(path, headers=auth(make_key("admin")))

    assert response.status_code == 500 and response.mimetype == PROBLEM
    problem = response.get_json()
    assert problem["type"].endswith("/stored-events-damaged")
    assert problem["stream"] == store["ann"]
    assert problem["version"] == version and problem["position"] == position
    assert (
        f"event Player.FundsTransferred v{version} of stream {store['ann']} "
        f"(position {position}) cannot be decoded" in problem["detail"]
    )
    assert "python -m replay verify" in problem["detail"]
    # The projections stopped at the event, keeping what came before it.
    assert app.extensions["projections"].position() == position - 1


def test_an_event_whose_fields_were_altered_is_named_not_a_bare_500(
    store, client, make_key, auth, app
):
    """Valid JSON without a field the projector reads: the event no longer matches its hash,
    and the read answers the same problem, saying so."""
    position, version = damage_anns_deposit(store["path"], store["ann"], altered=True)

    response = client.get(reads(store)[READS[0]], headers=auth(make_key("admin")))

    assert response.status_code == 500 and response.mimetype == PROBLEM
    problem = response.get_json()
    assert problem["type"].endswith("/stored-events-damaged")
    assert problem["version"] == version and problem["position"] == position
    assert (
        f"event Player.FundsTransferred v{version} of stream {store['ann']} "
        f"(position {position}) was altered: its fields are not what was recorded"
        in problem["detail"]
    )
    assert app.extensions["projections"].position() == position - 1


def _external_bankroll_read_at_the_head(store) -> tuple:
    """Bob's bankroll at the log's head, asked of an API whose projections an external worker
    folds (waiting 50 ms for it); the app and the response."""
    app = create_app(
        {
            "TESTING": True,
            "STORE_ENV": store["env"],
            "LEDGER_PROJECTIONS": "external",
            "LEDGER_PROJECTION_WAIT_MS": 50,
        }
    )
    admin = app.extensions["api_store"].create_key("admin", None, "")[0]
    head = app.extensions["projections"].head()
    response = app.test_client().get(
        f"/v1/players/{store['bob']}/bankroll?position={head}",
        headers={"Authorization": f"Bearer {admin}"},
    )
    return app, response


@pytest.mark.parametrize("altered", [False, True])
def test_an_external_api_names_the_damaged_event_its_worker_stopped_at(store, altered):
    """The worker runs elsewhere and stopped at a damaged event: a read waiting for a
    position past it says why (the event it cannot pass), not 503 projection-lag."""
    position, version = damage_anns_deposit(store["path"], store["ann"], altered=altered)
    worker = TwentyOneLedger(env=store["env"])
    views = open_projections(worker, store["env"])
    try:
        with pytest.raises(StoreDamaged):
            views.catch_up()
    finally:
        views.close()
        worker.close()
    app, response = _external_bankroll_read_at_the_head(store)

    assert response.status_code == 500 and response.mimetype == PROBLEM
    problem = response.get_json()
    assert problem["type"].endswith("/stored-events-damaged")
    assert problem["version"] == version and problem["position"] == position
    said = "was altered" if altered else "cannot be decoded"
    assert said in problem["detail"]
    # The API folds nothing itself in external mode.
    assert app.extensions["projections"].position() == position - 1


def test_an_external_api_whose_worker_is_merely_behind_still_answers_lag(store):
    app, response = _external_bankroll_read_at_the_head(store)

    assert response.status_code == 503
    assert response.get_json()["type"].endswith("/projection-lag")
