"""The role table of README's "Keys and roles", enforced on every action: the dealer's
choices take a dealer key, a player's actions a player key, and only an admin may name
whom he acts for (``actor``)."""

from __future__ import annotations

from ledger_client import Http
from test_rounds_http import open_table


def _vingt_un_at_the_dealer_double(http: Http):
    t = open_table(http, "vingt-un")
    t.start(["TC", "9D", "8H", "KC", "7D", "9C"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    http.act(t.rid, "Bob", action="stake", amount=200)
    assert t.view("admin")["phase"] == "dealer_double"
    return t


def test_a_player_key_of_the_dealer_may_not_make_the_dealers_choices(http):
    t = _vingt_un_at_the_dealer_double(http)
    dee_as_player = http.make_key("player", t.ids["Dee"])
    for body in (
        {"action": "dealer_double", "called": False},
        {"action": "dealer_draw"},
        {"action": "dealer_stand"},
        {"action": "dealer_split"},
        {"action": "serve_two", "hand": "h1"},
        {"action": "serve_out_of_order", "hand": "h1"},
        {"action": "false_division", "hand": "h1"},
    ):
        problem = http.post(f"/v1/rounds/{t.rid}/actions", body, key=dee_as_player, status=403)
        assert "dealer key" in problem["detail"]
    assert t.view("admin")["phase"] == "dealer_double"  # nothing was written
    out = http.act(t.rid, "dealer", action="dealer_double", called=False)
    assert out["round"]["phase"] != "dealer_double"


def test_a_dealer_key_may_not_play_a_players_hand(http):
    t = open_table(http, "casino", {"insurance": False})
    t.start(["TC", "9D", "8H", "7C", "8S", "9C"])
    ann_as_dealer = http.make_key("dealer", t.ids["Ann"])
    body = {"action": "stake", "amount": 200}
    problem = http.post(f"/v1/rounds/{t.rid}/actions", body, key=ann_as_dealer, status=403)
    assert "player key" in problem["detail"]


def test_an_ochko_banker_values_his_aces_with_his_dealer_key_only(http):
    t = open_table(http, "ochko")
    # Ann TC KC, Bob 9D 7D; the banker Dee AH 6C: an ace of his own to value, in his turn.
    t.start(["TC", "9D", "AH", "KC", "7D", "6C"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    http.act(t.rid, "Bob", action="stake", amount=200)
    http.act(t.rid, "Ann", action="stand", hand="h1")
    http.act(t.rid, "Bob", action="stand", hand="h2")
    assert t.view("admin")["phase"] == "dealer"
    body = {"action": "ace_value", "index": 0, "value": 1}
    dee_as_player = http.make_key("player", t.ids["Dee"])

    problem = http.post(f"/v1/rounds/{t.rid}/actions", body, key=dee_as_player, status=403)

    assert "dealer key" in problem["detail"]
    assert t.view("admin")["dealer_hand"]["aces"] == {}  # nothing was written
    out = http.post(f"/v1/rounds/{t.rid}/actions", body, key=http.keys["dealer"], status=200)
    banker = out["round"]["dealer_hand"]
    assert banker["aces"] == {"0": 1} and banker["total"] == 7


def test_actor_from_a_non_admin_key_is_refused_naming_the_field(http):
    t = open_table(http, "casino", {"insurance": False})
    t.start(["TC", "9D", "8H", "7C", "8S", "9C"])
    before = {n: http.balance(pid) for n, pid in t.ids.items()}
    body = {"action": "stake", "amount": 200, "actor": t.ids["Ann"]}
    problem = http.post(f"/v1/rounds/{t.rid}/actions", body, key=http.keys["Bob"], status=403)
    assert "actor is for admin keys only" in problem["detail"]
    # Naming himself is refused too: the field is the admin's.
    body["actor"] = t.ids["Bob"]
    http.post(f"/v1/rounds/{t.rid}/actions", body, key=http.keys["Bob"], status=403)
    dealer_body = {"action": "dealer_stand", "actor": "house"}
    http.post(f"/v1/rounds/{t.rid}/actions", dealer_body, key=http.keys["dealer"], status=403)
    assert {n: http.balance(pid) for n, pid in t.ids.items()} == before
    assert all(h["stake"] == 0 for h in t.view("admin")["hands"])
    # An admin may still act for anyone.
    body["actor"] = t.ids["Ann"]
    out = http.post(f"/v1/rounds/{t.rid}/actions", body)
    assert out["round"]["hands"][0]["stake"] == 200


def test_an_admin_acting_for_no_player_hears_404_and_nothing_is_written(http):
    t = open_table(http, "casino", {"insurance": False})
    t.start(["TC", "9D", "8H", "7C", "8S", "9C"])
    before = t.view("admin")
    for actor in ("nobody", "00000000-0000-4000-8000-000000000000", t.table_id):
        body = {"action": "stake", "amount": 200, "actor": actor}
        problem = http.post(f"/v1/rounds/{t.rid}/actions", body, status=404)
        assert actor in problem["detail"] and "player" in problem["detail"]
        body = {"action": "stand", "hand": "h1", "actor": actor}
        problem = http.post(f"/v1/rounds/{t.rid}/actions", body, status=404)
        assert actor in problem["detail"]
    assert t.view("admin") == before


def test_an_admin_acting_for_a_player_with_no_hand_hears_the_clause_that_keeps_him_out(http):
    t = open_table(http, "casino", {"insurance": False})
    t.start(["TC", "9D", "8H", "7C", "8S", "9C"])
    stranger = http.player("Stranger")
    body = {"action": "stake", "amount": 200, "actor": stranger}
    problem = http.post(f"/v1/rounds/{t.rid}/actions", body, status=403)
    assert "has no hand in this round" in problem["detail"]
