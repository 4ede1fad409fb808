"""``python -m replay audit`` on a Vingt-un round whose dealer divided his pair (VU-21): each
hand's parts against each of his hands are in the document, and a settlement whose recorded
totals its cards do not make (the hashes recomputed, no money changed, so every other check
passes) exits 1 on ``divided_settlements``."""

from __future__ import annotations

import dataclasses
import json

from forgery import forge_stream

from ledger.application import TwentyOneLedger
from ledger.domain.round import Round
from replay.__main__ import main


def divided_round(env: dict) -> str:
    """Ann's 18 (stake 500) against the dealer's 8 8 divided: 8 3 K (21) and 8 T 5 (23)."""
    app = TwentyOneLedger(env=env)
    try:
        dee, ann = (app.register_player(name)["player_id"] for name in ("Dee", "Ann"))
        for pid in (dee, ann):
            app.deposit(pid, 100_000)
        table = app.open_table("vingt-un", {})["table_id"]
        app.seat_player(table, dee, 1)
        app.seat_player(table, ann, 2)
        app.choose_dealer(table, dee)
        app.fix_next_shoe(table, ["TS", "8C", "8D", "8S", "3C", "TH", "KD", "5H"] + ["2C"] * 10)
        rid = app.start_round(table, actor=dee)["round_id"]
        app.place_stake(rid, ann, 500)
        app.act(rid, "dealer_double", actor=dee, called=False)
        app.act(rid, "stand", actor=ann, hand="h1")
        for action in ("dealer_split", "dealer_draw", "dealer_stand", "dealer_draw"):
            app.act(rid, action, actor=dee)
        assert app.get_round(rid).ended
        return rid
    finally:
        app.close()


def test_replay_audit_shows_the_parts_and_fails_on_a_total_the_cards_do_not_make(
    sqlite_file, capsys
):
    env = sqlite_file[0]
    rid = divided_round(env)

    assert main(["audit", rid], env=env) == 0
    shown = json.loads(capsys.readouterr().out)
    by_dealer = shown["hands"][0]["settlement"]["by_dealer_hand"]
    assert [(p["dealer_hand"], p["dealer_total"], p["amount"]) for p in by_dealer["parts"]] == [
        ("dealer", 21, -1000),
        ("dealer2", 23, 500),
    ]
    assert (by_dealer["sum"], by_dealer["recorded"], by_dealer["derived"]) == (-500, -500, True)
    assert shown["divided_settlements"] == {"ok": True, "hands": 1, "fault": None}

    def misrecorded(events):
        return [
            dataclasses.replace(e, dealer_totals={"dealer": 21, "dealer2": 22})
            if isinstance(e, Round.HandSettled)
            else e
            for e in events
        ]

    forge_stream(env, rid, misrecorded)
    assert main(["audit", rid], env=env) == 1
    shown = json.loads(capsys.readouterr().out)
    assert shown["chain"]["ok"] and shown["money_reconciles"]["ok"]
    assert shown["divided_settlements"]["ok"] is False
    assert (
        "dealer2 22, their cards make dealer 21, dealer2 23"
        in (shown["divided_settlements"]["fault"])
    )
