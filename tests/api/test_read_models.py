"""The projection-backed reads over HTTP: a player's bankroll and rounds, a table's rounds and
results, any account, and a round's audit trail, as the read models answer them after real
rounds on fixed shoes (a casino double down, a Hoyle split against a private banker).

Also: paging, who may read what, unknown ids (404), bad query parameters (422), the
``LEDGER_PROJECTIONS`` setting, read-your-writes in both modes (inline folds in the request;
external answers 503 ``projection-lag`` until a projector has caught up), and that none of
these reads replays the event store.
"""

from __future__ import annotations

from uuid import UUID, uuid4

import pytest
from ledger_client import Http
from test_rounds_http import Table, casino_double_down, open_table

from api import create_app
from ledger import accounts
from ledger.balances import fold_balances

UNKNOWN = "00000000-0000-0000-0000-000000000000"
PROBLEM = "application/problem+json"


def external_http(env: dict[str, str], wait_ms: int = 50) -> Http:
    """An app whose read models only a projector (here: the test) brings forward."""
    app = create_app(
        {
            "TESTING": True,
            "STORE_ENV": env,
            "LEDGER_PROJECTIONS": "external",
            "LEDGER_PROJECTION_WAIT_MS": wait_ms,
        }
    )

    def make_key(role: str, player_id: str | None = None, label: str = "") -> str:
        return app.extensions["api_store"].create_key(role, player_id, label)[0]

    return Http(app, app.test_client(), make_key, make_key("admin"))


def spy_on_waits(http: Http, monkeypatch) -> list[tuple[int | None, float]]:
    """Every ``(position, timeout)`` the reads ask the read models to wait for; the waits
    themselves still happen (the spy calls through)."""
    projections = http.app.extensions["projections"]
    real, asked = projections.ensure, []

    def ensure(position, timeout, **kwargs):
        asked.append((position, timeout))
        return real(position, timeout, **kwargs)

    monkeypatch.setattr(projections, "ensure", ensure)
    return asked


def close(http: Http) -> None:
    http.ledger.close()
    http.app.extensions["api_store"].close()
    http.app.extensions["projections"].close()


def raw(http: Http, path: str, key: str | None = None):
    """The response itself (status, headers, body), for the error documents."""
    return http.client.get(path, headers={"Authorization": f"Bearer {key or http.admin}"})


# --- rounds played over HTTP ------------------------------------------------------------------


def hoyle_split_against_a_banker(http: Http) -> Table:
    """Dee banks; Ann 8C 8D splits (h1 8C 3C 9C = 20, h3 8D TD = 18), Bob TC 7C (17); Dee
    TH 7H (17) stands: Ann wins both 200 stakes, Bob stands off (H13-10), Dee pays 400."""
    t = open_table(http, "hoyle-1913", {"allow_split": True})
    t.start(["8C", "TC", "TH", "8D", "7C", "7H", "3C", "TD", "9C"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    http.act(t.rid, "Bob", action="stake", amount=200)
    http.act(t.rid, "Ann", action="split", hand="h1")
    http.act(t.rid, "Ann", action="hit", hand="h1")
    http.act(t.rid, "Ann", action="stand", hand="h1")
    http.act(t.rid, "Ann", action="stand", hand="h3")
    http.act(t.rid, "Bob", action="stand", hand="h2")
    t.last = http.act(t.rid, "dealer", action="dealer_stand")
    assert t.last["round"]["ended"]
    assert t.changes() == {"Dee": -400, "Ann": 400, "Bob": 0}
    return t


def standing_round(t: Table) -> str:
    """A casino round where Ann and Bob stake 200 each and stand whenever their turn comes
    (the first on the shoe given here, later ones on what it has left). Its round id."""
    http = t.http
    t.start(["TC", "9D", "8H", "7C", "8S", "9C"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    view = http.act(t.rid, "Bob", action="stake", amount=200)["round"]
    for _ in range(4):
        if view["ended"]:
            return t.rid
        hand = view["current_turn"]
        owner = "Ann" if hand == "h1" else "Bob"
        view = http.act(t.rid, owner, action="stand", hand=hand)["round"]
    assert view["ended"], view
    return t.rid


def assert_bankroll_adds_up(http: Http, player_id: str) -> dict:
    """The movements' changes sum to the balance, each running balance is the sum so far,
    and the balance is the wallet's own (``GET /v1/players/{id}``)."""
    bankroll = http.get(f"/v1/players/{player_id}/bankroll?limit=1000")
    assert bankroll["next"] is None and bankroll["movements_total"] == len(bankroll["movements"])
    running = 0
    for seq, movement in enumerate(bankroll["movements"], start=1):
        running += movement["change"]
        assert movement["seq"] == seq
        assert movement["balance"] == running, movement
        assert abs(movement["change"]) == movement["amount"]
    assert bankroll["balance"] == running == http.balance(player_id)
    return bankroll


# --- what each endpoint holds after real rounds -----------------------------------------------


def test_the_bankroll_lists_a_casino_double_down_move_by_move_with_running_balances(http):
    t = casino_double_down(http)
    ann, wallet = t.ids["Ann"], accounts.player(t.ids["Ann"])
    bankroll = assert_bankroll_adds_up(http, ann)
    assert bankroll["account"] == wallet and bankroll["player_id"] == ann
    assert bankroll["balance"] == 100_400 and bankroll["held"] == 0
    escrow, house = accounts.escrow(t.rid), accounts.house(t.table_id)
    assert [
        (m["from_account"], m["to_account"], m["change"], m["balance"], m["clause"])
        for m in bankroll["movements"]
    ] == [
        ("cashier", wallet, 100_000, 100_000, "L-BUY-IN"),
        (wallet, escrow, -200, 99_800, "CB-1"),  # the stake
        (wallet, escrow, -200, 99_600, "CB-X-DOUBLE"),  # the double down
        (escrow, wallet, 400, 100_000, "CB-8"),  # both stakes back
        (house, wallet, 400, 100_400, "CB-8"),  # and the win, at even money
    ]
    assert [m["round_id"] for m in bankroll["movements"]] == [""] + [t.rid] * 4
    positions = [m["position"] for m in bankroll["movements"]]
    assert positions == sorted(set(positions))
    assert bankroll["projected_to"] >= t.last["position"]
    assert assert_bankroll_adds_up(http, t.ids["Bob"])["balance"] == 100_300


def test_held_counts_a_players_stakes_while_the_round_is_open_and_clears_when_it_ends(http):
    t = open_table(http, "casino", {"insurance": False})
    t.start(["6C", "TC", "9H", "5D", "8D", "7S", "TH", "8C"])
    ann = t.ids["Ann"]
    http.act(t.rid, "Ann", action="stake", amount=200)
    http.act(t.rid, "Bob", action="stake", amount=300)
    http.act(t.rid, "Ann", action="double_down", hand="h1")
    mid = http.get(f"/v1/players/{ann}/bankroll")
    assert (mid["balance"], mid["held"]) == (99_600, 400)
    assert http.get(f"/v1/accounts/{accounts.escrow(t.rid)}")["balance"] == 700
    http.act(t.rid, "Bob", action="stand", hand="h2")
    end = http.get(f"/v1/players/{ann}/bankroll")
    assert (end["balance"], end["held"]) == (100_400, 0)


def test_results_and_round_nets_count_a_round_in_play_apart_until_it_ends(http):
    t = open_table(http, "hoyle-1913", {"allow_split": True})
    t.start(["8C", "TC", "TH", "8D", "7C", "7H", "3C", "TD", "9C"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    last = http.act(t.rid, "Bob", action="stake", amount=200)
    escrow = http.get(f"/v1/accounts/{accounts.escrow(t.rid)}")["balance"]
    mid = http.get(f"/v1/tables/{t.table_id}/results?position={last['position']}")
    assert (mid["staked"], mid["punters_net"], mid["banker_net"], mid["returned"]) == (0, 0, 0, 0)
    assert mid["return_to_player"] is None
    assert (mid["rounds"], mid["in_play_rounds"], mid["in_play_staked"]) == (1, 1, 400)
    assert mid["held"] == escrow > 400, "the stakes and the banker's cover"
    [rnd] = http.get(f"/v1/tables/{t.table_id}/rounds")["rounds"]
    assert rnd["status"] == "open" and {p["net"] for p in rnd["players"]} == {None}
    [mine] = http.get(f"/v1/players/{t.ids['Dee']}/rounds", key=http.keys["Dee"])["rounds"]
    assert (mine["role"], mine["net"]) == ("banker", None)

    # As in hoyle_split_against_a_banker: Ann wins both her split hands, Bob stands off.
    http.act(t.rid, "Ann", action="split", hand="h1")
    http.act(t.rid, "Ann", action="hit", hand="h1")
    http.act(t.rid, "Ann", action="stand", hand="h1")
    http.act(t.rid, "Ann", action="stand", hand="h3")
    http.act(t.rid, "Bob", action="stand", hand="h2")
    last = http.act(t.rid, "dealer", action="dealer_stand")
    assert last["round"]["ended"]
    end = http.get(f"/v1/tables/{t.table_id}/results?position={last['position']}")
    assert (end["staked"], end["punters_net"], end["banker_net"]) == (600, 400, -400)
    assert end["punters_net"] + end["banker_net"] + end["house_net"] == 0
    assert (end["in_play_rounds"], end["in_play_staked"], end["held"]) == (0, 0, 0)
    [rnd] = http.get(f"/v1/tables/{t.table_id}/rounds")["rounds"]
    nets = {p["player_id"]: p["net"] for p in rnd["players"]}
    assert nets == {t.ids["Dee"]: -400, t.ids["Ann"]: 400, t.ids["Bob"]: 0}


def test_a_players_rounds_show_what_he_staked_and_netted_in_a_casino_double_down(http):
    t = casino_double_down(http)
    for name, staked, net in (("Ann", 400, 400), ("Bob", 300, 300)):
        found = http.get(f"/v1/players/{t.ids[name]}/rounds", key=http.keys[name])
        assert found["player_id"] == t.ids[name]
        [rnd] = found["rounds"]
        assert rnd["round_id"] == t.rid and rnd["table_id"] == t.table_id
        assert (rnd["family"], rnd["number"], rnd["status"], rnd["role"]) == (
            "casino",
            1,
            "ended",
            "punter",
        )
        assert (rnd["hands"], rnd["staked"], rnd["net"]) == (1, staked, net)
        assert rnd["started_at"] < rnd["ended_at"]
    zoe = http.player("Zoe")  # sat at no table
    assert http.get(f"/v1/players/{zoe}/rounds", key=http.keys["Zoe"])["rounds"] == []


def test_a_tables_rounds_list_each_round_with_its_players_stakes_and_nets(http):
    t = casino_double_down(http)
    found = http.get(f"/v1/tables/{t.table_id}/rounds", key=http.keys["auditor"])
    assert found["table_id"] == t.table_id
    [rnd] = found["rounds"]
    assert rnd["round_id"] == t.rid and rnd["number"] == 1 and rnd["dealer"] == "house"
    assert (rnd["status"], rnd["hands"], rnd["settled"], rnd["passes_deal"]) == ("ended", 2, 2, "")
    players = {p["player_id"]: p for p in rnd["players"]}
    assert players == {
        t.ids["Ann"]: {
            "player_id": t.ids["Ann"],
            "role": "punter",
            "hands": 1,
            "staked": 400,
            "net": 400,
        },
        t.ids["Bob"]: {
            "player_id": t.ids["Bob"],
            "role": "punter",
            "hands": 1,
            "staked": 300,
            "net": 300,
        },
    }
    # A player sees the rounds, but only his own part of each: what others won is theirs.
    [mine] = http.get(f"/v1/tables/{t.table_id}/rounds", key=http.keys["Ann"])["rounds"]
    assert mine["players"] == [players[t.ids["Ann"]]]
    [outsider] = http.get(f"/v1/tables/{t.table_id}/rounds", key=http.keys["Eve"])["rounds"]
    assert outsider["round_id"] == t.rid and outsider["players"] == []
    # The next round shows as open until it ends.
    t.start(["TC", "9D", "8H", "7C", "8S", "9C"])
    rounds = http.get(f"/v1/tables/{t.table_id}/rounds")["rounds"]
    assert [(r["number"], r["status"], r["ended_at"]) for r in rounds[1:]] == [(2, "open", None)]
    anns = http.get(f"/v1/players/{t.ids['Ann']}/rounds", key=http.keys["Ann"])["rounds"]
    assert [(r["number"], r["ended_at"] is None) for r in anns] == [(1, False), (2, True)]


def test_a_casino_tables_results_give_the_return_to_player_and_the_house_net(http):
    t = casino_double_down(http)
    results = http.get(f"/v1/tables/{t.table_id}/results", key=http.keys["dealer"])
    assert results["table_id"] == t.table_id and results["family"] == "casino"
    assert results["name"] == "casino table" and results["closed_at"] is None
    assert (results["rounds"], results["naturals"], results["busts"]) == (1, 0, 1)  # the dealer
    assert (results["staked"], results["punters_net"], results["returned"]) == (700, 700, 1400)
    assert results["return_to_player"] == "2.0000"
    assert (results["house_net"], results["banker_net"], results["pool_balance"]) == (-700, 0, 0)


def test_a_private_round_shows_the_banker_and_the_split_hands(http):
    t = hoyle_split_against_a_banker(http)
    dee, ann, bob = t.ids["Dee"], t.ids["Ann"], t.ids["Bob"]
    [rnd] = http.get(f"/v1/tables/{t.table_id}/rounds")["rounds"]
    assert rnd["dealer"] == dee and rnd["family"] == "hoyle-1913"
    assert (rnd["hands"], rnd["settled"]) == (3, 3)  # h1, h2 and Ann's split hand h3
    parts = {p["player_id"]: (p["role"], p["hands"], p["staked"], p["net"]) for p in rnd["players"]}
    assert parts == {
        dee: ("banker", 0, 0, -400),
        ann: ("punter", 2, 400, 400),
        bob: ("punter", 1, 200, 0),
    }
    [banked] = http.get(f"/v1/players/{dee}/rounds", key=http.keys["Dee"])["rounds"]
    assert (banked["role"], banked["net"], banked["round_id"]) == ("banker", -400, t.rid)

    results = http.get(f"/v1/tables/{t.table_id}/results")
    assert (results["staked"], results["punters_net"], results["returned"]) == (600, 400, 1000)
    assert results["return_to_player"] == "1.6667"  # 1000 / 600, rounded half up
    assert (results["banker_net"], results["house_net"]) == (-400, 0)
    for pid in (dee, ann, bob):
        assert_bankroll_adds_up(http, pid)
    assert http.get(f"/v1/players/{dee}/bankroll")["balance"] == 99_600


def test_every_accounts_projected_balance_equals_the_ledgers_and_they_sum_to_zero(http):
    casino, private = casino_double_down(http), hoyle_split_against_a_banker(http)
    books = fold_balances(http.ledger)
    assert accounts.house(casino.table_id) in books and accounts.escrow(private.rid) in books
    projected = {}
    for account in books:
        found = http.get(f"/v1/accounts/{account}", key=http.keys["auditor"])
        assert found["account"] == account and found["next"] is None
        assert sum(m["change"] for m in found["movements"]) == found["balance"]
        projected[account] = found["balance"]
    assert projected == books
    assert sum(projected.values()) == 0
    assert projected[accounts.escrow(casino.rid)] == 0 == projected[accounts.escrow(private.rid)]


def test_the_trail_holds_the_rounds_events_and_wallet_transfers_in_order_with_hashes(http):
    t = casino_double_down(http)
    trail = http.get(f"/v1/rounds/{t.rid}/trail", key=http.keys["auditor"])
    assert trail["round_id"] == t.rid and trail["projected_to"] >= t.last["position"]
    entries = trail["entries"]
    positions = [e["position"] for e in entries]
    assert positions == sorted(set(positions))

    # The round's own stream: every event, in version order, hidden cards included, and the
    # hash chain unbroken.
    own = [e for e in entries if e["stream"] == t.rid]
    feed = http.get(f"/v1/rounds/{t.rid}/events")
    assert [(e["version"], e["type"]) for e in own] == [
        (e["version"], f"Round.{e['type']}") for e in feed
    ]
    dealt = [(e["hand"], e["card"]) for e in own if e["type"] == "Round.CardDealt"]
    assert ("dealer", "7S") in dealt and ("h1", "TH") in dealt
    previous = "0" * 64
    for entry, stored in zip(own, feed):
        assert entry["prev_hash"] == previous and entry["hash"] == stored["data"]["hash"]
        previous = entry["hash"]
    assert own[-1]["type"] == "Round.Ended"

    # Every wallet transfer made for the round, and only those: the same as the bankrolls'.
    transfers = [e for e in entries if e["stream"] != t.rid]
    assert {e["type"] for e in transfers} == {"Player.FundsTransferred"}
    moved = {
        m["position"]
        for name in ("Ann", "Bob")
        for m in http.get(f"/v1/players/{t.ids[name]}/bankroll")["movements"]
        if m["round_id"] == t.rid
    }
    assert {e["position"] for e in transfers} == moved and len(moved) == 7
    assert (
        sum(e["amount"] for e in transfers if e["data"]["to_account"] == "escrow:" + t.rid) == 700
    )


# --- paging -----------------------------------------------------------------------------------


def test_bankroll_pages_follow_next_until_the_last_movement(http):
    pid = http.player("Ann", amount=1000)
    for amount in (10, 20, 30):
        http.post(f"/v1/players/{pid}/deposits", {"amount": amount})
        http.post(f"/v1/players/{pid}/withdrawals", {"amount": amount // 2})
    whole = http.get(f"/v1/players/{pid}/bankroll")["movements"]
    assert len(whole) == 7

    pages, after = [], 0
    for _ in range(5):  # bounded, should ``next`` never run out
        page = http.get(f"/v1/players/{pid}/bankroll?limit=3&after={after}")
        assert page["movements_total"] == 7 and page["balance"] == 1030
        pages.append([m["seq"] for m in page["movements"]])
        after = page["next"]
        if after is None:
            break
    assert pages == [[1, 2, 3], [4, 5, 6], [7]]
    assert http.get(f"/v1/players/{pid}/bankroll?after=7")["movements"] == []
    paged = [
        m
        for after in (0, 3, 6)
        for m in http.get(f"/v1/players/{pid}/bankroll?limit=3&after={after}")["movements"]
    ]
    assert paged == whole


def test_round_history_pages_by_round_number_and_by_where_the_player_joined(http):
    t = open_table(http, "casino", {"insurance": False})
    rids = [standing_round(t) for _ in range(3)]
    path = f"/v1/tables/{t.table_id}/rounds"
    first = http.get(f"{path}?limit=2")["rounds"]
    assert [r["number"] for r in first] == [1, 2]
    rest = http.get(f"{path}?limit=2&after=2")["rounds"]
    assert [r["number"] for r in rest] == [3]
    assert [r["round_id"] for r in first + rest] == rids

    mine = f"/v1/players/{t.ids['Ann']}/rounds"
    page = http.get(f"{mine}?limit=2", key=http.keys["Ann"])
    first = page["rounds"]
    assert page["next"] == first[-1]["joined"]
    page = http.get(f"{mine}?limit=2&after={page['next']}", key=http.keys["Ann"])
    rest = page["rounds"]
    assert page["next"] is None
    assert [r["round_id"] for r in first + rest] == rids
    movements = http.get(f"/v1/players/{t.ids['Ann']}/bankroll")["movements"]
    for rnd in first + rest:
        assert rnd["staked"] == 200 and rnd["hands"] == 1
        assert rnd["net"] == sum(m["change"] for m in movements if m["round_id"] == rnd["round_id"])


# --- who may read what ------------------------------------------------------------------------


def test_a_player_reads_only_his_own_bankroll_and_rounds(http):
    t = casino_double_down(http)
    ann, bob = t.ids["Ann"], t.ids["Bob"]
    for path in ("bankroll", "rounds"):
        http.get(f"/v1/players/{ann}/{path}", key=http.keys["Ann"])
        http.get(f"/v1/players/{bob}/{path}", key=http.keys["Ann"], status=403)
        http.get(f"/v1/players/{ann}/{path}", key=http.keys["dealer"], status=403)  # the house
        http.get(f"/v1/players/{ann}/{path}", key=http.keys["auditor"])
        http.get(f"/v1/players/{ann}/{path}")  # admin
    refused = raw(http, f"/v1/players/{bob}/bankroll", http.keys["Ann"])
    assert refused.mimetype == PROBLEM and refused.get_json()["type"].endswith("/not-permitted")
    assert http.client.get(f"/v1/players/{ann}/bankroll").status_code == 401


def test_a_private_dealer_reads_his_own_bankroll_but_not_his_punters(http):
    t = hoyle_split_against_a_banker(http)
    http.get(f"/v1/players/{t.ids['Dee']}/bankroll", key=http.keys["dealer"])
    http.get(f"/v1/players/{t.ids['Ann']}/bankroll", key=http.keys["dealer"], status=403)


def test_the_trail_and_the_accounts_are_for_admins_and_auditors_only(http):
    t = casino_double_down(http)
    trail, house = f"/v1/rounds/{t.rid}/trail", f"/v1/accounts/{accounts.house(t.table_id)}"
    wallet = f"/v1/accounts/{accounts.player(t.ids['Ann'])}"
    for path in (trail, house, wallet):
        for who in ("Ann", "Eve", "dealer"):
            http.get(path, key=http.keys[who], status=403)
        http.get(path, key=http.keys["auditor"])
        http.get(path)


def test_table_results_are_refused_to_players_but_every_role_reads_the_rounds(http):
    t = casino_double_down(http)
    results, rounds = f"/v1/tables/{t.table_id}/results", f"/v1/tables/{t.table_id}/rounds"
    for who in ("Ann", "Eve"):
        http.get(results, key=http.keys[who], status=403)
        assert len(http.get(rounds, key=http.keys[who])["rounds"]) == 1
    for who in ("dealer", "auditor"):
        assert http.get(results, key=http.keys[who])["rounds"] == 1


# --- unknown ids and bad queries --------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        f"/v1/players/{UNKNOWN}/bankroll",
        f"/v1/players/{UNKNOWN}/rounds",
        f"/v1/tables/{UNKNOWN}/rounds",
        f"/v1/tables/{UNKNOWN}/results",
        f"/v1/rounds/{UNKNOWN}/trail",
        "/v1/accounts/bogus",
        f"/v1/accounts/player:{UNKNOWN}",
        f"/v1/accounts/house:{UNKNOWN}",
    ],
)
def test_an_unknown_player_table_round_or_account_is_404(http, path):
    casino_double_down(http)  # something in the read models, just not this
    response = raw(http, path)
    assert response.status_code == 404, response.get_json()
    assert response.mimetype == PROBLEM and response.get_json()["status"] == 404


def test_a_registered_player_without_any_transfer_has_an_empty_bankroll_not_a_404(http):
    pid = http.post("/v1/players", {"name": "Newcomer"}, status=201)["player_id"]
    bankroll = http.get(f"/v1/players/{pid}/bankroll")
    assert (bankroll["balance"], bankroll["held"], bankroll["movements"]) == (0, 0, [])
    assert bankroll["next"] is None and bankroll["movements_total"] == 0
    http.get(f"/v1/accounts/{accounts.player(pid)}", status=404)  # no transfer touched it


BAD_QUERIES = [
    "position=-1",
    "position=abc",
    "position=1.5",
    "limit=0",
    "limit=10001",
    "limit=-3",
    "limit=ten",
    "after=-1",
    "after=x",
]
PAGED_BY_NUMBER = ("bankroll", "rounds", "table_rounds", "account")


@pytest.mark.parametrize(
    ("endpoint", "query"),
    [
        (endpoint, query)
        for endpoint in ("bankroll", "rounds", "table_rounds", "results", "account")
        for query in BAD_QUERIES
        if not query.startswith("after") or endpoint in PAGED_BY_NUMBER
        if not query.startswith("limit") or endpoint != "results"  # answers whole
    ],
)
def test_a_bad_query_parameter_is_422(http, endpoint, query):
    pid = http.player("Ann")
    tid = http.post("/v1/tables", {"family": "casino", "name": "t"}, status=201)["table_id"]
    path = {
        "bankroll": f"/v1/players/{pid}/bankroll",
        "rounds": f"/v1/players/{pid}/rounds",
        "table_rounds": f"/v1/tables/{tid}/rounds",
        "results": f"/v1/tables/{tid}/results",
        "account": "/v1/accounts/cashier",
    }[endpoint]
    response = raw(http, f"{path}?{query}")
    assert response.status_code == 422, response.get_json()
    problem = response.get_json()
    assert response.mimetype == PROBLEM and problem["type"].endswith("/validation-error")
    assert query.split("=")[0] in str(problem["errors"])


def test_a_trail_read_with_a_negative_position_is_422(http):
    t = casino_double_down(http)
    http.get(f"/v1/rounds/{t.rid}/trail?position=-1", status=422)
    http.get(f"/v1/rounds/{t.rid}/trail?position=0")


# --- configuration ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["sometimes", "external-ish", "0"])
def test_an_unknown_projection_mode_fails_at_create_app_naming_the_variable(memory_env, value):
    with pytest.raises(ValueError, match="LEDGER_PROJECTIONS") as raised:
        create_app({"TESTING": True, "STORE_ENV": memory_env, "LEDGER_PROJECTIONS": value})
    assert value in str(raised.value)


def test_an_unknown_projection_mode_in_the_environment_fails_at_create_app(memory_env, monkeypatch):
    monkeypatch.setenv("LEDGER_PROJECTIONS", "lazy")
    with pytest.raises(ValueError, match="LEDGER_PROJECTIONS.*'lazy'"):
        create_app({"TESTING": True, "STORE_ENV": memory_env})


def test_the_projection_mode_is_read_from_the_environment_and_normalised(memory_env, monkeypatch):
    monkeypatch.setenv("LEDGER_PROJECTIONS", " External ")
    app = create_app({"TESTING": True, "STORE_ENV": memory_env})
    assert app.config["LEDGER_PROJECTIONS"] == "external"
    assert app.config["LEDGER_PROJECTION_WAIT_MS"] == 2000
    monkeypatch.delenv("LEDGER_PROJECTIONS")
    assert create_app({"TESTING": True, "STORE_ENV": memory_env}).config["LEDGER_PROJECTIONS"] == (
        "inline"
    )


@pytest.mark.parametrize("value", ["-1", "soon"])
def test_a_bad_projection_wait_fails_at_create_app_naming_the_variable(memory_env, value):
    with pytest.raises(ValueError, match="LEDGER_PROJECTION_WAIT_MS"):
        create_app({"TESTING": True, "STORE_ENV": memory_env, "LEDGER_PROJECTION_WAIT_MS": value})


# --- read-your-writes -------------------------------------------------------------------------


def test_inline_a_read_with_a_writes_position_sees_that_write(http):
    t = open_table(http, "casino", {"insurance": False})
    t.start(["6C", "TC", "9H", "5D", "8D", "7S", "TH", "8C"])
    ann = t.ids["Ann"]
    # No read between these writes: the read models are behind until the read folds them.
    done = http.post(f"/v1/players/{ann}/deposits", {"amount": 55})
    bankroll = http.get(f"/v1/players/{ann}/bankroll?position={done['position']}")
    assert bankroll["projected_to"] >= done["position"]
    # The write's last event is the admin key's ActedFor, just after the deposit's transfer.
    assert bankroll["movements"][-1]["position"] == done["position"] - 1
    assert bankroll["movements"][-1]["change"] == 55 and bankroll["balance"] == done["balance"]

    staked = http.act(t.rid, "Ann", action="stake", amount=200)
    mine = http.get(f"/v1/players/{ann}/bankroll?position={staked['position']}")
    assert mine["held"] == 200
    http.act(t.rid, "Bob", action="stake", amount=300)
    http.act(t.rid, "Ann", action="double_down", hand="h1")
    last = http.act(t.rid, "Bob", action="stand", hand="h2")
    [rnd] = http.get(f"/v1/tables/{t.table_id}/rounds?position={last['position']}")["rounds"]
    assert rnd["status"] == "ended" and rnd["position"] <= last["position"]
    trail = http.get(f"/v1/rounds/{t.rid}/trail?position={last['position']}")
    assert trail["entries"][-1]["position"] <= last["position"] <= trail["projected_to"]
    assert http.get(f"/v1/players/{ann}/bankroll?position={last['position']}")["held"] == 0


def test_external_a_read_ahead_of_the_projections_is_503_until_they_catch_up(
    store_env, monkeypatch
):
    http = external_http(store_env, wait_ms=50)
    try:
        pid = http.player("Ann", amount=1000)
        done = http.post(f"/v1/players/{pid}/withdrawals", {"amount": 300})
        wanted = done["position"]
        path = f"/v1/players/{pid}/bankroll?position={wanted}"

        waits = spy_on_waits(http, monkeypatch)
        response = raw(http, path)
        assert response.status_code == 503, response.get_json()
        assert response.mimetype == PROBLEM and response.headers["Retry-After"].isdigit()
        problem = response.get_json()
        assert problem["type"].endswith("projection-lag") and problem["status"] == 503
        assert problem["wanted"] == wanted and problem["reached"] == 0
        assert problem["lag"] == wanted - problem["reached"] > 0
        assert waits == [(wanted, 0.05)]  # the configured 50 ms, not the 2 s default

        # Without a position the read never waits: it answers with what is projected.
        stale = http.get(f"/v1/players/{pid}/bankroll")
        assert stale["projected_to"] == 0 and stale["movements"] == []

        assert http.app.extensions["projections"].catch_up() >= wanted
        bankroll = http.get(path)
        assert bankroll["projected_to"] >= wanted and bankroll["balance"] == 700
        assert [m["change"] for m in bankroll["movements"]] == [1000, -300]
        assert http.get(f"/v1/players/{pid}/bankroll?position=0")["balance"] == 700
    finally:
        close(http)


def test_a_server_older_than_its_read_models_answers_503_and_folds_nothing(http):
    pid = http.player("Ann", amount=1000)
    projections = http.app.extensions["projections"]
    reached = projections.catch_up()
    # Newer code has rebuilt the bankroll meanwhile (its version is higher).
    with projections.views.transaction() as db:
        db.execute("UPDATE view_projections SET version = version + 1 WHERE name = ?",
                   ("bankroll",))  # fmt: skip
    http.post(f"/v1/players/{pid}/withdrawals", {"amount": 300})
    response = raw(http, f"/v1/players/{pid}/bankroll")
    assert response.status_code == 503 and response.mimetype == PROBLEM
    problem = response.get_json()
    assert problem["type"].endswith("projection-superseded")
    assert problem["projection"] == "bankroll" and "upgrade and restart" in problem["detail"]
    assert projections.views.read("SELECT MAX(position) FROM view_projections")[0][0] == reached


def test_external_history_reads_wait_for_a_rounds_last_write(memory_env):
    http = external_http(memory_env, wait_ms=30)
    projections = http.app.extensions["projections"]
    try:
        t = open_table(http, "casino", {"insurance": False})
        projections.catch_up()
        rid = standing_round(t)
        last = http.get(f"/v1/rounds/{rid}")
        position = http.ledger.recorder.max_notification_id()
        for path in (
            f"/v1/tables/{t.table_id}/rounds",
            f"/v1/tables/{t.table_id}/results",
            f"/v1/players/{t.ids['Ann']}/rounds",
            f"/v1/rounds/{rid}/trail",
            "/v1/accounts/cashier",
        ):
            lagging = raw(http, f"{path}?position={position}")
            assert lagging.status_code == 503, (path, lagging.get_json())
            assert lagging.get_json()["reached"] < position
        # Behind, a read without a position sees the round not yet played.
        assert http.get(f"/v1/tables/{t.table_id}/rounds")["rounds"] == []
        projections.catch_up()
        [rnd] = http.get(f"/v1/tables/{t.table_id}/rounds?position={position}")["rounds"]
        assert rnd["round_id"] == rid and rnd["status"] == "ended" and last["ended"]
        assert http.get(f"/v1/tables/{t.table_id}/results?position={position}")["rounds"] == 1
    finally:
        close(http)


def test_a_table_the_read_models_have_not_reached_answers_its_results_with_nothing_counted(
    memory_env,
):
    """Read without a position before the projection has folded the table: no figures yet,
    its opening time as the projection will write it, and no closing (the read model's to
    tell, once it has folded the table)."""
    http = external_http(memory_env)
    projections = http.app.extensions["projections"]
    try:
        tid = http.post("/v1/tables", {"family": "casino", "name": "new"}, status=201)["table_id"]
        early = http.get(f"/v1/tables/{tid}/results")
        assert (early["name"], early["rounds"], early["staked"]) == ("new", 0, 0)
        assert early["closed_at"] is None and early["return_to_player"] is None
        projections.catch_up()
        folded = http.get(f"/v1/tables/{tid}/results")
        assert folded["opened_at"] == early["opened_at"] and folded["closed_at"] is None
    finally:
        close(http)


def dealer_natural(http: Http) -> Table:
    """The dealer's AH KD beats Ann's TC 7C (200) and Bob's 9D 8S (300): the round ends in
    the command of Bob's stake, whose wallet transfer is stored after ``Round.Ended``."""
    t = open_table(http, "casino", {"insurance": False})
    t.start(["TC", "9D", "AH", "7C", "8S", "KD"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    t.last = http.act(t.rid, "Bob", action="stake", amount=300)
    assert t.last["round"]["ended"] and t.changes() == {"Ann": -200, "Bob": -300}
    return t


def position_of(http: Http, topic_end: str, after: int = 0) -> int:
    """Where the first stored event named ``topic_end`` after ``after`` is (test-side)."""
    found = http.ledger.recorder.select_notifications(start=after + 1, limit=10_000)
    return next(n.id for n in found if n.topic.endswith(topic_end))


def test_a_read_at_a_position_inside_a_command_leaves_no_stake_held_after_the_round(http):
    """A caller may name any position; the read models then stop inside a command (here
    between ``Round.Ended`` and Bob's stake transfer). Folding the rest must still leave
    nothing held for a round that has ended."""
    start = http.ledger.recorder.max_notification_id() or 0
    t = dealer_natural(http)
    ended = position_of(http, ":Round.Ended", start)
    assert ended < t.last["position"]
    http.get(f"/v1/players/{t.ids['Bob']}/bankroll?position={ended}")
    for name, balance in (("Ann", 99_800), ("Bob", 99_700)):
        bankroll = http.get(f"/v1/players/{t.ids[name]}/bankroll")
        assert (bankroll["balance"], bankroll["held"]) == (balance, 0), name


def test_a_rebuild_in_small_batches_answers_the_same_as_the_live_read_models(http):
    casino_double_down(http)
    t = dealer_natural(http)
    private = hoyle_split_against_a_banker(http)
    players = [*t.ids.values(), *private.ids.values()]
    paths = [f"/v1/players/{pid}/{what}" for pid in players
             for what in ("bankroll", "rounds")]  # fmt: skip
    paths += [f"/v1/tables/{tid}/{what}" for tid in (t.table_id, private.table_id)
              for what in ("rounds", "results")]  # fmt: skip
    live = {path: http.get(path) for path in paths}
    projections = http.app.extensions["projections"]
    projections.batch = 1  # every batch boundary a bigger batch could ever meet
    assert projections.rebuild() == http.ledger.recorder.max_notification_id()
    for path in paths:
        assert http.get(path) == live[path], path


# --- the reads come from the projections, not from replaying the store ------------------------


@pytest.mark.parametrize(
    "endpoint", ["bankroll", "player_rounds", "table_rounds", "results", "trail", "account"]
)
def test_history_reads_decode_no_stored_event(http, monkeypatch, endpoint):
    t = casino_double_down(http)
    ann = t.ids["Ann"]
    for _ in range(10):  # a long wallet history a replay would have to read
        http.post(f"/v1/players/{ann}/deposits", {"amount": 5})
    path = {
        "bankroll": f"/v1/players/{ann}/bankroll",
        "player_rounds": f"/v1/players/{ann}/rounds",
        "table_rounds": f"/v1/tables/{t.table_id}/rounds",
        "results": f"/v1/tables/{t.table_id}/results",
        "trail": f"/v1/rounds/{t.rid}/trail",
        "account": f"/v1/accounts/{accounts.player(ann)}",
    }[endpoint]
    http.get(path)  # the read models catch up (inline) with everything written so far

    mapper, decoded = http.ledger.mapper, []
    to_domain_event = mapper.to_domain_event

    def counting(stored):
        decoded.append(stored.originator_id)
        return to_domain_event(stored)

    monkeypatch.setattr(mapper, "to_domain_event", counting)
    again = http.get(path)
    assert decoded == [], f"{endpoint} decoded {len(decoded)} stored events"
    if endpoint in ("bankroll", "account"):
        assert again["movements_total"] == 15 and again["balance"] == 100_450
    # The counter does see a replay: rebuilding the wallet decodes its whole stream.
    http.ledger.repository.get(UUID(ann), version=3)
    assert decoded == [UUID(ann)] * 3


def test_an_account_answers_with_the_event_store_unreachable(http, monkeypatch):
    t = casino_double_down(http)
    wallet = accounts.player(t.ids["Ann"])
    before = http.get(f"/v1/accounts/{wallet}")

    def refuse(*args, **kwargs):
        raise AssertionError("the event store was read")

    monkeypatch.setattr(http.ledger.events, "get", refuse)
    monkeypatch.setattr(http.ledger.repository, "get", refuse)
    monkeypatch.setattr(http.ledger.recorder, "select_events", refuse)
    assert http.get(f"/v1/accounts/{wallet}") == before
    assert http.get(f"/v1/accounts/{accounts.house(t.table_id)}")["balance"] == -700
    with pytest.raises(AssertionError, match="the event store was read"):
        http.ledger.get_player(t.ids["Ann"])  # the patch does refuse a replay


def test_a_read_with_an_unknown_id_is_404_before_any_wait(memory_env, monkeypatch):
    http = external_http(memory_env, wait_ms=2000)
    try:
        http.player("Ann")
        waits = spy_on_waits(http, monkeypatch)
        for path in (f"/v1/players/{uuid4()}/bankroll", f"/v1/rounds/{uuid4()}/trail"):
            assert raw(http, f"{path}?position=10000").status_code == 404
        assert waits == []
    finally:
        close(http)
