"""``allowed_actions`` in the round view over HTTP: each key sees the decisions it may send
now (a player his own, a dealer key the dealer's, admins and auditors everyone's), every
listed body is accepted as sent, and the list is empty once the round has ended."""

from __future__ import annotations

from test_rounds_http import open_table


def moves(view: dict, who: str | None = None) -> list[tuple]:
    return [
        (a["action"], a.get("hand"), a.get("index"), a.get("value"), a.get("called"))
        for a in view["allowed_actions"]
        if who is None or a["actor"] == who
    ]


def test_each_key_sees_its_own_decisions_in_a_casino_round(http):
    t = open_table(http, "casino", {"insurance": False, "late_surrender": True})
    # Ann 8C 8D (a pair) against the dealer's 9H (7S in the hole); Bob TC 6D.
    started = t.start(["8C", "TC", "9H", "8D", "6D", "7S"])
    ann, bob = t.ids["Ann"], t.ids["Bob"]
    assert started["allowed_actions"] == []  # the house dealer's key: nothing to decide
    assert moves(t.view("admin")) == [("stake", None, None, None, None)] * 2
    assert moves(t.view("Ann")) == [("stake", None, None, None, None)]
    assert [a["actor"] for a in t.view("auditor")["allowed_actions"]] == [ann, bob]

    http.act(t.rid, "Ann", action="stake", amount=200)
    out = http.act(t.rid, "Bob", action="stake", amount=200)
    mine = ["hit", "stand", "double_down", "split", "surrender"]
    assert [m[0] for m in moves(out["round"])] == []  # Bob's answer: not his turn yet
    assert moves(t.view("Ann")) == [(m, "h1", None, None, None) for m in mine]
    assert moves(t.view("Eve")) == [] and moves(t.view("dealer")) == []
    assert moves(t.view("admin"), ann) == moves(t.view("Ann"))
    assert all(a["actor"] == ann for a in t.view("admin")["allowed_actions"])
    assert moves(t.view("admin"), bob) == []

    listed = {a["action"]: a for a in t.view("Ann")["allowed_actions"]}
    assert "actor" not in listed["split"]  # all his own: a body his key sends as it is
    out = http.act(t.rid, "Ann", **listed["split"])
    assert {m[0] for m in moves(out["round"])} >= {"hit", "stand"}
    http.act(t.rid, "Ann", action="stand", hand="h1")
    http.act(t.rid, "Ann", action="stand", hand=out["result"]["new_hand"])
    assert [m[0] for m in moves(t.view("Bob"))] == mine[:3] + ["surrender"]  # no pair
    final = http.act(t.rid, "Bob", action="stand", hand="h2")["round"]
    assert final["ended"] and final["allowed_actions"] == []
    assert t.view("admin")["allowed_actions"] == []


def test_a_vingt_un_dealer_key_sees_his_call_and_the_players_do_not(http):
    t = open_table(http, "vingt-un")
    started = t.start(["9C", "5D", "KH"] + ["4S", "3H", "2D"] * 3)
    dee = t.ids["Dee"]
    assert started["phase"] == "staking" and started["allowed_actions"] == []  # VU-5
    http.act(t.rid, "Ann", action="stake", amount=200)
    http.act(t.rid, "Bob", action="stake", amount=200)
    view = t.view("dealer")
    assert view["phase"] == "dealer_double"
    assert moves(view) == [
        ("dealer_double", None, None, None, True),
        ("dealer_double", None, None, None, False),
    ]
    assert {a["actor"] for a in t.view("admin")["allowed_actions"]} == {dee}
    assert moves(t.view("Ann")) == [] and moves(t.view("Bob")) == []
    # Every body listed is one the dealer's key may send as it is.
    assert view["allowed_actions"][1] == {"action": "dealer_double", "called": False}
    http.act(t.rid, "dealer", **view["allowed_actions"][1])
    assert all(m[0] != "dealer_double" for m in moves(t.view("dealer")))  # called once


def test_an_ochko_player_is_offered_each_value_of_his_ace(http):
    t = open_table(http, "ochko")
    # Dee deals; Ann's first card AS, Bob's 9D, Dee's 7C.
    t.start(["AS", "9D", "7C"] + ["5H", "6H", "2C", "3C", "4C", "8C"] * 2)
    http.act(t.rid, "Ann", action="stake", amount=200)
    http.act(t.rid, "Bob", action="stake", amount=200)
    view = t.view("Ann")  # AS 5H
    assert moves(view) == [
        ("hit", "h1", None, None, None),
        ("stand", "h1", None, None, None),
        ("ace_value", "h1", 0, 1, None),
        ("ace_value", "h1", 0, 11, None),
    ]
    assert moves(t.view("Bob")) == []  # not his turn
    out = http.act(t.rid, "Ann", action="ace_value", hand="h1", index=0, value=11)
    assert out["round"]["hands"][0]["aces"] == {"0": 11}
    out = http.act(t.rid, "Ann", action="stand", hand="h1")
    assert [m[:2] for m in moves(out["round"])] == []  # Bob's turn, and Ann's key
    assert [m[:2] for m in moves(t.view("Bob"))] == [("hit", "h2"), ("stand", "h2")]
