"""Players, tables and the event feeds over HTTP: who may do what, what comes back."""

from __future__ import annotations

import json
from uuid import UUID

from test_rounds_http import HIDDEN, open_table


def test_players_wallets_and_the_bankroll(http, client):
    made = client.post(
        "/v1/players", json={"name": "Ann"}, headers={"Authorization": f"Bearer {http.admin}"}
    )
    assert made.status_code == 201 and made.headers["Location"].endswith(made.json["player_id"])
    pid = made.json["player_id"]
    http.post(f"/v1/players/{pid}/deposits", {"amount": 1000})
    assert http.post(f"/v1/players/{pid}/withdrawals", {"amount": 300})["balance"] == 700
    http.post(f"/v1/players/{pid}/withdrawals", {"amount": 5000}, status=409)
    http.post(f"/v1/players/{pid}/deposits", {"amount": True}, status=422)
    http.post(f"/v1/players/{pid}/deposits", {"amount": "10"}, status=422)
    http.post(f"/v1/players/{pid}/deposits", {"amount": 0}, status=422)

    ann = http.make_key("player", pid)
    bankroll = http.get(f"/v1/players/{pid}/bankroll", key=ann)
    assert bankroll["balance"] == 700 and bankroll["held"] == 0
    assert [(h["change"], h["balance"]) for h in bankroll["movements"]] == [
        (1000, 1000),
        (-300, 700),
    ]

    other = http.player("Bob")
    http.get(f"/v1/players/{other}", key=ann, status=403)
    http.get(f"/v1/players/{other}/bankroll", key=ann, status=403)
    assert http.get(f"/v1/players/{other}", key=http.make_key("auditor"))["balance"] == 100_000
    http.post("/v1/players", {"name": "X"}, key=ann, status=403)
    http.post("/v1/players", {"name": "X"}, key=http.make_key("auditor"), status=403)
    http.get("/v1/players/00000000-0000-0000-0000-000000000000", status=404)
    assert client.get(f"/v1/players/{pid}").status_code == 401


def test_held_stakes_show_in_the_bankroll(http):
    t = open_table(http, "casino", {"insurance": False})
    t.start(["TC", "9D", "8H", "7C", "8S", "9C"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    bankroll = http.get(f"/v1/players/{t.ids['Ann']}/bankroll", key=http.keys["Ann"])
    assert bankroll["held"] == 200 and bankroll["balance"] == 100_000 - 200


def test_me_tells_a_key_who_it_is(http, client, make_key):
    pid = http.player("Ann")
    ann = http.keys["Ann"]
    me = http.get("/v1/me", key=ann)
    key = http.app.extensions["api_store"].find_key(ann)
    assert me == {
        "key_id": str(key.id),
        "role": "player",
        "label": "",
        "player_id": pid,
        "acts_as": pid,
    }
    house = http.get("/v1/me", key=make_key("dealer", label="pit 3"))
    assert (house["role"], house["player_id"], house["acts_as"], house["label"]) == (
        "dealer",
        None,
        "house",
        "pit 3",
    )
    assert http.get("/v1/me")["acts_as"] == "admin"
    assert http.admin not in json.dumps(http.get("/v1/me"))  # never the secret
    assert client.get("/v1/me").status_code == 401


def test_tables_seats_and_the_dealer(http):
    t = open_table(http, "vingt-un")
    table = http.get(f"/v1/tables/{t.table_id}", key=http.keys["Eve"])
    assert table["family"] == "vingt-un" and table["dealer"] == t.ids["Dee"]
    assert [s["seat"] for s in table["seats"]] == [1, 2, 3]
    eve = http.keys["Eve"]
    # A player seats and unseats only himself.
    http.post(
        f"/v1/tables/{t.table_id}/seats",
        {"player_id": t.ids["Ann"], "seat": 5},
        key=eve,
        status=403,
    )
    http.call("DELETE", f"/v1/tables/{t.table_id}/seats/2", key=eve, status=403)
    http.call("DELETE", f"/v1/tables/{t.table_id}/seats/2", key=http.keys["Ann"])
    # Leaving an empty seat (a retried leave, or a seat never taken) is a 404 for any key,
    # as it is for an admin: not a refusal of the player.
    for key in (http.keys["Ann"], eve, None):  # None: the admin's key
        for seat in (2, 6):
            gone = http.call("DELETE", f"/v1/tables/{t.table_id}/seats/{seat}", key=key, status=404)
            assert gone["type"].endswith("unknown-seat"), gone
    http.post(f"/v1/tables/{t.table_id}/seats", {"player_id": t.ids["Ann"], "seat": 3}, status=409)
    http.post(f"/v1/tables/{t.table_id}/dealer", {"player_id": t.ids["Bob"]}, key=eve, status=403)
    http.post("/v1/tables", {"family": "poker"}, status=422)
    http.post("/v1/tables", {"family": "casino", "options": {"bogus": 1}}, status=422)


def test_selling_the_deal_and_the_pool(http):
    t = open_table(http, "vingt-un")
    offer = {"buyer": t.ids["Ann"], "price": 500}
    http.post(f"/v1/tables/{t.table_id}/deal-offer", offer, key=http.keys["Bob"], status=403)
    http.post(f"/v1/tables/{t.table_id}/deal-offer", offer, key=http.keys["dealer"], status=201)
    accepted = {"price": 500}
    sold = http.post(
        f"/v1/tables/{t.table_id}/deal-offer/acceptance", accepted, key=http.keys["Ann"]
    )
    assert sold["dealer"] == t.ids["Ann"]
    assert http.balance(t.ids["Dee"]) == 100_500
    payout = {"recipient": t.ids["Bob"], "amount": 10, "reason": "a pool payout"}
    assert http.get(f"/v1/tables/{t.table_id}")["pool"] == 0
    problem = http.post(f"/v1/tables/{t.table_id}/pool-payouts", payout, status=409)
    assert problem["clause"] == "VU-28"
    assert http.post(f"/v1/tables/{t.table_id}/close")["closed"] is True
    http.post(f"/v1/tables/{t.table_id}/close", status=409)


def test_a_pool_payout_moves_through_its_clearing_account_which_any_reader_can_open(http):
    t = open_table(http, "vingt-un", {"pool_ante": 25})
    t.start(["TC", "9D", "8H", "KC", "7D", "9C"])  # Ann's and Bob's antes
    table = f"/v1/tables/{t.table_id}"
    assert http.get(table)["pool"] == 50
    payout = {"recipient": t.ids["Bob"], "amount": 30, "reason": "best hand"}
    http.post(f"{table}/pool-payouts", payout)
    assert http.get(table)["pool"] == 20
    clearing = http.get(f"/v1/accounts/pool-payout:{t.table_id}", key=http.keys["auditor"])
    assert clearing["balance"] == 0
    assert [m["change"] for m in clearing["movements"]] == [30, -30]
    pool = http.get(f"/v1/accounts/pool:{t.table_id}", key=http.keys["auditor"])
    assert pool["balance"] == 20


def test_a_table_lists_its_latest_rounds_read_back_from_its_stream(http, monkeypatch):
    t = open_table(http, "casino", {"insurance": False})
    app = http.ledger
    stakes = {t.ids["Ann"]: 200, t.ids["Bob"]: 200}
    played = [
        app.play_round(t.table_id, stakes, lambda rnd, turn: {"action": "stand", "hand": turn})
        for _ in range(23)
    ]
    reads = []
    whole_get = app.events.get
    monkeypatch.setattr(
        app.events, "get", lambda *a, **kw: reads.append(kw.get("limit")) or whole_get(*a, **kw)
    )
    body = http.get(f"/v1/tables/{t.table_id}")
    assert body["round_ids"] == [p["round_id"] for p in played[-20:]]
    assert body["rounds"] == 23 and body["pool"] is None
    assert reads and None not in reads, "the body reads its table's stream a page at a time"


def test_actions_are_validated_as_a_tagged_union(http):
    t = open_table(http, "casino", {"insurance": False})
    t.start(["TC", "9D", "8H", "7C", "8S", "9C"])
    path = f"/v1/rounds/{t.rid}/actions"
    key = http.keys["Ann"]
    for body in (
        {"action": "fold"},
        {"action": "stake"},
        {"action": "stake", "amount": 0},
        {"action": "stake", "amount": 100, "hand": "h1"},
        {"action": "hit"},
        {"action": "dealer_double", "called": "yes"},
        {"action": "ace_value", "index": 0, "value": 5},
        {"action": "reject", "hand": "h1", "card": "ZZ"},
    ):
        assert "errors" in http.post(path, body, key=key, status=422), body
    http.post(path, {"action": "stake", "amount": 200}, key=http.keys["auditor"], status=403)
    http.post(path, {"action": "stake", "amount": 50}, key=key, status=409)  # CB-1 limits


def test_an_action_retried_with_its_idempotency_key_applies_once(http):
    t = open_table(http, "casino", {"insurance": False})
    t.start(["TC", "9D", "8H", "7C", "8S", "9C"])
    headers = {"Idempotency-Key": "stake-1"}
    first = http.post(
        f"/v1/rounds/{t.rid}/actions",
        {"action": "stake", "amount": 200},
        key=http.keys["Ann"],
        headers=headers,
    )
    again = http.post(
        f"/v1/rounds/{t.rid}/actions",
        {"action": "stake", "amount": 200},
        key=http.keys["Ann"],
        headers=headers,
    )
    assert again == first
    assert http.balance(t.ids["Ann"]) == 100_000 - 200
    http.post(
        f"/v1/rounds/{t.rid}/actions",
        {"action": "stake", "amount": 300},
        key=http.keys["Ann"],
        headers=headers,
        status=422,
    )


def test_admin_acts_for_the_holder_of_the_hand(http):
    t = open_table(http, "vingt-un")
    t.start(["TC", "9D", "8H", "KC", "7D", "9C"])
    http.post(
        f"/v1/rounds/{t.rid}/actions", {"action": "stake", "amount": 200, "actor": t.ids["Ann"]}
    )
    http.post(
        f"/v1/rounds/{t.rid}/actions", {"action": "stake", "amount": 200, "actor": t.ids["Bob"]}
    )
    out = http.post(f"/v1/rounds/{t.rid}/actions", {"action": "dealer_double", "called": False})
    assert out["round"]["phase"] == "play"
    out = http.post(f"/v1/rounds/{t.rid}/actions", {"action": "stand", "hand": "h1"})
    assert out["round"]["current_turn"] == "h2"


def test_the_audit_names_the_admin_key_that_acted_for_others(http):
    """The events keep the player's (or dealer's) name, which the rules check; the
    ``ActedFor`` closing each command's events names the admin key that really gave it."""
    t = open_table(http, "vingt-un")
    t.start(["TC", "9D", "8H", "KC", "7D", "9C"])
    http.post(
        f"/v1/rounds/{t.rid}/actions", {"action": "stake", "amount": 200, "actor": t.ids["Ann"]}
    )
    http.act(t.rid, "Bob", action="stake", amount=200)  # Bob's own key: no one acted for him
    http.post(f"/v1/rounds/{t.rid}/actions", {"action": "dealer_double", "called": False})
    http.post(f"/v1/rounds/{t.rid}/actions", {"action": "stand", "hand": "h1"})

    key = http.app.extensions["api_store"].find_key(http.admin)
    audit = http.get(f"/v1/rounds/{t.rid}/audit", key=http.keys["auditor"])
    acted = [e["data"] for e in audit["events"] if e["type"] == "ActedFor"]
    assert [(a["action"], a["actor"]) for a in acted] == [
        ("place_stake", t.ids["Ann"]),
        ("dealer_double", t.ids["Dee"]),
        ("stand", t.ids["Ann"]),
    ]
    assert {a["by"] for a in acted} == {f"admin key {key.id} (test admin)"}
    assert http.admin not in json.dumps(audit)  # the key's id and label, never its secret

    # An operator's own command (actor "admin") names the key too: a new player's
    # registration and deposit.
    zed = http.player("Zed")
    acted = [e for e in http.ledger.events.get(UUID(zed)) if type(e).__name__ == "ActedFor"]
    assert [(e.action, e.actor, e.by) for e in acted] == [
        ("register_player", "admin", f"admin key {key.id} (test admin)"),
        ("deposit", "admin", f"admin key {key.id} (test admin)"),
    ]


def test_the_table_feed_pages_and_masks(http):
    t = open_table(http, "vingt-un")
    t.start(["TC", "9D", "8H", "KC", "7D", "9C"])
    for name in ("Ann", "Bob"):
        http.act(t.rid, name, action="stake", amount=200)
    http.act(t.rid, "dealer", action="dealer_double", called=False)
    path = f"/v1/tables/{t.table_id}/events"
    everything = http.get(f"{path}?limit=1000", key=http.keys["auditor"])
    positions = [e["position"] for e in everything["items"]]
    assert positions == sorted(positions) and everything["next"] == positions[-1]
    assert {e["aggregate_id"] for e in everything["items"]} >= {t.table_id, t.rid}

    paged, after = [], 0
    while True:
        page = http.get(f"{path}?after={after}&limit=7", key=http.keys["auditor"])
        paged += page["items"]
        if not page["items"]:
            break
        after = page["next"]
    assert paged == everything["items"]

    eve = http.get(f"{path}?limit=1000", key=http.keys["Eve"])["items"]
    cards = [e["data"]["card"] for e in eve if e["type"] == "CardDealt"]
    assert cards == [HIDDEN] * 6
    assert all("hash" not in e["data"] for e in eve)
    assert '"TC"' not in json.dumps(eve)
    http.get(f"{path}?limit=0", status=422)
    http.get("/v1/tables/00000000-0000-0000-0000-000000000000/events", status=404)


def test_a_quiet_tables_feed_reads_a_bounded_stretch_of_the_log_per_page(http, monkeypatch):
    from api.resources import feed
    from api.table_members import TableMembers

    quiet = open_table(http, "vingt-un")
    quiet.start(["TC", "9D", "8H", "KC", "7D", "9C"])
    busy = open_table(http, "casino", {"insurance": False})
    busy.start(["TC", "9D", "8H", "7C", "8S", "9C"])  # other tables' events in between
    http.ledger.place_stake(quiet.rid, quiet.ids["Ann"], 200)  # and the quiet table's again
    path = f"/v1/tables/{quiet.table_id}/events"
    everything = http.get(f"{path}?limit=1000", key=http.keys["auditor"])
    head = http.ledger.recorder.max_notification_id()

    # The table's stream is read once, then only its newer events (a new TableMembers: the
    # pages read above are forgotten).
    http.app.extensions["table_members"] = TableMembers()
    reads: list[int | None] = []
    whole_get = http.ledger.events.get
    monkeypatch.setattr(
        http.ledger.events,
        "get",
        lambda *a, gt=None, **kw: reads.append(gt) or whole_get(*a, gt=gt, **kw),
    )
    monkeypatch.setattr(feed, "SCAN", 9)
    paged, after, pages = [], 0, 0
    while after < head:
        page = http.get(f"{path}?after={after}&limit=4", key=http.keys["auditor"])
        assert after < page["next"] <= after + 9  # never more than SCAN positions a request
        assert page["more"] is (page["next"] < head)
        paged += page["items"]
        after, pages = page["next"], pages + 1
    assert paged == everything["items"]
    assert reads == [0], "the table's stream read once, not once a page"
    assert pages >= head // 9
    ended = http.get(f"{path}?after={head}", key=http.keys["auditor"])
    assert ended == {"items": [], "next": head, "more": False}
    # The live stream reads a backlog page after page without waiting, then stops at its
    # timeout once it has caught up.
    stream = http.client.get(
        f"{path}/stream?timeout=0", headers={"Authorization": f"Bearer {http.keys['auditor']}"}
    )
    ids = [b.split("\n")[0] for b in stream.get_data(as_text=True).split("\n\n")]
    assert [i for i in ids if i.startswith("id:")] == [
        f"id: {e['position']}" for e in everything["items"]
    ]
    known = http.ledger.get_table(quiet.table_id).version
    http.ledger.seat_player(quiet.table_id, http.player("Eve"), 4)
    (seated,) = http.get(f"{path}?after={head}", key=http.keys["auditor"])["items"]
    assert seated["type"] == "PlayerSeated"
    assert reads[-1] == known, "then only the table's newer events"
    assert set(reads) == {0, known}


def test_the_sse_stream(http, client):
    t = open_table(http, "casino", {"insurance": False})
    t.start(["TC", "9D", "8H", "7C", "8S", "9C"])
    response = client.get(
        f"/v1/tables/{t.table_id}/events/stream?timeout=0",
        headers={"Authorization": f"Bearer {http.keys['Ann']}"},
    )
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    blocks = [b for b in response.get_data(as_text=True).split("\n\n") if b.startswith("id:")]
    page = http.get(f"/v1/tables/{t.table_id}/events?limit=1000", key=http.keys["Ann"])
    assert len(blocks) == len(page["items"])
    last = blocks[-1].split("\n")
    assert last[0] == f"id: {page['next']}"
    assert json.loads(last[2].removeprefix("data: ")) == page["items"][-1]
    resumed = client.get(
        f"/v1/tables/{t.table_id}/events/stream?timeout=0",
        headers={"Authorization": f"Bearer {http.keys['Ann']}", "Last-Event-ID": str(page["next"])},
    )
    assert "id:" not in resumed.get_data(as_text=True)


def test_a_rounds_events_carry_their_log_positions_as_the_table_feed_does(http):
    t = open_table(http, "casino", {"insurance": False})
    t.start(["TC", "9D", "8H", "7C", "8S", "9C"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    for who in ("admin", "Ann"):
        key = http.admin if who == "admin" else http.keys[who]
        events = http.get(f"/v1/rounds/{t.rid}/events", key=key)
        feed = http.get(f"/v1/tables/{t.table_id}/events?limit=1000", key=key)["items"]
        of_round = [e for e in feed if e["aggregate_id"] == t.rid]
        assert [e["position"] for e in events] == [e["position"] for e in of_round]
        assert all(isinstance(e["position"], int) for e in events)


def test_a_reconnect_resumes_from_last_event_id_not_from_the_urls_after(http, client):
    t = open_table(http, "casino", {"insurance": False})
    t.start(["TC", "9D", "8H", "7C", "8S", "9C"])
    page = http.get(f"/v1/tables/{t.table_id}/events?limit=1000", key=http.keys["Ann"])
    first, last = page["items"][0]["position"], page["next"]
    url = f"/v1/tables/{t.table_id}/events/stream?after={first}&timeout=0"
    auth = {"Authorization": f"Bearer {http.keys['Ann']}"}

    opened = client.get(url, headers=auth).get_data(as_text=True)
    # An EventSource reconnects to the same URL with the last id it saw: nothing is sent again.
    again = client.get(url, headers={**auth, "Last-Event-ID": str(last)}).get_data(as_text=True)

    assert opened.count("id: ") == len(page["items"]) - 1  # everything after ?after=
    assert "id: " not in again


def test_a_seats_location_is_readable(http, client):
    tid = http.post("/v1/tables", {"family": "casino"}, status=201)["table_id"]
    ann = http.player("Ann")
    made = client.post(
        f"/v1/tables/{tid}/seats",
        json={"player_id": ann, "seat": 3},
        headers={"Authorization": f"Bearer {http.keys['Ann']}"},
    )
    assert made.status_code == 201
    assert made.headers["Location"] == f"/v1/tables/{tid}/seats/3"
    seat = http.get(made.headers["Location"], key=http.make_key("player", http.player("Bob")))
    assert seat == {"table_id": tid, "seat": 3, "player_id": ann}
    assert http.get(f"/v1/tables/{tid}/seats/4", status=404)["type"].endswith("unknown-seat")
    http.call("DELETE", made.headers["Location"], key=http.keys["Ann"])
    http.get(made.headers["Location"], status=404)
