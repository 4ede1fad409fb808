"""A refusal never tells a caller the balance of a wallet he may not read: he learns that it
is short, not by how much. His own wallet's figure, and every figure for an admin, stay."""

from __future__ import annotations

from ledger_client import Http
from test_rounds_http import open_table


def _drain(http: Http, pid: str, leave: int) -> None:
    http.post(f"/v1/players/{pid}/withdrawals", {"amount": http.balance(pid) - leave})


def test_a_stake_the_banker_cannot_cover_does_not_tell_the_player_the_bankers_balance(http):
    t = open_table(http, "vingt-un")
    _drain(http, t.ids["Dee"], 1_234)  # the banker covers 4 x each stake (VU ×4)
    t.start(["TC", "9D", "8H", "KC", "7D", "9C"])
    problem = http.act(t.rid, "Ann", action="stake", amount=1_000, status=409)
    assert problem["title"] == "Insufficient funds"
    assert "1234" not in problem["detail"] and "1_234" not in problem["detail"]
    assert f"player:{t.ids['Dee']}" in problem["detail"]  # which wallet is short is the rule
    assert "balance" not in problem and "needed" not in problem


def test_a_refusal_keeps_the_figure_of_the_callers_own_wallet(http):
    t = open_table(http, "vingt-un")
    _drain(http, t.ids["Ann"], 777)
    t.start(["TC", "9D", "8H", "KC", "7D", "9C"])
    problem = http.act(t.rid, "Ann", action="stake", amount=1_000, status=409)
    assert f"player:{t.ids['Ann']} holds 777" in problem["detail"]


def test_an_admin_is_told_the_figure(http):
    pid = http.player("Zed", amount=300)
    problem = http.post(f"/v1/players/{pid}/withdrawals", {"amount": 5_000}, status=409)
    assert f"player:{pid} holds 300" in problem["detail"]
