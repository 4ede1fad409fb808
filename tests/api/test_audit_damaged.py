"""The audit of a round whose stored events are damaged (auditor review): the JSON view and
the page answer 500 with a ``stored-events-damaged`` problem that names the event and says to
run ``python -m replay verify``, instead of a bare internal error."""

from __future__ import annotations

import sqlite3
from uuid import UUID

import pytest

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


def _damage(path, rid: str, version: int, sql: str) -> None:
    with sqlite3.connect(path) as db:
        (rowid,) = db.execute(
            "select rowid from stored_events where originator_id=? and originator_version=?",
            (UUID(rid).hex, version),
        ).fetchone()
        db.execute(sql, (rowid,))


CORRUPT = "update stored_events set state=X'7B2263' where rowid=?"
DELETE = "delete from stored_events where rowid=?"


@pytest.mark.parametrize(("sql", "says"), [(CORRUPT, "cannot be decoded"), (DELETE, "missing")])
def test_the_audit_of_a_damaged_round_names_the_damaged_event(
    store, client, make_key, auth, sql, says
):
    _, path, rid = store
    auditor = make_key("auditor")
    assert client.get(f"/v1/rounds/{rid}/audit", headers=auth(auditor)).status_code == 200
    _damage(path, rid, 2, sql)

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
    _damage(path, rid, 2, CORRUPT)

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
    with sqlite3.connect(path) as db:
        (ann,) = db.execute(
            "select originator_id from stored_events where topic like '%Player.Registered'"
        ).fetchone()
    ann = str(UUID(ann))
    _damage(path, ann, 2, CORRUPT)  # Ann's deposit, read back by the audit for her balance

    response = client.get(f"/v1/rounds/{rid}/audit", headers=auth(make_key("auditor")))

    assert response.status_code == 500
    problem = response.get_json()
    assert problem["type"].endswith("/stored-events-damaged")
    assert problem["stream"] == ann and problem["version"] == 2
    position = problem["position"]  # the audit reads streams with their log positions
    named = f"event Player.FundsTransferred v2 of stream {ann} (position {position}) cannot be"
    assert isinstance(position, int) and named in problem["detail"]
    assert "Failed to deserialise" not in problem["detail"]  # not the library's own message


def _cut_short(path, keep: int = 4000) -> None:
    path.write_bytes(path.read_bytes()[:keep])


def _overwrite_pages(path) -> None:
    """Bytes overwritten inside every page but the first (SQLite's own schema)."""
    with sqlite3.connect(path) as db:
        (page_size,) = db.execute("pragma page_size").fetchone()
        (pages,) = db.execute("pragma page_count").fetchone()
    with open(path, "r+b") as f:
        for page in range(1, pages):
            f.seek(page * page_size + 100)
            f.write(b"\xff" * 400)


@pytest.mark.parametrize("damage", [_cut_short, _overwrite_pages])
def test_the_audit_page_on_a_damaged_sqlite_file_is_an_html_page_naming_it(
    store, client, make_key, auth, damage
):
    env, path, rid = store
    headers = auth(make_key("auditor"), {"Accept": "text/html"})
    assert client.get(f"/audit/rounds/{rid}", headers=headers).status_code == 200
    damage(path)
    if damage is _overwrite_pages:
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
