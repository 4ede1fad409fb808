"""The audit's rederivation verdict (``rederived``; auditor review, item 1): a settlement
rewritten to contradict its own cards, its wallet transfers made to match and every hash
recomputed, passes the hash chains, the shoe check and the money check; the audit, JSON and
page, now says it does not follow from the cards. A player's audit says so too, with no line
of another's hand and no card hidden from him."""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
import time
from fractions import Fraction
from types import SimpleNamespace

import pytest
from forgery import forge_stream

from api import create_app
from api.visibility import owns
from ledger.application import TwentyOneLedger
from ledger.domain.round import Round
from ledger.simulate import Settings, run
from replay.audit import audit_round
from replay.audit_rederived import shown_to_player

# Ann 8 8 splits, doubles h1 (8 3 T: 21), h3 8 2 5 stands on 15; Bob T 9 stands on 19; the
# dealer T 7. Bob's h2 wins 500 (CB-8).
FIXED_ROUND = ["8H", "TS", "TD", "8C", "9S", "7D", "3H", "TC", "2D", "5S", "4S"]


def casino_round(app: TwentyOneLedger, finish: bool = True) -> tuple[str, str, str]:
    """The fixed round (``finish`` False: stakes placed, Ann still to play): its id, Ann's
    and Bob's."""
    ann, bob = (app.register_player(name)["player_id"] for name in ("Ann", "Bob"))
    for pid in (ann, bob):
        app.deposit(pid, 100_000)
    table = app.open_table("casino", {"insurance": False})["table_id"]
    app.seat_player(table, ann, 1)
    app.seat_player(table, bob, 2)
    app.fix_next_shoe(table, FIXED_ROUND + ["2C"] * 20)
    rid = app.start_round(table)["round_id"]
    app.place_stake(rid, ann, 500)
    app.place_stake(rid, bob, 500)
    if finish:
        app.act(rid, "split", actor=ann, hand="h1")
        app.act(rid, "double_down", actor=ann, hand="h1")
        app.act(rid, "hit", actor=ann, hand="h3")
        app.act(rid, "stand", actor=ann, hand="h3")
        app.act(rid, "stand", actor=bob, hand="h2")
        assert app.get_round(rid).ended
    return rid, ann, bob


@pytest.fixture
def stored(sqlite_file):
    """A SQLite store holding the fixed casino round: its env, the round's id, Ann's, Bob's."""
    env = sqlite_file[0]
    app = TwentyOneLedger(env=env)
    try:
        return (env, *casino_round(app))
    finally:
        app.close()


def forge_a_blackjack(env: dict, rid: str, bob: str) -> None:
    """The auditor's forgery: Bob's T 9 (19, won 500 under CB-8) rewritten as a 3:2
    blackjack of 750 under CB-4, his wallet's two transfers for it made to match, both
    streams re-hashed, the stale snapshots dropped."""

    def blackjack(events):
        return [
            dataclasses.replace(
                e, outcome="blackjack", multiplier="3/2", amount=750, clauses=["CB-4"]
            )
            if isinstance(e, Round.HandSettled) and e.hand == "h2"
            else e
            for e in events
        ]

    def paid_as_blackjack(events):
        out = []
        for e in events:
            if getattr(e, "round_id", None) == rid and e.clause == "CB-8":
                amount = 750 if e.memo.endswith(": won") else e.amount
                memo = e.memo.replace(" won", " blackjack")
                e = dataclasses.replace(e, amount=amount, clause="CB-4", memo=memo)
            out.append(e)
        return out

    forge_stream(env, rid, blackjack)
    forge_stream(env, bob, paid_as_blackjack)
    with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
        db.execute("DELETE FROM stored_snapshots")


def audited(env: dict, rid: str) -> dict:
    app = TwentyOneLedger(env=env)
    try:
        return audit_round(app, rid)
    finally:
        app.close()


def served(env: dict, rid: str, role: str = "auditor", player: str | None = None):
    """The JSON audit and the page of ``rid`` for a key of ``role`` (``player``: his)."""
    app = create_app({"TESTING": True, "STORE_ENV": env})
    try:
        secret, _ = app.extensions["api_store"].create_key(role, player, "")
        client = app.test_client()
        headers = {"Authorization": f"Bearer {secret}"}
        report = client.get(f"/v1/rounds/{rid}/audit", headers=headers)
        assert report.status_code == 200, report.get_data(as_text=True)[:2000]
        page = client.get(f"/audit/rounds/{rid}", headers=headers)
        assert page.status_code == 200, page.get_data(as_text=True)[:2000]
        return report.get_json(), page.get_data(as_text=True)
    finally:
        for name in ("ledger", "api_store", "projections"):
            if name in app.extensions:
                app.extensions[name].close()


def glance(html: str) -> str:
    start = html.index('id="rederived-verdict"')
    return re.sub(r"\s+", " ", html[start : html.index("</div>", start)])


def test_an_honest_round_follows_from_its_cards(stored):
    env, rid, _, _ = stored

    report, html = served(env, rid)

    verdict = report["rederived"]
    assert verdict["ok"] is True, verdict
    assert verdict["differences"] == [] and verdict["by_hand"] == {}
    assert verdict["fact"].startswith("Replayed through today's rules engine")
    assert "Settlements follow from the cards: PASS" in glance(html)
    assert audited(env, rid)["rederived"] == verdict  # replay audit: the same document


def test_a_forged_blackjack_passes_every_other_check_and_fails_here(stored):
    env, rid, _, bob = stored
    forge_a_blackjack(env, rid, bob)

    report, html = served(env, rid)

    # What the auditor found: every other verdict of the audit passes.
    assert report["chain"]["ok"] is True
    assert report["money_reconciles"]["ok"] is True
    assert report["committed_before_deal"]["ok"] is True
    h2 = next(h for h in report["hands"] if h["id"] == "h2")
    assert h2["settlement"]["outcome"] == "blackjack" and h2["cards"] == ["TS", "9S"]
    verdict = report["rederived"]
    assert verdict["ok"] is False
    assert list(verdict["by_hand"]) == ["h2"]
    [line] = verdict["differences"]
    assert line.startswith("h2: outcome recorded 'blackjack', rederived 'won'")
    [settled] = verdict["settlements"]
    assert settled["recorded"]["amount"] == 750 and settled["rederived"]["amount"] == 500
    assert "1 difference (hand h2)" in verdict["fact"]
    assert audited(env, rid)["rederived"] == verdict
    words = glance(html)
    assert "Settlements follow from the cards: FAIL" in words
    assert "Hand 2 (Player at seat 2 (" in words
    assert "was recorded as blackjack, +7.50 (CB-4); its cards give won, +5.00 (CB-8)" in words
    assert "Money: PASS" in html and "Hash chain: PASS" in html


def test_replay_audit_exits_1_on_a_forged_blackjack_alone(stored, capsys):
    from replay.__main__ import main

    env, rid, _, bob = stored
    assert main(["audit", rid], env=env) == 0
    capsys.readouterr()
    forge_a_blackjack(env, rid, bob)

    assert main(["audit", rid], env=env) == 1
    shown = json.loads(capsys.readouterr().out)
    assert shown["rederived"]["ok"] is False and shown["money_reconciles"]["ok"] is True


def test_a_round_in_play_has_nothing_to_rederive_yet(sqlite_file):
    env = sqlite_file[0]
    app = TwentyOneLedger(env=env)
    try:
        rid, _, _ = casino_round(app, finish=False)
    finally:
        app.close()

    report, html = served(env, rid)

    assert report["ended"] is False
    verdict = report["rederived"]
    assert verdict["ok"] is None
    assert verdict["fact"] == "The round is still in play: no settlement to rederive yet."
    words = glance(html)
    assert "Settlements follow from the cards: not weighed" in words
    assert "still in play" in words


def test_a_player_whose_hand_was_forged_is_told_and_shown_his_own_line(stored):
    env, rid, _, bob = stored
    forge_a_blackjack(env, rid, bob)

    report, html = served(env, rid, "player", bob)

    assert report["scope"] == "player"
    verdict = report["rederived"]
    assert verdict["ok"] is False
    assert list(verdict["by_hand"]) == ["h2"]
    assert verdict["differences"][0].startswith("h2: outcome recorded 'blackjack'")
    assert verdict["fact"].endswith("does not come out as recorded, for your hand h2.")
    assert "was recorded as blackjack, +7.50 (CB-4)" in glance(html)


def test_another_player_is_told_it_failed_and_nothing_of_the_forged_hand(stored):
    env, rid, ann, bob = stored
    forge_a_blackjack(env, rid, bob)

    report, html = served(env, rid, "player", ann)

    verdict = report["rederived"]
    assert verdict["ok"] is False
    assert verdict["differences"] == [] and verdict["by_hand"] == {}
    assert verdict["settlements"] == [] and verdict["event_differences"] == []
    assert verdict["fact"].endswith("though not for your hands: the details are shown to auditors.")
    words = glance(html)
    assert "Settlements follow from the cards: FAIL" in words and "Hand 2" not in words


def _a_hand_hidden_from_another(app: TwentyOneLedger):
    """An ended Vingt-un round with a settled hand (won or lost) whose cards, some face down,
    another player of the round never saw: the round, the hand, that player and the cards
    hidden from him."""
    run(Settings(family="vingt-un", rounds=8, players=3, stake=100, seed=7), app)
    for n in app.recorder.select_notifications(start=1, limit=10**6):
        if not n.topic.endswith("Round.Started"):
            continue
        rnd = app.get_round(str(n.originator_id))
        players = {h["player"] for h in rnd.hands.values()} | {rnd.dealer}
        for hand_id, hand in rnd.hands.items():
            if not rnd.ended or not hand.get("result") or all(hand["face_up"]):
                continue
            for pid in players - {hand["player"]}:
                if not owns(SimpleNamespace(role="player", player_id=pid), rnd, hand_id):
                    cards = [c for c, up in zip(hand["cards"], hand["face_up"]) if not up]
                    return str(rnd.id), hand_id, pid, cards
    raise AssertionError("no hand left face down to another player")


def test_a_players_verdict_on_a_forged_round_shows_no_card_hidden_from_him(sqlite_file):
    env = sqlite_file[0]
    app = TwentyOneLedger(env=env)
    try:
        rid, hand, other, hidden = _a_hand_hidden_from_another(app)
    finally:
        app.close()

    def turned(events):  # the hand's result turned over, its arithmetic still whole
        out = []
        for e in events:
            if isinstance(e, Round.HandSettled) and e.hand == hand:
                outcome = {"won": "lost", "lost": "won"}.get(e.outcome, e.outcome)
                multiplier = str(-Fraction(e.multiplier))
                e = dataclasses.replace(e, outcome=outcome, multiplier=multiplier, amount=-e.amount)
            out.append(e)
        return out

    forge_stream(env, rid, turned)
    full, _ = served(env, rid)
    assert full["rederived"]["ok"] is False and hand in full["rederived"]["by_hand"]

    report, html = served(env, rid, "player", other)

    verdict = report["rederived"]
    assert verdict["ok"] is False
    assert hand not in verdict["by_hand"] and verdict["diverged"] is None
    shown = json.dumps(verdict)
    assert hidden and not any(card in shown for card in hidden), (hidden, shown)
    assert not any(card in glance(html) for card in hidden)


def test_a_divergence_naming_a_card_is_never_shown_to_a_player():
    full = {
        "ok": False,
        "fact": "Replayed …, the round parts from the record: at v9 … card 9C",
        "differences": ["h1: outcome recorded 'won', rederived 'lost'", "h2: amount …"],
        "by_hand": {"h1": ["h1: outcome recorded 'won', rederived 'lost'"], "h2": ["h2: amount …"]},
        "settlements": [{"hand": "h1"}, {"hand": "h2"}],
        "event_differences": ["cards dealt (2: v6, v7): …"],
        "diverged": "at v9 Round.CardDealt: recorded hand h1, card 9C, rederived hand h1, card 4D",
    }

    seen = shown_to_player(full, lambda hand: hand == "h2")

    assert seen["ok"] is False
    assert seen["differences"] == ["h2: amount …"] and list(seen["by_hand"]) == ["h2"]
    assert seen["settlements"] == [{"hand": "h2"}]
    assert seen["diverged"] is None and seen["event_differences"] == []
    assert "9C" not in json.dumps(seen) and "4D" not in json.dumps(seen)
    assert seen["fact"].endswith("for your hand h2 and elsewhere in the round (shown to auditors).")
    assert shown_to_player({**full, "ok": None}, lambda hand: True)["diverged"] is None


def test_an_audit_still_takes_well_under_a_second(stored):
    env, rid, _, _ = stored
    app = TwentyOneLedger(env=env)
    try:
        audit_round(app, rid)  # the first read warms the store
        start = time.perf_counter()
        assert audit_round(app, rid)["rederived"]["ok"] is True
        took = time.perf_counter() - start
    finally:
        app.close()
    assert took < 1.0, took
