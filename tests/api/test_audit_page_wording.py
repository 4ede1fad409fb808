"""The audit page's words where the auditor review found them wrong or missing: a split hand's
heading and totals, a revealed seed that does not match its commitment, the money verdict at a
glance, and who caused a shoe's reveal. The rounds are played through the API, as in
test_audit_page.py."""

from __future__ import annotations

import dataclasses
import re
from uuid import UUID

import pytest
from forgery import forge_stream
from ledger_client import Http
from tampering import delete_event
from test_audit_page import audit, page, section
from test_rounds_http import Table, open_table

from api import create_app
from ledger.application import TwentyOneLedger
from ledger.simulate import Settings, run


def casino_round_with_a_split(http: Http) -> Table:
    """Ann splits eights (h1 into h1 and h3), doubles h1, stands on h3; Bob stands."""
    t = open_table(http, "casino", {"insurance": False})
    t.start(["8H", "TS", "TD", "8C", "9S", "7D", "3H", "TC", "2D", "5S", "4S"])
    http.act(t.rid, "Ann", action="stake", amount=500)
    http.act(t.rid, "Bob", action="stake", amount=500)
    http.act(t.rid, "Ann", action="split", hand="h1")
    http.act(t.rid, "Ann", action="double_down", hand="h1")
    http.act(t.rid, "Ann", action="hit", hand="h3")
    http.act(t.rid, "Ann", action="stand", hand="h3")
    http.act(t.rid, "Bob", action="stand", hand="h2")
    return t


def _heading(html: str, hand: str) -> str:
    part = section(html, f"hand-{hand}")
    return re.sub(r"\s+", " ", part[part.index("<h3>") : part.index("</h3>")])


# -- a split ---------------------------------------------------------------------------------


def test_the_original_hand_of_a_split_says_which_hand_it_was_split_into(http):
    t = casino_round_with_a_split(http)
    html = page(t)

    original, new = _heading(html, "h1"), _heading(html, "h3")
    assert "split from" not in original  # never "hand 1 · split from hand 1"
    assert "split into hand 3" in original
    assert "split from hand 1" in new and "split into" not in new
    # The row of the split in the original hand's totals names the hand it opened.
    assert "Hand 1 was split; hand 3 was opened" in section(html, "hand-h1")


def test_the_json_names_the_hands_a_split_opened(http):
    t = casino_round_with_a_split(http)
    hands = {h["id"]: h for h in audit(t)["hands"]}
    assert hands["h1"]["split_into"] == ["h3"] and hands["h3"]["split_into"] == []
    # As the round records it: each hand of a split names the original, which names itself.
    assert hands["h1"]["split_from"] == "h1" and hands["h3"]["split_from"] == "h1"
    split = next(e for e in hands["h1"]["totals"] if e["event"] == "HandSplit")
    assert split["new_hand"] == "h3"


# -- on a SQLite store edited behind the ledger's back ----------------------------------------


@pytest.fixture
def played(sqlite_file):
    """Two casino rounds on random shoes, the table then closed by an admin (its shoe
    revealed); the store's env and path, and the rounds' ids."""
    env, path = sqlite_file
    ledger = TwentyOneLedger(env=env)
    try:
        run(Settings(family="casino", rounds=2, players=2, stake=100), ledger)
        started = _events(ledger, "Round.Started")
        ledger.close_table(str(started[0].table_id))
    finally:
        ledger.close()
    return env, path, [str(e.originator_id) for e in started]


def _events(ledger: TwentyOneLedger, type_end: str) -> list:
    return [
        ledger.mapper.to_domain_event(n)
        for n in ledger.recorder.select_notifications(start=1, limit=10**6)
        if n.topic.endswith(type_end)
    ]


def _read(env: dict, rid: str) -> tuple[str, dict]:
    """The page and the JSON audit of ``rid`` for an auditor, from a server on ``env``."""
    app = create_app({"TESTING": True, "STORE_ENV": env})
    secret, _ = app.extensions["api_store"].create_key("auditor", None, "")
    client = app.test_client()
    headers = {"Authorization": f"Bearer {secret}"}
    response = client.get(f"/audit/rounds/{rid}", headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)[:2000]
    report = client.get(f"/v1/rounds/{rid}/audit", headers=headers)
    assert report.status_code == 200
    return response.get_data(as_text=True), report.get_json()


def _glance(html: str, element_id: str) -> str:
    start = html.index(f'id="{element_id}"')
    return re.sub(r"\s+", " ", html[start : html.index("</div>", start)])


def test_a_revealed_seed_that_does_not_match_its_commitment_is_said_so(played):
    env, _, rids = played
    shoe = _start_shoe(env, rids[0])
    zeros = "0" * 64

    def wrong_seed(events):
        return [dataclasses.replace(e, server_seed=zeros) if _is_reveal(e) else e for e in events]

    forge_stream(env, shoe, wrong_seed)
    html, report = _read(env, rids[0])

    assert report["shoe"]["check"]["ok"] is False
    glance = _glance(html, "shoe-verdict")
    assert "Shoe check: FAIL" in glance
    assert "the revealed seed does not match the commitment" in glance
    assert "At least one card does not match" not in glance
    shoe_part = section(html, "shoe")
    # An auditor sees every card: nothing is "hidden from you" there.
    assert "hidden from you" not in shoe_part
    cards = report["shoe"]["check"]["cards"]
    assert cards and shoe_part.count("none: no card can be derived") == len(cards)


def _start_shoe(env: dict, rid: str) -> str:
    ledger = TwentyOneLedger(env=env)
    try:
        return str(ledger.get_round(rid).start_shoe)
    finally:
        ledger.close()


def _is_reveal(event) -> bool:
    return type(event).__qualname__ == "Shoe.Revealed"


def test_the_reveal_names_who_closed_the_table(played):
    env, _, rids = played
    html, report = _read(env, rids[0])

    revealed = report["shoe"]["recorded"]["revealed"]
    assert revealed["actor"] == "admin" and revealed["reason"] == "the table closed"
    assert revealed["caused_by"]["type"] == "Table.Closed"
    assert revealed["caused_by"]["stream"] == report["table_id"]
    # Recorded in the same save as the reveal: just before it in the log.
    assert revealed["caused_by"]["position"] < revealed["position"]
    row = re.sub(r"\s+", " ", section(html, "shoe"))
    assert "by an administrator, who closed the table (Table.Closed, position" in row


def _punter_and_last_transfer(env: dict, rid: str) -> tuple[str, object]:
    ledger = TwentyOneLedger(env=env)
    try:
        player = str(ledger.get_round(rid).seats[0][1])
        events = list(ledger.events.get(UUID(player)))
    finally:
        ledger.close()
    mine = [e for e in events if getattr(e, "round_id", "") == rid]
    return player, mine[-1]


def test_the_money_adds_up_at_a_glance(played):
    env, _, rids = played
    html, report = _read(env, rids[-1])
    assert report["money_reconciles"]["ok"] is True
    assert "Money: PASS" in _glance(html, "money-verdict")
    assert all(b["reconciled"]["ok"] for b in report["balances"])


@pytest.mark.parametrize("edit", ["dropped", "amount changed"])
def test_a_wallet_whose_transfers_do_not_add_up_fails_at_a_glance(played, edit):
    env, _, rids = played
    rid = rids[-1]
    player, last = _punter_and_last_transfer(env, rid)
    if edit == "dropped":
        delete_event(env["SQLITE_DBNAME"], player, last.originator_version)
    else:

        def more(events):
            version = last.originator_version
            return [
                dataclasses.replace(e, amount=e.amount + 900)
                if e.originator_version == version
                else e
                for e in events
            ]

        forge_stream(env, player, more)

    html, report = _read(env, rid)

    assert report["chain"]["ok"] is True  # the chains hold: only the money shows it
    assert report["money_reconciles"]["ok"] is False
    assert report["money_reconciles"]["fault"].startswith(f"player {player}:")
    glance = _glance(html, "money-verdict")
    assert "Money: FAIL" in glance and "python -m replay verify" in glance
    mine = section(html, f"balance-{player}")
    assert "Does not add up" in mine


def test_a_player_is_told_whether_his_own_wallet_adds_up_and_nothing_of_the_others(http):
    t = casino_round_with_a_split(http)
    mine = audit(t, "Ann")
    assert [b["player"] for b in mine["balances"]] == [t.ids["Ann"]]
    assert mine["money_reconciles"] == {"ok": True, "wallets": 1, "fault": None}
    assert audit(t)["money_reconciles"]["wallets"] == 2  # an auditor: every wallet
