"""What a player's audit of his round leaves out (api.resources.audit_view): nothing of a hand
he cannot fully see, and no dealer's total he may not know, in any part of the document —
the events, his own hands' settlements, the dealer's hands, the shoe's card check; and who
acted on such a hand (every event keeps its ``actor`` key, null there)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from ledger_client import Http
from test_rounds_http import casino_double_down

from api.resources.audit_view import player_audit
from api.visibility import CLOSED_EVENT, HIDDEN, owns
from ledger.domain.hands import DEALER
from ledger.simulate import Settings, run
from replay.audit import audit_of, read_round
from replay.audit_events import BY_THE_RULES, LEDGER

# Casino cards all lie face up once the dealer's hole card is turned, which every ended round
# does (CB-8): only the private families end with cards face down to some player.
PRIVATE = ("vingt-un", "hoyle-1913", "ochko")


def viewer(pid: str) -> SimpleNamespace:
    return SimpleNamespace(role="player", player_id=pid)


def hidden_from(rnd, who) -> set[str]:
    hands = [*rnd.order, *rnd.dealer_hand_ids()]
    return {h for h in hands if not owns(who, rnd, h) and not all(rnd.rules_hand(h)["face_up"])}


def test_a_dealer_total_the_events_withhold_is_withheld_from_his_hands_too(
    app, client, make_key, admin_key
):
    http = Http(app, client, make_key, admin_key)
    t = casino_double_down(http)
    rnd, events = read_round(http.ledger, t.rid)
    report = audit_of(http.ledger, rnd, events)
    assert report["hands"][0]["settlement"]["dealer_total"] == 24
    # As if the dealer's hole card had never been turned up: his total is no one's business.
    rnd.dealer_hand["face_up"][1] = False

    seen = player_audit(rnd, report, viewer(t.ids["Ann"]), set())

    settled = [e for e in seen["events"] if e["type"] == "HandSettled"]
    assert settled and all(e["data"]["dealer_total"] is None for e in settled)
    (hand,) = seen["hands"]
    assert hand["settlement"]["dealer_total"] is None
    assert hand["settlement"]["dealer_played"] is True  # the page: "not shown to you"
    assert report["hands"][0]["settlement"]["dealer_total"] == 24  # the full report untouched


@pytest.mark.parametrize("family", PRIVATE)
def test_a_players_audit_shows_nothing_of_a_hand_he_cannot_see(family, ledger_app):
    run(Settings(family=family, rounds=6, players=3, stake=100), ledger_app)
    log = ledger_app.recorder.select_notifications(start=1, limit=10**6)
    for n in log:
        if n.topic.endswith("Table.Opened"):
            ledger_app.close_table(str(n.originator_id))  # the shoes revealed: cards checked
    rounds = [str(n.originator_id) for n in log if n.topic.endswith("Round.Started")]
    checked = shoe_cards = 0
    for rid in rounds:
        rnd, events = read_round(ledger_app, rid)
        if not rnd.ended:
            continue
        report = audit_of(ledger_app, rnd, events)
        for pid in {h["player"] for h in rnd.hands.values()} | {rnd.dealer}:
            who = viewer(pid)
            hidden = hidden_from(rnd, who)
            checked += len(hidden)
            seen = player_audit(rnd, report, who, set())
            assert not {h["id"] for h in seen["hands"]} & hidden
            if DEALER in hidden:
                assert all(h["settlement"]["dealer_total"] is None for h in seen["hands"])
            secret_cards = set()
            for e in seen["events"]:
                data = e["data"]
                if data.get("hand") not in hidden:
                    continue
                assert data.get("total") is None and data.get("player_total") is None, e
                if e["type"] == "CardDealt" and not data["face_up"]:
                    assert data["card"] == HIDDEN and e.get("card") == HIDDEN, e
                    secret_cards.add(e["version"])
                if e["type"] == "AceValueChosen":
                    assert data["value"] is None, e
            for hand in seen["dealer_hands"]:
                if hand["id"] in hidden:
                    assert HIDDEN in hand["cards"] and not hand["totals"] and not hand["aces"]
            for shoe in seen["shoes"]:
                for card in shoe["check"]["cards"]:
                    shoe_cards += 1
                    if card["version"] in secret_cards:
                        assert card["card"] == card["expected"] == HIDDEN
    assert checked and shoe_cards  # hands were left face down to someone; shoes checked


@pytest.mark.parametrize("family", PRIVATE)
def test_a_players_own_audit_keeps_an_actor_on_every_event(family, ledger_app):
    run(Settings(family=family, rounds=4, players=3, stake=100), ledger_app)
    log = ledger_app.recorder.select_notifications(start=1, limit=10**6)
    hidden_actor = 0
    for rid in [str(n.originator_id) for n in log if n.topic.endswith("Round.Started")]:
        rnd, events = read_round(ledger_app, rid)
        if not rnd.ended:
            continue
        report = audit_of(ledger_app, rnd, events)
        for player in {h["player"] for h in rnd.hands.values()}:
            seen = player_audit(rnd, report, viewer(player), set())
            shoes = [e for shoe in seen["shoes"] for e in shoe["events"]]
            for entry in [*seen["events"], *seen["round_transfers"], *shoes]:
                assert "actor" in entry, entry
                if entry["actor"] is None:  # only who acted on a hand his view hides
                    hidden_actor += 1
                    assert entry["type"] in (CLOSED_EVENT, "HandStood"), entry
                elif entry["type"] in BY_THE_RULES:
                    assert entry["actor"] == LEDGER
    assert hidden_actor  # hands were left face down to someone


@pytest.fixture
def ledger_app(memory_env):
    from ledger.application import TwentyOneLedger

    application = TwentyOneLedger(env=memory_env)
    yield application
    application.close()


def test_a_players_audit_weighs_no_other_players_wallet_chain(app, client, make_key, admin_key):
    """Another player's wallet grows with his play after the round: its length in Ann's audit
    would tell her of it. Her chain check covers the round, the table, the shoes and her own
    wallet; the full audit covers every wallet."""
    http = Http(app, client, make_key, admin_key)
    t = casino_double_down(http)
    path = f"/v1/rounds/{t.rid}/audit"
    first = http.get(path, key=http.keys["Ann"])["chain"]
    for _ in range(3):
        http.post(f"/v1/players/{t.ids['Bob']}/deposits", {"amount": 10})

    chain = http.get(path, key=http.keys["Ann"])["chain"]

    assert chain == first
    wallets = [c["stream"] for c in chain["streams"] if c["kind"] == "wallet"]
    assert wallets == [t.ids["Ann"]] and chain["ok"] is True
    assert chain["events_checked"] == sum(c["events"] for c in chain["streams"])
    full = http.get(path)["chain"]
    assert {c["stream"] for c in full["streams"] if c["kind"] == "wallet"} == set(t.ids.values())
