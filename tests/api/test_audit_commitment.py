"""The audit (JSON and page) of a round whose shoe's commitment was moved in the store's log to
after the round's first card: the events' hashes still hold, so only their positions show it,
and the audit says so as a fault, to an auditor and to the round's players alike (where a
commitment was recorded is public; the seed is not)."""

from __future__ import annotations

import sqlite3
from uuid import UUID

import pytest

from api import create_app
from ledger.application import TwentyOneLedger


@pytest.fixture
def store(sqlite_file):
    """A SQLite ledger with one ended Vingt-un round, its shoe's commitment then moved to the
    end of the log (the table still open, so the seed is not revealed)."""
    env, path = sqlite_file
    ledger = TwentyOneLedger(env=env)
    try:
        dee, ann = (ledger.register_player(n)["player_id"] for n in ("Dee", "Ann"))
        for pid in (dee, ann):
            ledger.deposit(pid, 10_000)
        table = ledger.open_table("vingt-un", {})["table_id"]
        ledger.seat_player(table, dee, 1)
        ledger.seat_player(table, ann, 2)
        ledger.choose_dealer(table, dee)
        ledger.fix_next_shoe(table, ["TC", "9C", "8C", "9D"])
        rid = ledger.start_round(table, actor=dee)["round_id"]
        ledger.place_stake(rid, ann, 200)
        ledger.act(rid, "dealer_double", actor=dee, called=False)
        ledger.act(rid, "stand", actor=ann, hand="h1")
        ledger.act(rid, "dealer_stand", actor=dee)
        shoe = str(ledger.get_round(rid).start_shoe)
    finally:
        ledger.close()
    return env, path, rid, shoe, ann


@pytest.fixture
def app(store):
    return create_app({"TESTING": True, "STORE_ENV": store[0]})


def _move_commitment_to_the_end(path, shoe: str) -> None:
    with sqlite3.connect(path) as db:
        db.execute(
            "update stored_events set rowid = (select max(rowid) + 1 from stored_events)"
            " where originator_id = ? and originator_version = 1",
            (UUID(shoe).hex,),
        )


def test_the_audit_flags_a_commitment_recorded_after_the_first_card(store, client, make_key, auth):
    _, path, rid, shoe, ann = store
    auditor = make_key("auditor")
    before = client.get(f"/v1/rounds/{rid}/audit", headers=auth(auditor)).get_json()
    assert before["committed_before_deal"] == {"ok": True, "fault": None}
    _move_commitment_to_the_end(path, shoe)

    report = client.get(f"/v1/rounds/{rid}/audit", headers=auth(auditor)).get_json()
    verdict = report["shoe"]["committed_before_deal"]
    assert verdict["ok"] is False and "not fixed before the deal" in verdict["fact"]
    assert verdict["commitment_position"] > verdict["first_card"]["position"]
    assert report["shoe"]["recorded"]["committed"]["position"] == verdict["commitment_position"]
    assert report["shoe"]["recorded"]["cut"]["position"] == verdict["cut_position"]
    assert report["committed_before_deal"]["ok"] is False
    assert report["committed_before_deal"]["fault"] == f"shoe {shoe}: {verdict['fact']}"
    assert report["chain"]["ok"]  # the hashes cannot show it

    page = client.get(
        f"/audit/rounds/{rid}", headers=auth(auditor, {"Accept": "text/html"})
    ).get_data(as_text=True)
    assert "Commitment and cut first: FAIL" in page and "not fixed before the deal" in page

    player = make_key("player", player_id=ann)
    mine = client.get(f"/v1/rounds/{rid}/audit", headers=auth(player)).get_json()
    assert mine["scope"] == "player"
    assert mine["committed_before_deal"] == report["committed_before_deal"]
    assert mine["shoe"]["server_seed"] is None  # not revealed: nothing of the order


def test_the_audit_flags_a_cut_recorded_after_the_first_card(store, client, make_key, auth):
    """The cut orders the deal: a cut made after a card lets whoever knows the seed choose
    the cards to come, so it too must come before the first card (SHUFFLE.md)."""
    _, path, rid, shoe, _ = store
    with sqlite3.connect(path) as db:
        db.execute(
            "update stored_events set rowid = (select max(rowid) + 1 from stored_events)"
            " where originator_id = ? and originator_version = 2",
            (UUID(shoe).hex,),
        )
    auditor = make_key("auditor")

    report = client.get(f"/v1/rounds/{rid}/audit", headers=auth(auditor)).get_json()

    verdict = report["shoe"]["committed_before_deal"]
    assert verdict["ok"] is False
    assert verdict["commitment_position"] < verdict["first_card"]["position"]
    assert verdict["cut_position"] > verdict["first_card"]["position"]
    assert verdict["fact"].startswith(f"the cut (position {verdict['cut_position']}) was")
    page = client.get(
        f"/audit/rounds/{rid}", headers=auth(auditor, {"Accept": "text/html"})
    ).get_data(as_text=True)
    assert "Commitment and cut first: FAIL" in page and "the dealing order was not fixed" in page
