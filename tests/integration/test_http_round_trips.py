"""What a game action over HTTP asks of PostgreSQL: one read (the events stored since the
cached round, table and wallets) and one append, whatever else the request does (its key,
the round it answers with, the masking). Counted with a spy on psycopg's cursors, so a new
read in a view, the auth or the answer shows up here as a third statement."""

from __future__ import annotations

from collections import Counter
from uuid import uuid4

import psycopg
import pytest

from api import create_app

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.parametrize("store_env", ["postgres"], indirect=True),
]


@pytest.fixture
def statements(monkeypatch):
    """Every statement sent through a psycopg cursor, with the cursor that sent it (held, so
    that a new cursor cannot take a closed one's id)."""
    sent: list[tuple[str, psycopg.Cursor]] = []
    execute = psycopg.Cursor.execute

    def spy(self, query, params=None, **kwargs):
        text = query.decode() if isinstance(query, bytes) else str(query)
        sent.append((text, self))
        return execute(self, query, params, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", spy)
    return sent


def kind(statement: str) -> str:
    if "apistore_events" in statement:
        return "api append" if "INSERT" in statement else "api read"
    if "_snapshots" in statement:
        return "snapshot"  # now and then, when a stream has grown by the interval
    if "shoevault" in statement:
        return "shoe"  # when a shoe is used up and a new one is made
    if "ledger_append_" in statement:
        return "append"
    if "SELECT originator_id, originator_version, topic, state" in statement:
        return "read"
    return statement


@pytest.fixture
def casino(store_env):
    """A casino table with a funded, seated player; the dealer's and the player's headers."""
    # Keys kept for a minute: a key read every API_KEY_CACHE_SECONDS (2 by default) is not
    # what is counted here.
    app = create_app({"TESTING": True, "STORE_ENV": store_env, "API_KEY_CACHE_SECONDS": 60})
    keys = app.extensions["api_store"]
    client = app.test_client()

    def bearer(role, player=None):
        return {"Authorization": f"Bearer {keys.create_key(role, player)[0]}"}

    admin = bearer("admin")
    options = {"insurance": False}  # every round runs stake, stands, end
    table = client.post("/v1/tables", json={"family": "casino", "options": options}, headers=admin)
    table = table.json
    pid = client.post("/v1/players", json={"name": "Ann"}, headers=admin).json["player_id"]
    client.post(f"/v1/players/{pid}/deposits", json={"amount": 100_000}, headers=admin)
    player = bearer("player", pid)
    seat = {"player_id": pid, "seat": 1}
    client.post(f"/v1/tables/{table['table_id']}/seats", json=seat, headers=player)
    yield client, table["table_id"], bearer("dealer"), player
    keys.close()
    app.extensions["ledger"].close()


def play(client, table_id, dealer, player, statements, idem=False) -> list[tuple[str, Counter]]:
    """One round: each request with the kinds of statement it sent (``idem``: each request
    with an Idempotency-Key)."""
    asked: list[tuple[str, Counter]] = []

    def post(name, path, body, headers, status=200):
        before = len(statements)
        if idem:
            headers = {**headers, "Idempotency-Key": uuid4().hex}
        response = client.post(path, json=body, headers=headers)
        assert response.status_code == status, response.json
        kinds = Counter(kind(s) for s, _ in statements[before:])
        asked.append((name, kinds - Counter({"snapshot": 99, "shoe": 99})))
        return response.json

    view = post("start", f"/v1/tables/{table_id}/rounds", None, dealer, 201)
    actions = f"/v1/rounds/{view['round_id']}/actions"
    view = post("stake", actions, {"action": "stake", "amount": 500}, player)["round"]
    while not view["ended"]:
        stand = {"action": "stand", "hand": view["current_turn"]}
        view = post("stand", actions, stand, player)["round"]
    return asked


def test_a_game_action_is_one_read_and_one_append(casino, statements):
    client, table_id, dealer, player = casino
    play(client, table_id, dealer, player, statements)  # the first loads fill the caches
    for _ in range(3):
        for name, asked in play(client, table_id, dealer, player, statements):
            assert asked == Counter({"read": 1, "append": 1}), name


def test_appends_on_one_connection_run_on_one_cursor(casino, statements):
    client, table_id, dealer, player = casino
    play(client, table_id, dealer, player, statements)
    statements.clear()
    for _ in range(4):  # the pool may hand out its connections in turn
        play(client, table_id, dealer, player, statements)
    appended = [cursor for statement, cursor in statements if kind(statement) == "append"]
    connections = {id(cursor.connection) for cursor in appended}
    assert len(appended) > len(connections)  # more appends than connections: a fair test
    assert len({id(cursor) for cursor in appended}) == len(connections)


def test_an_idempotent_action_adds_one_read_and_one_plain_insert_of_the_apis_store(
    casino, statements
):
    """The stored reply is looked up, then kept with an INSERT that neither locks the table
    nor notifies (api/store.py): it does not queue behind other appends."""
    client, table_id, dealer, player = casino
    play(client, table_id, dealer, player, statements, idem=True)
    for name, asked in play(client, table_id, dealer, player, statements, idem=True):
        assert (asked["api read"], asked["api append"]) == (1, 1), name
    api_statements = [s for s, _ in statements if "apistore_events" in s]
    assert not any("ledger_append_" in s for s in api_statements)
