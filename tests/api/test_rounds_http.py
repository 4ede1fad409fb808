"""A full round of each family over HTTP, with fixed shoes: a casino double down, a Vingt-un
dealer double, a Hoyle split and an Очко ace choice; every payout checked against the
wallets, and every role's view of the round."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from ledger_client import Http

SPARE = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"]
HIDDEN = "??"


@dataclass
class Table:
    http: Http
    family: str
    table_id: str
    ids: dict[str, str]  # name -> player id
    rid: str = ""

    def start(self, shoe: list[str]) -> dict:
        self.http.ledger.fix_next_shoe(self.table_id, shoe + SPARE)
        self.before = {n: self.http.balance(pid) for n, pid in self.ids.items()}
        view = self.http.post(
            f"/v1/tables/{self.table_id}/rounds", key=self.http.keys["dealer"], status=201
        )
        self.rid = view["round_id"]
        return view

    def changes(self) -> dict[str, int]:
        return {n: self.http.balance(pid) - self.before[n] for n, pid in self.ids.items()}

    def view(self, who: str) -> dict:
        key = self.http.admin if who == "admin" else self.http.keys[who]
        return self.http.get(f"/v1/rounds/{self.rid}", key=key)


def open_table(http: Http, family: str, options: dict | None = None) -> Table:
    """Casino: Ann seat 1, Bob seat 2, the house dealer's key. Private: Dee deals from seat 1,
    Ann seat 2 (h1), Bob seat 3 (h2). Players seat themselves with their own keys."""
    body = {"family": family, "options": options or {}, "name": f"{family} table"}
    tid = http.post("/v1/tables", body, status=201)["table_id"]
    names = ["Ann", "Bob"] if family == "casino" else ["Dee", "Ann", "Bob"]
    ids = {n: http.player(n) for n in names}
    for seat, name in enumerate(names, start=1):
        seated = {"player_id": ids[name], "seat": seat}
        http.post(f"/v1/tables/{tid}/seats", seated, key=http.keys[name], status=201)
    if family == "casino":
        http.keys["dealer"] = http.make_key("dealer")  # the house dealer: no player
    else:
        assert (
            http.post(f"/v1/tables/{tid}/dealer", {"player_id": ids["Dee"]})["dealer"] == ids["Dee"]
        )
        http.keys["dealer"] = http.make_key("dealer", ids["Dee"])
    http.keys["auditor"] = http.make_key("auditor")
    http.player("Eve")  # a player who does not sit at this table
    return Table(http, family, tid, ids)


def results(view: dict) -> dict[str, int]:
    return {h["id"]: h["result"] for h in view["hands"]}


def assert_books(http: Http, t: Table) -> None:
    from ledger.balances import fold_balances

    books = fold_balances(http.ledger)
    assert sum(books.values()) == 0
    assert books.get(f"escrow:{t.rid}", 0) == 0


def casino_double_down(http: Http) -> Table:
    """Ann 6C 5D (11) doubles 200 and gets TH (21); Bob TC 8D stands on 18 for 300; the
    dealer shows 9H, has 7S (16), draws 8C and breaks: Ann +400, Bob +300, the house -700.
    ``t.last`` is the answer to Bob's stand, which ends the round."""
    t = open_table(http, "casino", {"insurance": False})
    t.start(["6C", "TC", "9H", "5D", "8D", "7S", "TH", "8C"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    http.act(t.rid, "Bob", action="stake", amount=300)
    http.act(t.rid, "Ann", action="double_down", hand="h1")
    t.last = http.act(t.rid, "Bob", action="stand", hand="h2")
    assert t.last["round"]["ended"]
    assert t.changes() == {"Ann": 400, "Bob": 300}
    return t


def test_casino_round_with_a_double_down(http):
    t = open_table(http, "casino", {"insurance": False})
    # Ann 6C 5D (11) doubles and gets TH (21); Bob TC 8D stands on 18; the dealer shows 9H,
    # has 7S in the hole (16), draws 8C and breaks.
    view = t.start(["6C", "TC", "9H", "5D", "8D", "7S", "TH", "8C"])
    assert view["phase"] == "betting"
    http.act(t.rid, "Ann", action="stake", amount=200)
    out = http.act(t.rid, "Bob", action="stake", amount=300)
    assert out["round"]["phase"] == "play" and out["round"]["current_turn"] == "h1"
    assert out["round"]["dealer_hand"]["cards"] == ["9H", HIDDEN]  # CB-2: the hole card
    assert t.view("auditor")["dealer_hand"]["cards"] == ["9H", "7S"]
    assert t.view("dealer")["dealer_hand"]["cards"] == ["9H", HIDDEN]  # the house's key too

    out = http.act(t.rid, "Ann", action="double_down", hand="h1")
    assert out["result"]["card"] == "TH" and out["round"]["hands"][0]["stake"] == 400
    http.act(t.rid, "Ann", action="stand", hand="h2", status=403)  # Bob's hand
    out = http.act(t.rid, "Bob", action="stand", hand="h2")

    final = out["round"]
    assert final["ended"] and final["dealer_hand"]["cards"] == ["9H", "7S", "8C"]
    assert results(final) == {"h1": 400, "h2": 300}
    assert t.changes() == {"Ann": 400, "Bob": 300}
    assert_books(http, t)


def test_the_round_view_names_the_hands_whose_insurance_it_waits_for(http):
    t = open_table(http, "casino", {"insurance": True})
    # The dealer shows AH over 7S (no blackjack); Ann 9C 8D, Bob TC 6D.
    t.start(["9C", "TC", "AH", "8D", "6D", "7S"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    out = http.act(t.rid, "Bob", action="stake", amount=200)
    pending = {h["id"]: h["insurance_pending"] for h in out["round"]["hands"]}
    assert out["round"]["phase"] == "insurance" and out["round"]["current_turn"] is None
    assert pending == {"h1": True, "h2": True}

    out = http.act(t.rid, "Ann", action="insurance", hand="h1", amount=0)  # declines
    pending = {h["id"]: h["insurance_pending"] for h in out["round"]["hands"]}
    assert pending == {"h1": False, "h2": True}
    assert t.view("Eve")["hands"][1]["insurance_pending"] is True  # any viewer may know

    out = http.act(t.rid, "Bob", action="insurance", hand="h2", amount=100)
    assert out["round"]["phase"] == "play"
    assert [h["insurance_pending"] for h in out["round"]["hands"]] == [False, False]


def test_the_house_dealer_key_reads_no_hole_card_anywhere_until_it_is_turned(http):
    t = open_table(http, "casino", {"insurance": False})
    # The dealer shows 9H and holds 7S in the hole; Ann and Bob still to play.
    t.start(["6C", "TC", "9H", "5D", "8D", "7S", "TH", "8C"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    http.act(t.rid, "Bob", action="stake", amount=300)
    house = http.keys["dealer"]

    view = http.get(f"/v1/rounds/{t.rid}", key=house)
    events = http.get(f"/v1/rounds/{t.rid}/events", key=house)
    feed = http.get(f"/v1/tables/{t.table_id}/events", key=house)["items"]
    stream = http.client.get(
        f"/v1/tables/{t.table_id}/events/stream?timeout=0",
        headers={"Authorization": f"Bearer {house}"},
    ).get_data(as_text=True)

    assert view["dealer_hand"]["cards"] == ["9H", HIDDEN] and view["dealer_hand"]["total"] is None
    for listing in (events, feed):
        hole = [e for e in listing if e["type"] == "CardDealt" and e["data"]["hand"] == "dealer"]
        assert [e["data"]["card"] for e in hole] == ["9H", HIDDEN]
    assert '"7S"' not in stream and '"9H"' in stream

    http.act(t.rid, "Ann", action="stand", hand="h1")
    http.act(t.rid, "Bob", action="stand", hand="h2")  # the house plays: 7S is turned up
    assert http.get(f"/v1/rounds/{t.rid}", key=house)["dealer_hand"]["cards"][:2] == ["9H", "7S"]


def test_vingt_un_round_with_a_dealer_double(http):
    t = open_table(http, "vingt-un")
    # VU-4: one card face down each (Ann TC, Bob 9D, Dee 8H) before the stakes.
    view = t.start(["TC", "9D", "8H", "KC", "7D", "9C", "6D"])
    assert view["phase"] == "staking"
    assert t.view("Ann")["hands"][0]["cards"] == ["TC"]
    assert t.view("Ann")["hands"][1]["cards"] == [HIDDEN]
    assert t.view("Ann")["dealer_hand"]["cards"] == [HIDDEN]
    http.act(t.rid, "Ann", action="stake", amount=200)
    out = http.act(t.rid, "Bob", action="stake", amount=200)
    assert out["round"]["phase"] == "dealer_double"
    http.act(t.rid, "Ann", action="dealer_double", called=True, status=403)
    out = http.act(t.rid, "dealer", action="dealer_double", called=True)  # VU-6
    assert out["round"]["dealer_doubled"] and out["round"]["phase"] == "play"
    # Second cards (VU-7): Ann KC (20), Bob 7D (16), Dee 9C (17). Ann stands; Bob draws
    # 6D face up (VU-11) and is over (22).
    http.act(t.rid, "Ann", action="stand", hand="h1")
    out = http.act(t.rid, "Bob", action="hit", hand="h2")
    assert out["result"]["card"] == "6D"
    assert t.view("Ann")["hands"][1]["cards"] == [HIDDEN, HIDDEN, "6D"]
    assert t.view("Eve")["hands"][0]["cards"] == [HIDDEN, HIDDEN]
    out = http.act(t.rid, "dealer", action="dealer_stand")
    final = out["round"]
    assert final["ended"]
    assert results(final) == {"h1": 400, "h2": -400}  # the doubled stakes, at even money
    assert t.changes() == {"Dee": 0, "Ann": 400, "Bob": -400}
    assert_books(http, t)


def test_hoyle_round_with_a_split(http):
    t = open_table(http, "hoyle-1913", {"allow_split": True})
    # Ann 8C 8D divides: h1 8C+3C, h3 8D+TD; Bob TC 7C; Dee TH 7H (17).
    t.start(["8C", "TC", "TH", "8D", "7C", "7H", "3C", "TD", "9C"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    http.act(t.rid, "Bob", action="stake", amount=200)
    out = http.act(t.rid, "Ann", action="split", hand="h1")
    assert out["result"]["new_hand"] == "h3"
    assert out["round"]["order"] == ["h1", "h3", "h2"]
    out = http.act(t.rid, "Ann", action="hit", hand="h1")
    assert out["result"]["card"] == "9C"  # 8C 3C 9C = 20
    http.act(t.rid, "Ann", action="stand", hand="h1")
    http.act(t.rid, "Ann", action="stand", hand="h3")
    out = http.act(t.rid, "Bob", action="stand", hand="h2")
    assert out["round"]["phase"] == "dealer"
    assert out["round"]["dealer_hand"]["cards"] == ["TH", "7H"]  # turned up for his turn
    final = http.act(t.rid, "dealer", action="dealer_stand")["round"]
    assert final["ended"]
    res = results(final)
    assert res["h1"] == 200 and res["h3"] == 200  # 20 and 18 beat 17
    assert res["h2"] == 0  # H13-10: equal totals are a stand-off
    assert t.changes() == {"Dee": -400, "Ann": 400, "Bob": 0}
    assert_books(http, t)


def test_ochko_round_with_an_ace_choice(http):
    t = open_table(http, "ochko")
    # Ann AC 6C counts the ace as 1 (7) and draws TD face down (17); Bob 9D 8S (17);
    # the banker Dee 7H 9H (16) stands.
    t.start(["AC", "9D", "7H", "6C", "8S", "9H", "TD"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    http.act(t.rid, "Bob", action="stake", amount=200)
    out = http.act(t.rid, "Ann", action="ace_value", hand="h1", index=0, value=1)
    assert out["round"]["hands"][0]["aces"] == {"0": 1} and out["round"]["hands"][0]["total"] == 7
    assert t.view("Bob")["hands"][0]["aces"] == {}
    http.act(t.rid, "Ann", action="hit", hand="h1")
    assert t.view("Bob")["hands"][0]["cards"] == [HIDDEN] * 3  # OC: draws are face down
    http.act(t.rid, "Ann", action="stand", hand="h1")
    http.act(t.rid, "Bob", action="stand", hand="h2")
    final = http.act(t.rid, "dealer", action="dealer_stand")["round"]
    assert final["ended"] and results(final) == {"h1": 200, "h2": 200}
    assert t.changes() == {"Dee": -400, "Ann": 200, "Bob": 200}
    assert_books(http, t)


@pytest.mark.parametrize("family", ["casino", "vingt-un", "hoyle-1913", "ochko"])
def test_every_role_gets_its_own_view(http, family):
    t = open_table(http, family, {"insurance": False} if family == "casino" else {})
    t.start(["TC", "9D", "8H", "7C", "8S", "9C", "3D"])
    for name in ("Ann", "Bob"):
        http.act(t.rid, name, action="stake", amount=200)
    if family == "vingt-un":
        http.act(t.rid, "dealer", action="dealer_double", called=False)
    full = t.view("auditor")
    assert HIDDEN not in str(full) and t.view("admin") == full
    ann, eve, dealer = t.view("Ann"), t.view("Eve"), t.view("dealer")
    assert ann["hands"][0]["cards"] == full["hands"][0]["cards"]
    if family == "casino":
        assert ann["hands"][1]["cards"] == full["hands"][1]["cards"]  # dealt face up
        assert ann["dealer_hand"]["cards"][1] == HIDDEN
        assert dealer["dealer_hand"] == ann["dealer_hand"]  # the house key holds no hand
    else:
        assert ann["hands"][1]["cards"] == [HIDDEN, HIDDEN]
        assert ann["dealer_hand"]["cards"] == [HIDDEN, HIDDEN]
        assert dealer["dealer_hand"] == full["dealer_hand"]
        assert dealer["hands"][0]["cards"] == [HIDDEN, HIDDEN]
        assert eve["hands"][0]["cards"] == [HIDDEN, HIDDEN]
    events = http.get(f"/v1/rounds/{t.rid}/events", key=http.keys["Bob"])
    dealt = [e["data"]["card"] for e in events if e["type"] == "CardDealt"]
    # Casino: only the hole card; private: Ann's two and the dealer's two.
    assert dealt.count(HIDDEN) == (1 if family == "casino" else 4)


def test_VU_3_the_dealer_may_not_choose_the_cut_an_admin_enters_it(http):
    t = open_table(http, "vingt-un")
    path = f"/v1/tables/{t.table_id}/rounds"
    before = http.ledger.recorder.max_notification_id()
    refused = http.post(path, {"cut": 17}, key=http.keys["dealer"], status=403)
    assert refused["clause"] == "VU-3" and "right" in refused["detail"]
    assert http.ledger.recorder.max_notification_id() == before

    view = http.post(path, {"cut": 17}, status=201)  # the admin's key
    rnd = http.ledger.get_round(view["round_id"])
    (cut,) = [e for e in http.ledger.events.get(rnd.shoe_id) if type(e).__name__ == "Cut"]
    assert (cut.cut, cut.by) == (17, rnd.pone)


def test_a_cut_outside_the_tables_shoe_is_bad_input_whether_or_not_a_shoe_starts(http):
    """422 naming the cut, nothing written, for a round that would cut a new shoe and for one
    dealt from the shoe in use alike: the answer never depends on the shoe."""
    t = open_table(http, "casino", {"insurance": False, "decks": 8})
    path = f"/v1/tables/{t.table_id}/rounds"
    for cut in (416, 5000):
        refused = http.post(path, {"cut": cut}, status=422)  # a new shoe would start
        assert (
            refused["detail"]
            == f"cut must be 0 to 415 (a place in the table's shoe of 8 packs), got {cut}"
        )
    view = http.post(path, {"cut": 415}, status=201)
    for name in ("Ann", "Bob"):
        view = http.act(view["round_id"], name, action="stake", amount=200)["round"]
    while not view["ended"]:
        owner = next(h["player"] for h in view["hands"] if h["id"] == view["current_turn"])
        name = next(n for n, pid in t.ids.items() if pid == owner)
        view = http.act(view["round_id"], name, action="stand", hand=view["current_turn"])["round"]
    refused = http.post(path, {"cut": 5000}, status=422)  # the shoe in use goes on
    assert refused["type"].endswith("/invalid-command") and "got 5000" in refused["detail"]


def test_a_key_that_may_not_start_a_round_hears_so_while_one_is_in_play(http):
    """403 ``not-permitted`` for the house's dealer key and another player's dealer key at a
    private table, in play or not: not a 409 telling them a round is in play."""
    t = open_table(http, "vingt-un")
    path = f"/v1/tables/{t.table_id}/rounds"
    strangers = (http.make_key("dealer"), http.make_key("dealer", t.ids["Ann"]))
    for key in strangers:
        http.post(path, key=key, status=403)
    t.start(["TC", "9D", "8H", "KC", "7D", "9C"])
    for key in strangers:
        refused = http.post(path, key=key, status=403)
        assert refused["type"].endswith("/not-permitted"), refused
    assert http.post(path, key=http.keys["dealer"], status=409)["type"].endswith("/wrong-phase")


def test_VU_24_VU_25_hands_settled_by_an_irregularity_read_settled_in_the_round_view(http):
    t = open_table(http, "vingt-un")
    # First cards Ann 4C, Bob 5C, Dee 9C; second Ann 9D, Bob 6D, Dee 8D (17).
    t.start(["4C", "5C", "9C", "9D", "6D", "8D", "2H"])
    http.act(t.rid, "Ann", action="stake", amount=100)
    http.act(t.rid, "Bob", action="stake", amount=200)
    http.act(t.rid, "dealer", action="dealer_double", called=False)
    http.act(t.rid, "dealer", action="serve_out_of_order", hand="h2")  # Bob's 2H
    http.act(t.rid, "Ann", action="throw_up", hand="h1")  # VU-24: Ann was passed over
    http.act(t.rid, "dealer", action="false_division", hand="h2")  # VU-25
    for who in ("Ann", "Bob", "dealer", "auditor", "Eve"):
        view = t.view(who)
        assert view["phase"] == "ended", who
        hands = {h["id"]: (h["status"], h["settled"], h["outcome"]) for h in view["hands"]}
        assert hands == {
            "h1": ("settled", True, "thrown up"),
            "h2": ("settled", True, "false division"),
        }, who
    assert results(t.view("auditor")) == {"h1": 0, "h2": -400}
