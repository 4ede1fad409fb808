"""The audit of a Vingt-un round in which the dealer divides his pair (VU-21): each punter's
hand weighed against each of the dealer's hands, part by part (``by_dealer_hand``, derived
from the cards and the rules: the ``HandSettled`` records one net), in the JSON and on the
page; parts that do not sum to the recorded net are a fault; a round without a division
has no parts."""

from __future__ import annotations

import dataclasses

from test_audit_page import audit, dealer_divides, page, section, vingt_un_round
from test_rounds_http import open_table

import api.audit_page
from ledger.domain.round import Round
from replay.audit import FULL_SCOPE, audit_of, read_round


def parts(report: dict, hand: str) -> list[tuple]:
    [settled] = [h["settlement"] for h in report["hands"] if h["id"] == hand]
    return [
        (
            p["dealer_hand"],
            p["player_total"],
            p["dealer_total"],
            p["outcome"],
            p["multiplier"],
            p["amount"],
            [c["id"] for c in p["clauses"]],
        )
        for p in settled["by_dealer_hand"]["parts"]
    ]


def test_each_hand_is_shown_against_each_of_the_dealers_divided_hands(http):
    t = dealer_divides(http)
    assert t.changes() == {"Dee": 600, "Ann": -500, "Bob": -100}
    report = audit(t)

    # Ann's 18 loses double to a drawn Vingt-un (VU-16) and wins once on the over-draw (VU-15).
    assert parts(report, "h1") == [
        ("dealer", 18, 21, "lost", "-2", -1000, ["VU-16"]),
        ("dealer2", 18, 23, "won", "1", 500, ["VU-15"]),
    ]
    assert parts(report, "h2") == [
        ("dealer", 17, 21, "lost", "-2", -200, ["VU-16"]),
        ("dealer2", 17, 23, "won", "1", 100, ["VU-15"]),
    ]
    ann = report["hands"][0]
    by_dealer = ann["settlement"]["by_dealer_hand"]
    assert (by_dealer["sum"], by_dealer["recorded"], by_dealer["ok"]) == (-500, -500, True)
    assert by_dealer["derived"] is True and by_dealer["basis"].startswith("derived:")
    assert by_dealer["fault"] is None
    # The fields that were there before are as they were.
    assert (ann["net"], ann["settlement"]["amount"], ann["settlement"]["multiplier"]) == (
        -500,
        -500,
        "-1",
    )
    assert report["divided_settlements"] == {"ok": True, "hands": 2, "fault": None}

    mine = audit(t, "Ann")  # her own hand, with its parts; the verdict over hers only
    assert [h["id"] for h in mine["hands"]] == ["h1"]
    assert parts(mine, "h1") == parts(report, "h1")
    assert mine["divided_settlements"] == {"ok": True, "hands": 1, "fault": None}


def test_the_page_lists_each_part_and_their_sum(http):
    t = dealer_divides(http)
    html = page(t)
    ann = section(html, "hand-h1")
    table = ann[ann.index('id="parts-h1"') : ann.index("</table>", ann.index('id="parts-h1"'))]
    rows = [r for r in table.split("<tr")[1:] if "data-dealer-hand" in r]
    assert [r.split('data-dealer-hand="')[1].split('"')[0] for r in rows] == ["dealer", "dealer2"]
    assert "−10.00" in rows[0] and "Lost" in rows[0] and ">21<" in rows[0] and "VU-16" in rows[0]
    assert "+5.00" in rows[1] and "Won" in rows[1] and ">23<" in rows[1] and "VU-15" in rows[1]
    assert 'Sum of the parts</th><th class="num">−5.00' in table
    assert "derived from" in ann and "Parts add up" in ann
    assert "Parts against each dealer hand: PASS" in section(html, "verdicts")


def test_a_tie_with_one_of_his_hands_is_a_part_the_dealer_wins(http):
    """Ann's 18 ties his 8 T (18; VU-14, the dealer wins ties) and wins on his 8 7 K (25)."""
    t = dealer_divides(http, tie=True)
    report = audit(t)
    assert parts(report, "h1") == [
        ("dealer", 18, 18, "lost", "-1", -300, ["VU-14"]),
        ("dealer2", 18, 25, "won", "1", 300, ["VU-15"]),
    ]
    [tie, _] = report["hands"][0]["settlement"]["by_dealer_hand"]["parts"]
    assert tie["tie"] is True
    assert "the dealer wins ties" in section(page(t), "hand-h1")


def test_the_parts_follow_the_order_he_played_his_hands_in(http):
    """Divided twice (VU-20, VU-21): his third hand, split off his first, is played before
    his second. Ann's 19 (stake 100) ties 8 2 9, loses double to 8 3 K, wins on 8 T."""
    t = open_table(http, "vingt-un")
    t.start(["TC", "TD", "8C", "9C", "7D", "8H", "8S", "TH", "2C", "3C", "9H", "KS"])
    http.act(t.rid, "Ann", action="stake", amount=100)
    http.act(t.rid, "Bob", action="stake", amount=200)
    http.act(t.rid, "dealer", action="dealer_double", called=False)
    http.act(t.rid, "Ann", action="stand", hand="h1")
    http.act(t.rid, "Bob", action="stand", hand="h2")
    for action in ("dealer_split", "dealer_split", "dealer_draw", "dealer_stand") + (
        "dealer_draw",
        "dealer_stand",
        "dealer_stand",
    ):
        http.act(t.rid, "dealer", action=action)
    report = audit(t)
    assert parts(report, "h1") == [
        ("dealer", 19, 19, "lost", "-1", -100, ["VU-14"]),
        ("dealer3", 19, 21, "lost", "-2", -200, ["VU-16"]),
        ("dealer2", 19, 18, "won", "1", 100, ["VU-14"]),
    ]
    assert [p[5] for p in parts(report, "h2")] == [-200, -400, -200]
    assert report["divided_settlements"] == {"ok": True, "hands": 2, "fault": None}


def test_parts_that_do_not_sum_to_the_recorded_net_are_a_fault(http, monkeypatch):
    """Ann's settlement rewritten from -500 to -400: the parts still sum to -500, and the
    audit says so rather than showing the recorded net alone."""
    t = dealer_divides(http)
    app = http.ledger
    rnd, events = read_round(app, t.rid)
    forged = [
        dataclasses.replace(e, amount=-400)
        if isinstance(e, Round.HandSettled) and e.hand == "h1"
        else e
        for e in events
    ]
    report = audit_of(app, rnd, forged)
    by_dealer = report["hands"][0]["settlement"]["by_dealer_hand"]
    assert (by_dealer["sum"], by_dealer["recorded"], by_dealer["ok"]) == (-500, -400, False)
    assert by_dealer["fault"] == (
        "the parts sum to -500 (multiplier -1), the settlement records -400 (multiplier -1)"
    )
    assert report["divided_settlements"]["ok"] is False
    assert report["divided_settlements"]["fault"].startswith("hand h1: the parts sum to -500")

    monkeypatch.setattr(api.audit_page, "audit_for", lambda *_: {**report, "scope": FULL_SCOPE})
    html = page(t)
    assert "Parts against each dealer hand: FAIL" in section(html, "verdicts")
    assert "Parts do not add up: FAULT" in section(html, "hand-h1")


def test_a_total_recorded_otherwise_than_its_cards_make_it_is_a_fault(http):
    t = dealer_divides(http)
    app = http.ledger
    rnd, events = read_round(app, t.rid)
    forged = [
        dataclasses.replace(e, dealer_totals={"dealer": 21, "dealer2": 22})
        if isinstance(e, Round.HandSettled) and e.hand == "h2"
        else e
        for e in events
    ]
    by_dealer = audit_of(app, rnd, forged)["hands"][1]["settlement"]["by_dealer_hand"]
    assert by_dealer["ok"] is False
    assert by_dealer["fault"] == (
        "the settlement records the dealer's hands as dealer 21, dealer2 22, "
        "their cards make dealer 21, dealer2 23"
    )


def test_a_round_without_a_division_shows_no_parts(http):
    t = vingt_un_round(http)
    report = audit(t)
    assert [h["settlement"]["by_dealer_hand"] for h in report["hands"]] == [None, None]
    assert report["divided_settlements"] == {"ok": None, "hands": 0, "fault": None}
    html = page(t)
    assert "parts-h1" not in html and "divided-verdict" not in html
