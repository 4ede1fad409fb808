"""A round's audit gives every event it lists its position in the notification log (the order
``replay export`` and ``verify`` show), read with the events, and states as a checked fact
whether each shoe's commitment was recorded before the round's first card from it
(SHUFFLE.md: the shuffle is fixed before the deal), flagging a store where it was not."""

from __future__ import annotations

import json
import re
import sqlite3
from uuid import UUID

import pytest

from ledger.application import TwentyOneLedger
from replay.__main__ import main
from replay.audit import audit_round


def vingt_un_round(app) -> str:
    """An ended Vingt-un round with a pool ante (its legs in the table's stream), its shoe
    then revealed by closing the table."""
    dee, ann = (app.register_player(name)["player_id"] for name in ("Dee", "Ann"))
    for pid in (dee, ann):
        app.deposit(pid, 10_000)
    table = app.open_table("vingt-un", {"pool_ante": 25})["table_id"]
    app.seat_player(table, dee, 1)
    app.seat_player(table, ann, 2)
    app.choose_dealer(table, dee)
    app.fix_next_shoe(table, ["TC", "9C", "8C", "9D"])
    rid = app.start_round(table, actor=dee)["round_id"]
    app.place_stake(rid, ann, 200)
    app.act(rid, "dealer_double", actor=dee, called=False)
    app.act(rid, "stand", actor=ann, hand="h1")
    app.act(rid, "dealer_stand", actor=dee)
    app.deposit(ann, 5)  # after the round: the log goes on
    app.close_table(table)
    return rid


def log_positions(app) -> dict[tuple[str, int], int]:
    """(stream, version) → position, from the notification log itself."""
    found = app.recorder.select_notifications(start=1, limit=100_000)
    return {(str(n.originator_id), n.originator_version): n.id for n in found}


def listed(report: dict) -> list[dict]:
    """Every event entry the audit lists, with its stream."""
    entries = [*report["events"], *report["round_transfers"]]
    entries += [e for shoe in report["shoes"] for e in shoe["events"]]
    return entries


def test_every_event_the_audit_lists_has_its_position_in_the_log(store_env):
    app = TwentyOneLedger(env={**store_env, "LEDGER_ALLOW_FIXED_SHOES": "true"})
    try:
        rid = vingt_un_round(app)
        report = audit_round(app, rid)
        log = log_positions(app)
    finally:
        app.close()

    entries = listed(report)
    kinds = {e["type"] for e in entries}
    assert {"Started", "CardDealt", "Committed", "Revealed", "FundsTransferred"} <= kinds
    assert any(t["stream"] != rid for t in report["round_transfers"])  # the table's pool legs
    assert [(e["stream"], e["version"], e["position"]) for e in entries] == [
        (e["stream"], e["version"], log[(e["stream"], e["version"])]) for e in entries
    ]
    moves = [(b["player"], m) for b in report["balances"] for m in b["round_movements"]]
    assert moves and all(m["position"] == log[(pid, m["version"])] for pid, m in moves)
    # The round's events in its stream's order are in the log's order too.
    positions = [e["position"] for e in report["events"]]
    assert positions == sorted(positions)
    transfers = [t["position"] for t in report["round_transfers"]]
    assert transfers == sorted(transfers)


def test_the_shoe_says_where_its_commitment_was_recorded_and_that_it_came_first(app):
    rid = vingt_un_round(app)
    report = audit_round(app, rid)
    log = log_positions(app)

    shoe = report["shoe"]
    committed = shoe["recorded"]["committed"]
    assert committed["position"] == log[(shoe["shoe_id"], 1)]
    assert committed["actor"] and committed["time"].endswith("+00:00")
    assert shoe["recorded"]["revealed"]["position"] == max(
        e["position"] for e in shoe["events"] if e["type"] == "Revealed"
    )
    first = min(
        (e for e in report["events"] if e["type"] in ("CardDealt", "CardBurned")),
        key=lambda e: e["position"],
    )
    verdict = shoe["committed_before_deal"]
    assert verdict["ok"] is True and verdict["commitment_position"] == committed["position"]
    assert verdict["first_card"]["position"] == first["position"] > committed["position"]
    assert "card" not in verdict["first_card"]  # the event, never the card's face
    assert "before the round's first card" in verdict["fact"]
    assert report["committed_before_deal"] == {"ok": True, "fault": None}


@pytest.fixture
def doctored(sqlite_file):
    """A SQLite ledger whose shoe commitment was moved to the end of the log after the round
    was dealt: its hash chain still holds (no event's content changed), its order does not."""
    env, path = sqlite_file
    app = TwentyOneLedger(env=env)
    try:
        rid = vingt_un_round(app)
        shoe = audit_round(app, rid)["shoe"]["shoe_id"]
    finally:
        app.close()
    with sqlite3.connect(path) as db:
        db.execute(
            "update stored_events set rowid = (select max(rowid) + 1 from stored_events)"
            " where originator_id = ? and originator_version = 1",
            (UUID(shoe).hex,),
        )
    return env, rid, shoe


def test_a_commitment_recorded_after_the_first_card_is_flagged(doctored):
    env, rid, shoe_id = doctored
    app = TwentyOneLedger(env=env)
    try:
        report = audit_round(app, rid)
    finally:
        app.close()

    shoe = report["shoe"]
    verdict = shoe["committed_before_deal"]
    assert verdict["ok"] is False
    assert verdict["commitment_position"] > verdict["first_card"]["position"]
    assert "recorded after the round's first card" in verdict["fact"]
    assert "not fixed before the deal" in verdict["fact"]
    assert report["committed_before_deal"]["ok"] is False
    assert report["committed_before_deal"]["fault"].startswith(f"shoe {shoe_id}: ")
    assert report["chain"]["ok"]  # what only the positions show


@pytest.mark.parametrize("store_env", ["sqlite", "postgres"], indirect=True)  # a store to share
def test_the_round_command_lists_each_event_with_its_position_and_the_shoes_commitment(
    store_env, capsys
):
    env = {**store_env, "LEDGER_ALLOW_FIXED_SHOES": "true"}
    app = TwentyOneLedger(env=env)
    try:
        rid = vingt_un_round(app)
        log = log_positions(app)
        shoe = audit_round(app, rid)["shoe"]
    finally:
        app.close()

    assert main(["round", rid, "--json"], env=env) == 0
    state = json.loads(capsys.readouterr().out)
    assert [(e["version"], e["position"]) for e in state["log"]] == [
        (v, log[(rid, v)]) for v in range(1, state["events"] + 1)
    ]
    (committed,) = state["shoes"]
    assert committed["committed"]["position"] == log[(shoe["shoe_id"], 1)]
    assert committed["committed_before_deal"] == shoe["committed_before_deal"]

    assert main(["round", rid, "--at", "2"], env=env) == 0
    text = capsys.readouterr().out
    assert f"shoe {shoe['shoe_id']} committed at position {log[(shoe['shoe_id'], 1)]}" in text
    assert "fixed before the deal: not weighed: no card of this round" in text  # none by v2
    listed = re.findall(r"^ +(\d+) v(\d+) ", text, re.MULTILINE)
    assert [(int(p), int(v)) for p, v in listed] == [(log[(rid, v)], v) for v in (1, 2)]

    assert main(["round", rid], env=env) == 0
    assert f"fixed before the deal: ok: {shoe['committed_before_deal']['fact']}" in (
        capsys.readouterr().out
    )
