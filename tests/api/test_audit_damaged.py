"""The audit of a round whose stored events are damaged (auditor review): the JSON view and
the page answer 500 with a ``stored-events-damaged`` problem that names the event and says to
run ``python -m replay verify``, instead of a bare internal error."""

from __future__ import annotations

from pathlib import Path

import pytest
from tampering import corrupt_event, cut_short, delete_event, first_row, overwrite_pages

from api import create_app
from ledger.application import TwentyOneLedger


@pytest.fixture
def store(sqlite_file):
    """A SQLite ledger with one round in play (started, two stakes placed)."""
    env, path = sqlite_file
    ledger = TwentyOneLedger(env=env)
    try:
        ann = ledger.register_player("Ann")["player_id"]
        ledger.deposit(ann, 10_000)
        table = ledger.open_table("casino", {"insurance": False})["table_id"]
        ledger.seat_player(table, ann, 1)
        ledger.fix_next_shoe(table, ["2C"] * 30)
        rid = ledger.start_round(table)["round_id"]
        ledger.place_stake(rid, ann, 500)
    finally:
        ledger.close()
    return env, path, rid


@pytest.fixture
def app(store):
    return create_app({"TESTING": True, "STORE_ENV": store[0]})


@pytest.mark.parametrize(
    ("damage", "says"), [(corrupt_event, "cannot be decoded"), (delete_event, "missing")]
)
def test_the_audit_of_a_damaged_round_names_the_damaged_event(
    store, client, make_key, auth, damage, says
):
    _, path, rid = store
    auditor = make_key("auditor")
    assert client.get(f"/v1/rounds/{rid}/audit", headers=auth(auditor)).status_code == 200
    damage(path, rid, 2)

    response = client.get(f"/v1/rounds/{rid}/audit", headers=auth(auditor))

    assert response.status_code == 500
    assert response.mimetype == "application/problem+json"
    problem = response.get_json()
    assert problem["type"].endswith("/stored-events-damaged")
    assert f"v2 of stream {rid}" in problem["detail"] and says in problem["detail"]
    assert "python -m replay verify" in problem["detail"]
    assert problem["stream"] == rid and problem["version"] == 2


def test_the_audit_page_of_a_damaged_round_says_so(store, client, make_key, auth):
    _, path, rid = store
    corrupt_event(path, rid, 2)

    response = client.get(
        f"/audit/rounds/{rid}", headers=auth(make_key("auditor"), {"Accept": "text/html"})
    )

    assert response.status_code == 500 and response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert "Stored events damaged" in page
    assert f"v2 of stream {rid}" in page and "python -m replay verify" in page


def test_a_damaged_wallet_event_is_named_in_the_wallets_stream_not_the_rounds(
    store, client, make_key, auth
):
    _, path, rid = store
    ann = first_row(path, "Player.Registered").stream
    corrupt_event(path, ann, 2)  # Ann's deposit, read back by the audit for her balance

    response = client.get(f"/v1/rounds/{rid}/audit", headers=auth(make_key("auditor")))

    assert response.status_code == 500
    problem = response.get_json()
    assert problem["type"].endswith("/stored-events-damaged")
    assert problem["stream"] == ann and problem["version"] == 2
    position = problem["position"]  # the audit reads streams with their log positions
    named = f"event Player.FundsTransferred v2 of stream {ann} (position {position}) cannot be"
    assert isinstance(position, int) and named in problem["detail"]
    assert "Failed to deserialise" not in problem["detail"]  # not the library's own message


@pytest.mark.parametrize("damage", [cut_short, overwrite_pages])
def test_the_audit_page_on_a_damaged_sqlite_file_is_an_html_page_naming_it(
    store, client, make_key, auth, damage
):
    env, path, rid = store
    headers = auth(make_key("auditor"), {"Accept": "text/html"})
    assert client.get(f"/audit/rounds/{rid}", headers=headers).status_code == 200
    damage(path)
    if damage is overwrite_pages:
        # A server started on the damaged file: a live one's SQLite connections may still
        # hold the pages overwritten in their cache (a file cut short they notice).
        client = create_app({"TESTING": True, "STORE_ENV": env}).test_client()

    response = client.get(f"/audit/rounds/{rid}", headers=headers)

    assert response.status_code == 500 and response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert "Store damaged" in page
    # SQLite's "malformed", or, where the bytes fell inside a row's text, Python's "Could not
    # decode to UTF-8": which depends on where the rows lie in the file.
    assert f"the SQLite file {path} is damaged" in page
    assert "malformed" in page or "Could not decode to UTF-8" in page


def test_an_api_read_on_a_damaged_sqlite_file_is_a_problem_naming_it(store, client, make_key, auth):
    """The JSON API says what the audit page and the replay tools say, not "internal error"."""
    env, path, rid = store
    headers = auth(make_key("auditor"))
    assert client.get(f"/v1/rounds/{rid}/audit", headers=headers).status_code == 200
    cut_short(path)

    response = client.get(f"/v1/rounds/{rid}/audit", headers=headers)

    assert response.status_code == 500 and response.mimetype == "application/problem+json"
    problem = response.get_json()
    assert problem["type"].endswith("/store-file-damaged")
    assert f"the SQLite file {path} is damaged" in problem["detail"]


def test_a_damaged_file_beside_the_ledger_s_is_the_one_named(store):
    """The API's keys live in a file of their own beside the ledger's: when that one is
    damaged, the error (which names no file) is put on it, not on the healthy event log
    (reviewer's finding)."""
    import sqlite3

    from replay.store_file import unreadable_file

    env, path, rid = store
    first = create_app({"TESTING": True, "STORE_ENV": env})
    first.extensions["api_store"].create_key("admin", None, "")
    for store_ in ("api_store", "ledger"):  # closed: their writes are in the files themselves
        first.extensions[store_].close()
    keys = Path(f"{path}.api")
    cut_short(keys, 2000)

    found = unreadable_file(sqlite3.DatabaseError("database disk image is malformed"), env)

    assert found is not None and found.path == str(keys)
    assert f"the SQLite file {keys} is damaged" in str(found)


def test_a_postgresql_error_is_never_read_as_a_damaged_sqlite_file():
    from eventsourcing.persistence import ProgrammingError

    from ledger.config import store_env
    from replay.store_file import unreadable_file

    error = ProgrammingError('malformed array literal: "x"')
    assert unreadable_file(error, store_env("postgres", environ={})) is None
    assert unreadable_file(error, store_env("sqlite", sqlite_path=":memory:", environ={}))


def test_the_audit_page_of_a_round_whose_table_lost_its_opening_says_so(
    store, client, make_key, auth
):
    """The table's last event dropped (its ``Table.RoundOpened`` of the round in play): every
    chain is whole, and the table's record of the round fails, on the page and in JSON."""
    _, path, rid = store
    table = first_row(path, "Table.Opened").stream
    opened = first_row(path, "Table.RoundOpened", table)
    delete_event(path, table, opened.version)
    headers = auth(make_key("auditor"))

    report = client.get(f"/v1/rounds/{rid}/audit", headers=headers).get_json()
    page = client.get(f"/audit/rounds/{rid}", headers={**headers, "Accept": "text/html"})

    assert report["chain"]["ok"] and report["table_record"]["ok"] is False
    assert report["table_record"]["opened"] is None
    assert report["table_record"]["fact"].startswith(
        f"the table {table} has no Table.RoundOpened for this round"
    )
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and "Table's record: FAIL" in text
    assert f"the table {table} has no Table.RoundOpened for this round" in text
