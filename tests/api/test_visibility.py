"""No hidden card leaks: every role's view of a round, in every family, at every stage.

Each scenario uses distinct cards, so "this card must not be seen" is checked on the whole
JSON of the view and of the event feed, not only on the fields we thought of."""

from __future__ import annotations

import json
from dataclasses import dataclass
from uuid import UUID

import pytest

from api.visibility import HIDDEN, event_record, event_views, round_view
from ledger.application import TwentyOneLedger

SPARE = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"]


@dataclass(frozen=True)
class Viewer:
    role: str
    player_id: str | None = None


@pytest.fixture
def ledger(memory_env):
    app = TwentyOneLedger(env=memory_env)
    yield app
    app.close()


@dataclass
class Scene:
    ledger: TwentyOneLedger
    family: str
    rid: str
    dealer: str | None
    ann: str
    bob: str
    eve: str  # registered, not at the table

    def viewers(self) -> dict[str, Viewer]:
        return {
            "admin": Viewer("admin"),
            "auditor": Viewer("auditor"),
            "ann": Viewer("player", self.ann),
            "bob": Viewer("player", self.bob),
            "eve": Viewer("player", self.eve),
            # In the casino a dealer key names no player: the house dealer's key.
            "dealer": Viewer("dealer", self.dealer),
        }

    def view(self, who: str) -> dict:
        return round_view(self.ledger.get_round(self.rid), self.viewers()[who])

    def events(self, who: str) -> list[dict]:
        rnd = self.ledger.get_round(self.rid)
        stored = [event_record(e) for e in self.ledger.events.get(UUID(self.rid))]
        return event_views(rnd, stored, self.viewers()[who])


# The deal of each family, in shoe order (h1 = Ann, h2 = Bob), then Ann's one draw (3D).
# casino: Ann TC 7C, Bob 9D 8S, dealer 6H up + KD in the hole; dealer then draws 5D.
# private: Ann TC 7C, Bob 9D 8S, dealer 8H 9C, every one face down.
DEALS = {
    "casino": ["TC", "9D", "6H", "7C", "8S", "KD", "3D", "5D"],
    "vingt-un": ["TC", "9D", "8H", "7C", "8S", "9C", "3D"],
    "hoyle-1913": ["TC", "9D", "8H", "7C", "8S", "9C", "3D"],
    "ochko": ["TC", "9D", "8H", "7C", "8S", "9C", "3D"],
}
FAMILIES = list(DEALS)
ANN, BOB = {"TC", "7C"}, {"9D", "8S"}


def dealer_cards(family: str) -> set[str]:
    return {"6H", "KD"} if family == "casino" else {"8H", "9C"}


def play_to(ledger, family: str, stage: str) -> Scene:
    """Stage "deal": every first two cards dealt; "draw": Ann drew 3D; "end": round over."""
    pids = {n: ledger.register_player(n)["player_id"] for n in ("Dee", "Ann", "Bob", "Eve")}
    for pid in pids.values():
        ledger.deposit(pid, 100_000)
    options = {"insurance": False} if family == "casino" else {}
    table = ledger.open_table(family, options)["table_id"]
    dealer = None if family == "casino" else pids["Dee"]
    for seat, pid in enumerate([p for p in (dealer, pids["Ann"], pids["Bob"]) if p], start=1):
        ledger.seat_player(table, pid, seat)
    if dealer:
        ledger.choose_dealer(table, dealer)
    ledger.fix_next_shoe(table, DEALS[family] + SPARE)
    rid = ledger.start_round(table, actor=dealer or "admin")["round_id"]
    scene = Scene(ledger, family, rid, dealer, pids["Ann"], pids["Bob"], pids["Eve"])
    for pid in (scene.ann, scene.bob):
        ledger.place_stake(rid, pid, 200)
    if family == "vingt-un":
        ledger.act(rid, "dealer_double", actor=dealer, called=False)
    assert ledger.get_round(rid).phase == "play"
    if stage == "deal":
        return scene
    ledger.act(rid, "hit", actor=scene.ann, hand="h1")
    if stage == "draw":
        return scene
    ledger.act(rid, "stand", actor=scene.ann, hand="h1")
    ledger.act(rid, "stand", actor=scene.bob, hand="h2")
    if family != "casino":
        ledger.act(rid, "dealer_stand", actor=dealer)
    assert ledger.get_round(rid).ended
    return scene


def hidden_from(family: str, who: str, stage: str) -> set[str]:
    """The cards ``who`` must not see at ``stage``."""
    if who in ("admin", "auditor"):
        return set()
    casino = family == "casino"
    ann = set() if casino else set(ANN)
    bob = set() if casino else set(BOB)
    if stage != "deal" and family == "ochko":
        ann.add("3D")  # Очко's draws are dealt face down
    # The dealer's cards are turned up when his turn comes (CB-8, VU-13, H13-8, OC-6).
    dealer = set() if stage == "end" else ({"KD"} if casino else set(dealer_cards(family)))
    holdings = {"ann": ann, "bob": bob, "dealer": dealer}
    # The house dealer's key holds no hand: the house plays by rule (CB-8), and the hole
    # card is hidden from its key too until it is turned (CB-2).
    mine = None if casino and who == "dealer" else who
    return set().union(*(cards for owner, cards in holdings.items() if owner != mine))


def quoted(cards: set[str]) -> list[str]:
    return [json.dumps(c) for c in cards]


def assert_unseen(data: object, cards: set[str]) -> None:
    text = json.dumps(data)
    leaked = [c for c in quoted(cards) if c in text]
    assert not leaked, f"leaked {leaked}"


@pytest.mark.parametrize("stage", ["deal", "draw", "end"])
@pytest.mark.parametrize("family", FAMILIES)
def test_no_role_sees_a_hidden_card(ledger, family, stage):
    scene = play_to(ledger, family, stage)
    for who in scene.viewers():
        hidden = hidden_from(family, who, stage)
        assert_unseen(scene.view(who), hidden)
        assert_unseen(scene.events(who), hidden)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("who", ["admin", "auditor"])
def test_admins_and_auditors_see_every_card(ledger, family, who):
    scene = play_to(ledger, family, "draw")
    rnd = ledger.get_round(scene.rid)
    view = scene.view(who)
    assert [h["cards"] for h in view["hands"]] == [rnd.hands[h]["cards"] for h in rnd.order]
    assert view["dealer_hand"]["cards"] == rnd.dealer_hand["cards"]
    assert HIDDEN not in json.dumps(view)
    dealt = [e["data"]["card"] for e in scene.events(who) if e["type"] == "CardDealt"]
    assert HIDDEN not in dealt and "hash" in scene.events(who)[0]["data"]


@pytest.mark.parametrize("family", FAMILIES)
def test_a_player_sees_his_own_cards_and_the_count_of_the_others(ledger, family):
    scene = play_to(ledger, family, "draw")
    view = scene.view("ann")
    ann, bob = view["hands"]
    assert ann["cards"] == ["TC", "7C", "3D"] and ann["total"] == 20
    if family == "casino":
        assert bob["cards"] == ["9D", "8S"] and bob["total"] == 17
        assert view["dealer_hand"]["cards"] == ["6H", HIDDEN]
    else:
        assert bob["cards"] == [HIDDEN, HIDDEN] and bob["total"] is None
        assert view["dealer_hand"]["cards"] == [HIDDEN, HIDDEN]
    assert view["dealer_hand"]["total"] is None
    other = scene.view("bob")["hands"][0]
    assert other["cards"] == (
        ["TC", "7C", "3D"]
        if family == "casino"
        else [HIDDEN, HIDDEN, HIDDEN if family == "ochko" else "3D"]
    )


@pytest.mark.parametrize("family", FAMILIES)
def test_the_dealer_sees_his_own_hand_not_the_players(ledger, family):
    scene = play_to(ledger, family, "deal")
    view = scene.view("dealer")
    if family == "casino":  # the house dealer's key, like any other, sees no hole card
        assert view["dealer_hand"]["cards"] == ["6H", HIDDEN]
        assert view["dealer_hand"]["total"] is None
    else:
        assert view["dealer_hand"]["cards"] == DEALS[family][2:3] + DEALS[family][5:6]
        assert [h["cards"] for h in view["hands"]] == [[HIDDEN, HIDDEN]] * 2


def test_the_house_dealer_key_sees_the_hole_card_only_once_it_is_turned(ledger):
    scene = play_to(ledger, "casino", "draw")
    hole = [e for e in scene.events("dealer") if e["type"] == "CardDealt"][5]
    assert hole["data"]["hand"] == "dealer" and hole["data"]["card"] == HIDDEN
    assert scene.view("dealer")["dealer_hand"]["total"] is None

    scene = play_to(ledger, "casino", "end")
    view = scene.view("dealer")["dealer_hand"]
    assert view["cards"][:2] == ["6H", "KD"] and view["total"] == 21


@pytest.mark.parametrize("family", FAMILIES)
def test_shown_cards_are_seen_by_all_and_named_in_the_event(ledger, family):
    scene = play_to(ledger, family, "end")
    dealer = scene.view("eve")["dealer_hand"]
    assert set(dealer["cards"]) >= dealer_cards(family) and HIDDEN not in dealer["cards"]
    shown = [e for e in scene.events("eve") if e["type"] == "CardsShown"]
    assert shown and set(shown[0]["data"]["cards"]) == dealer_cards(family)


@pytest.mark.parametrize("family", ["vingt-un", "ochko"])
def test_totals_and_chain_hashes_of_hidden_hands_are_withheld(ledger, family):
    scene = play_to(ledger, family, "end")
    events = scene.events("eve")
    assert all("hash" not in e["data"] and "prev_hash" not in e["data"] for e in events)
    stood = [e for e in events if e["type"] == "HandStood" and e["data"]["hand"] != "dealer"]
    assert stood and all(e["data"]["total"] is None for e in stood)
    settled = [e for e in events if e["type"] == "HandSettled"]
    assert settled and all(e["data"]["player_total"] is None for e in settled)
    mine = [e for e in scene.events("ann") if e["type"] == "HandSettled"]
    assert [e["data"]["player_total"] for e in mine if e["data"]["hand"] == "h1"] == [20]


def test_an_ochko_ace_choice_on_a_hidden_card_is_not_shown(ledger):
    pids = {n: ledger.register_player(n)["player_id"] for n in ("Dee", "Ann", "Bob")}
    for pid in pids.values():
        ledger.deposit(pid, 100_000)
    table = ledger.open_table("ochko", {})["table_id"]
    for seat, name in enumerate(("Dee", "Ann", "Bob"), start=1):
        ledger.seat_player(table, pids[name], seat)
    ledger.choose_dealer(table, pids["Dee"])
    ledger.fix_next_shoe(table, ["AC", "9D", "8H", "5C", "8S", "9C", *SPARE])
    rid = ledger.start_round(table, actor=pids["Dee"])["round_id"]
    for name in ("Ann", "Bob"):
        ledger.place_stake(rid, pids[name], 200)
    ledger.act(rid, "ace_value", actor=pids["Ann"], hand="h1", index=0, value=1)
    rnd = ledger.get_round(rid)
    assert round_view(rnd, Viewer("player", pids["Ann"]))["hands"][0]["aces"] == {"0": 1}
    bob_view = round_view(rnd, Viewer("player", pids["Bob"]))
    assert bob_view["hands"][0]["aces"] == {}
    assert_unseen(bob_view, {"AC", "5C"})


def _ochko(ledger, cards: list[str], options: dict | None = None) -> tuple[str, dict[str, str]]:
    """Dee banks; Ann h1, Bob h2 stake 200 each; ``cards`` in shoe order."""
    pids = {n: ledger.register_player(n)["player_id"] for n in ("Dee", "Ann", "Bob")}
    for pid in pids.values():
        ledger.deposit(pid, 100_000)
    table = ledger.open_table("ochko", options or {})["table_id"]
    for seat, name in enumerate(("Dee", "Ann", "Bob"), start=1):
        ledger.seat_player(table, pids[name], seat)
    ledger.choose_dealer(table, pids["Dee"])
    ledger.fix_next_shoe(table, [*cards, *SPARE])
    rid = ledger.start_round(table, actor=pids["Dee"])["round_id"]
    for name in ("Ann", "Bob"):
        ledger.place_stake(rid, pids[name], 200)
    return rid, pids


def _seen(ledger, rid: str, viewer: Viewer) -> tuple[dict, list[dict]]:
    rnd = ledger.get_round(rid)
    stored = [event_record(e) for e in ledger.events.get(UUID(rid))]
    return round_view(rnd, viewer), event_views(rnd, stored, viewer)


def test_an_ochko_ace_choice_is_masked_in_the_feeds_of_those_who_cannot_see_the_card(ledger):
    rid, pids = _ochko(ledger, ["AC", "9D", "8H", "5C", "8S", "9C"])
    ledger.act(rid, "ace_value", actor=pids["Ann"], hand="h1", index=0, value=1)
    for who in ("Bob", "Dee"):
        _, events = _seen(ledger, rid, Viewer("dealer" if who == "Dee" else "player", pids[who]))
        (chosen,) = [e for e in events if e["type"] == "AceValueChosen"]
        assert chosen["data"]["hand"] == "h1"
        assert chosen["data"]["index"] is None and chosen["data"]["value"] is None
    _, events = _seen(ledger, rid, Viewer("player", pids["Ann"]))
    (chosen,) = [e for e in events if e["type"] == "AceValueChosen"]
    assert (chosen["data"]["index"], chosen["data"]["value"]) == (0, 1)


def test_an_ochko_bust_awaiting_the_banker_is_not_told_to_the_banker(ledger):
    # OC-11 false: Bob's bust waits for the banker. Ann TC 7C stands on 17; Bob 9D 8S draws
    # KD face down (27); the banker Dee holds 8H 9C and has yet to decide whether to draw.
    rid, pids = _ochko(
        ledger, ["TC", "9D", "8H", "7C", "8S", "9C", "KD"], {"punter_bust_pays": False}
    )
    ledger.act(rid, "stand", actor=pids["Ann"], hand="h1")
    ledger.act(rid, "hit", actor=pids["Bob"], hand="h2")
    assert ledger.get_round(rid).phase == "dealer"
    view, events = _seen(ledger, rid, Viewer("dealer", pids["Dee"]))
    ann, bob = view["hands"]
    # A bust and a stand read alike to the banker: the hand takes no more cards.
    assert bob["status"] == ann["status"] == "closed" and bob["total"] is None
    types = [e["type"] for e in events]
    assert "HandOverdrawn" not in types and "HandStood" not in types
    closed = [e for e in events if e["type"] == "HandClosed"]
    assert [e["data"] for e in closed] == [{"hand": "h1"}, {"hand": "h2"}]
    view, events = _seen(ledger, rid, Viewer("player", pids["Ann"]))
    assert [h["status"] for h in view["hands"]] == ["stood", "closed"]
    assert "HandOverdrawn" not in [e["type"] for e in events]
    view, events = _seen(ledger, rid, Viewer("player", pids["Bob"]))
    assert view["hands"][1]["status"] == "bust" and view["hands"][1]["total"] == 27
    assert [e["data"]["total"] for e in events if e["type"] == "HandOverdrawn"] == [27]
    _, events = _seen(ledger, rid, Viewer("auditor"))
    assert "HandClosed" not in [e["type"] for e in events]

    # Settled, the bust is public (the payment tells it); the total stays withheld.
    ledger.act(rid, "dealer_stand", actor=pids["Dee"])
    view, events = _seen(ledger, rid, Viewer("dealer", pids["Dee"]))
    assert view["hands"][1]["status"] == "bust" and view["hands"][1]["total"] is None
    (over,) = [e for e in events if e["type"] == "HandOverdrawn"]
    assert over["data"]["total"] is None


def test_the_ledgers_stand_at_21_on_a_hidden_hand_reads_as_any_stand(ledger):
    # Ann TC 7C draws 4D face down: 21, and the ledger stands for her (OC-6).
    rid, pids = _ochko(ledger, ["TC", "9D", "8H", "7C", "8S", "9C", "4D"])
    ledger.act(rid, "hit", actor=pids["Ann"], hand="h1")
    full = [e for e in ledger.events.get(UUID(rid)) if type(e).__name__ == "HandStood"]
    assert [(e.hand, e.actor, e.total) for e in full] == [("h1", "ledger", 21)]
    view, events = _seen(ledger, rid, Viewer("dealer", pids["Dee"]))
    assert view["hands"][0]["status"] == "closed"
    assert [e["data"] for e in events if e["type"] == "HandClosed"] == [{"hand": "h1"}]
    assert "ledger" not in json.dumps([e["data"] for e in events if e["data"].get("hand") == "h1"])
    ledger.act(rid, "stand", actor=pids["Bob"], hand="h2")
    ledger.act(rid, "dealer_stand", actor=pids["Dee"])
    _, events = _seen(ledger, rid, Viewer("player", pids["Bob"]))
    (stood,) = [e for e in events if e["type"] == "HandStood" and e["data"]["hand"] == "h1"]
    assert stood["data"]["actor"] is None and stood["data"]["total"] is None


def test_the_banker_does_not_count_a_bust_that_waits_for_him_in_the_tables_results(
    app, client, make_key, admin_key
):
    from ledger_client import Http
    from test_rounds_http import open_table

    http = Http(app, client, make_key, admin_key)
    t = open_table(http, "ochko", {"punter_bust_pays": False})
    t.start(["TC", "9D", "8H", "7C", "8S", "9C", "KD"])  # Bob 9D 8S draws KD: 27
    http.act(t.rid, "Ann", action="stake", amount=200)
    http.act(t.rid, "Bob", action="stake", amount=200)
    http.act(t.rid, "Ann", action="stand", hand="h1")
    http.act(t.rid, "Bob", action="hit", hand="h2")
    results = f"/v1/tables/{t.table_id}/results"
    assert http.get(results, key=http.keys["dealer"])["busts"] == 0
    assert http.get(results, key=http.keys["auditor"])["busts"] == 1
    http.act(t.rid, "dealer", action="dealer_stand")  # settled: the bust is public
    assert http.get(results, key=http.keys["dealer"])["busts"] == 1


# -- holder_ends_turn: nothing tells that a hand reached 21 before its holder stands -----------


def _private(ledger, family: str, cards: list[str], options: dict) -> tuple[str, dict[str, str]]:
    """Dee deals; Ann h1, Bob h2 stake 200 each (no dealer's double); ``cards`` in shoe order."""
    pids = {n: ledger.register_player(n)["player_id"] for n in ("Dee", "Ann", "Bob")}
    for pid in pids.values():
        ledger.deposit(pid, 100_000)
    table = ledger.open_table(family, options)["table_id"]
    for seat, name in enumerate(("Dee", "Ann", "Bob"), start=1):
        ledger.seat_player(table, pids[name], seat)
    ledger.choose_dealer(table, pids["Dee"])
    ledger.fix_next_shoe(table, [*cards, *SPARE])
    rid = ledger.start_round(table, actor=pids["Dee"])["round_id"]
    for name in ("Ann", "Bob"):
        ledger.place_stake(rid, pids[name], 200)
    if family == "vingt-un":
        ledger.act(rid, "dealer_double", actor=pids["Dee"], called=False)
    return rid, pids


def _what_others_learn(ledger, rid: str, pids: dict[str, str]) -> dict[str, tuple]:
    """Everything Bob and the dealer see of the round but the face of the cards (a drawn card
    lies face up in Vingt-un and Hoyle: it tells nothing while the first two stay hidden) and
    the ids of players and shoes (two tables are compared)."""
    learnt = {}
    for who, role in (("Bob", "player"), ("Dee", "dealer")):
        view, events = _seen(ledger, rid, Viewer(role, pids[who]))
        hands = [
            (h["id"], h["status"], h["total"], h["draws"], len(h["cards"])) for h in view["hands"]
        ]
        said = [
            (
                e["type"],
                {
                    k: v
                    for k, v in e["data"].items()
                    if k not in ("card", "shoe", "actor", "player")
                },
            )
            for e in events
            if e["data"].get("hand") == "h1"
        ]
        learnt[who] = (view["phase"], view["current_turn"], hands, said)
    return learnt


@pytest.mark.parametrize(
    ("family", "options", "ending"),
    [
        ("vingt-un", {}, "4D"),  # TC 7C 4D: a drawn Vingt-un
        ("hoyle-1913", {}, "4D"),
        ("ochko", {}, "4D"),
        ("ochko", {"punter_bust_pays": False}, "KD"),  # TC 7C KD: 27, waiting for the banker
    ],
    ids=["vingt-un-21", "hoyle-21", "ochko-21", "ochko-hidden-bust"],
)
def test_with_holder_ends_turn_a_draw_to_21_or_a_hidden_bust_reads_as_any_draw(
    ledger, family, options, ending
):
    options = {**options, "holder_ends_turn": True}
    deal = ["TC", "9D", "8H", "7C", "8S", "9C"]  # Ann TC 7C, Bob 9D 8S, Dee 8H 9C
    ended, pids = _private(ledger, family, [*deal, ending], options)
    going_on, others = _private(ledger, family, [*deal, "3D"], options)  # 20: she may go on
    ledger.act(ended, "hit", actor=pids["Ann"], hand="h1")
    ledger.act(going_on, "hit", actor=others["Ann"], hand="h1")

    learnt = _what_others_learn(ledger, ended, pids)
    assert learnt == _what_others_learn(ledger, going_on, others)
    phase, turn, hands, _ = learnt["Dee"]
    assert (phase, turn, hands[0][1]) == ("play", "h1", "open")

    # Her stand closes either hand alike; only she (and an admin) knew the difference.
    ledger.act(ended, "stand", actor=pids["Ann"], hand="h1")
    ledger.act(going_on, "stand", actor=others["Ann"], hand="h1")
    learnt = _what_others_learn(ledger, ended, pids)
    assert learnt == _what_others_learn(ledger, going_on, others)
    assert learnt["Dee"][3][-1] == ("HandClosed", {"hand": "h1"})


def test_over_http_the_holder_is_told_to_stand_and_the_dealer_sees_an_open_turn(
    app, client, make_key, admin_key
):
    from ledger_client import Http
    from test_rounds_http import open_table

    http = Http(app, client, make_key, admin_key)
    t = open_table(http, "ochko", {"holder_ends_turn": True})
    t.start(["TC", "9D", "8H", "7C", "8S", "9C", "4D"])  # Ann TC 7C draws 4D: 21
    http.act(t.rid, "Ann", action="stake", amount=200)
    http.act(t.rid, "Bob", action="stake", amount=200)
    http.act(t.rid, "Ann", action="hit", hand="h1")

    seen = t.view("dealer")
    assert seen["current_turn"] == "h1" and seen["hands"][0]["status"] == "open"
    assert seen["hands"][0]["total"] is None
    refused = http.act(t.rid, "Ann", action="hit", hand="h1", status=409)
    assert refused["type"].endswith("/must-stand") and refused["clause"] == "OC-6"
    assert t.view("Ann")["hands"][0]["total"] == 21
    http.act(t.rid, "Ann", action="stand", hand="h1")
    assert t.view("dealer")["current_turn"] == "h2"
