"""The table option ``holder_ends_turn`` (Vingt-un, Hoyle, Очко): a draw that brings a hand to
21 (VU-11, H13-7, OC-6), or over 21 where the bust waits for the banker (OC-11 false), does not
pass the turn in its own write; the hand takes nothing but its holder's stand, which passes
it. The settlement is the one the same cards get without the option.

Seats as in private_tables.py: the dealer (banker) in seat 1, punter 1 (h1) and punter 2 (h2)
after him; the shoe in dealing order (first cards, then second cards, then draws)."""

from __future__ import annotations

import private_tables
import pytest
from private_tables import (
    assert_books_balance,
    assert_refused,
    assert_settled,
    assert_wallets,
    dealt,
    round_events,
    start,
    wallets,
)

from ledger.errors import InvalidRules, MustStand, OutOfTurn, RuleViolation
from ledger.rules import rules_for, rules_from_record

ON = {"holder_ends_turn": True}


def open_table(app, fund, family, options=None):
    return private_tables.open_table(app, fund, family, options)


def closing(app, rid):
    """The events that end a player's turn, as (type, hand, actor or total)."""
    out = []
    for e in round_events(app, rid):
        name = type(e).__name__
        if name == "HandStood" and e.hand != "dealer":
            out.append((name, e.hand, e.actor, e.total))
        elif name == "HandOverdrawn" and e.hand != "dealer":
            out.append((name, e.hand, e.clause, e.total))
    return out


def stake_all(app, rid, family, dealer, *punters, amount=100):
    for pid in punters:
        app.place_stake(rid, pid, amount)
    if family == "vingt-un":
        app.act(rid, "dealer_double", actor=dealer, called=False)


# -- the option ------------------------------------------------------------------------------


@pytest.mark.parametrize("family", ["vingt-un", "hoyle-1913", "ochko"])
def test_the_option_is_recorded_in_the_opening_rules_and_is_off_by_default(app, family):
    assert rules_for(family).holder_ends_turn is False
    table = app.open_table(family, ON)["table_id"]
    assert app.get_table(table).rules_record["holder_ends_turn"] is True
    with pytest.raises(InvalidRules) as refusal:
        rules_for(family, {"holder_ends_turn": "yes"})
    assert refusal.value.details["option"] == "holder_ends_turn"
    # A table opened before the option replays as it was played: the turn passes at once.
    record = rules_for(family).to_dict()
    del record["holder_ends_turn"]
    assert rules_from_record(record).holder_ends_turn is False
    # Not in the casino: every card lies face up (CB-2), so a turn passing at 21 tells nothing.
    with pytest.raises(InvalidRules) as refusal:
        rules_for("casino", ON)
    assert refusal.value.details["option"] == "holder_ends_turn"


# -- a drawn 21 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("family", "clause", "won"),
    [("ochko", "OC-6", (100, ["OC-8"])), ("hoyle-1913", "H13-7", (100, ["H13-10"]))],
)
def test_a_drawn_21_keeps_the_turn_until_its_holder_stands(app, fund, family, clause, won):
    table, dealer, (p1, p2) = open_table(app, fund, family, ON)
    before = wallets(app, dealer, p1, p2)
    # h1 TC 7C draws 4D: 21; h2 9D 8S stands on 17; the dealer 8H 9C stands on 17.
    rid = start(app, table, dealer, dealt([("TC", "7C"), ("9D", "8S")], ("8H", "9C"), ["4D"]))
    stake_all(app, rid, family, dealer, p1, p2)

    app.act(rid, "hit", actor=p1, hand="h1")
    rnd = app.get_round(rid)
    assert (rnd.current_turn(), rnd.hands["h1"]["status"], rnd.total("h1")) == ("h1", "open", 21)
    assert closing(app, rid) == []
    refusal = assert_refused(
        app, rid, lambda: app.act(rid, "hit", actor=p1, hand="h1"), MustStand, clause
    )
    assert "21" in refusal.message and "stand" in refusal.message
    assert_refused(app, rid, lambda: app.act(rid, "stand", actor=p2, hand="h2"), OutOfTurn, clause)

    app.act(rid, "stand", actor=p1, hand="h1")
    assert app.get_round(rid).current_turn() == "h2"
    app.act(rid, "stand", actor=p2, hand="h2")
    app.act(rid, "dealer_stand", actor=dealer)

    assert closing(app, rid) == [("HandStood", "h1", p1, 21), ("HandStood", "h2", p2, 17)]
    # As without the option: 21 beats 17; 17 against 17 stands off (H13-10, OC-8).
    assert_settled(app, rid, {"h1": won, "h2": (0, won[1])})
    assert_wallets(app, before, {p1: 100, p2: 0, dealer: -100})
    assert_books_balance(app, rid)


def test_VU_11_a_drawn_vingt_un_waits_for_its_holder_and_is_paid_double(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund, "vingt-un", ON)
    before = wallets(app, dealer, p1, p2)
    rid = start(app, table, dealer, dealt([("TC", "7C"), ("9D", "8S")], ("8H", "9C"), ["4D"]))
    stake_all(app, rid, "vingt-un", dealer, p1, p2)

    app.act(rid, "hit", actor=p1, hand="h1")  # 4D face up (VU-11): 21
    assert app.get_round(rid).current_turn() == "h1"
    assert_refused(app, rid, lambda: app.act(rid, "hit", actor=p1, hand="h1"), MustStand, "VU-11")
    # Nobody is serving him: the dealer cannot force two cards on his 21 (VU-23).
    assert_refused(
        app,
        rid,
        lambda: app.act(rid, "serve_two", actor=dealer, hand="h1"),
        MustStand,
        "VU-11",
    )
    app.act(rid, "stand", actor=p1, hand="h1")
    app.act(rid, "stand", actor=p2, hand="h2")
    app.act(rid, "dealer_stand", actor=dealer)

    # VU-17: a drawn Vingt-un is paid double; VU-14: the dealer wins the tie at 17.
    assert_settled(app, rid, {"h1": (200, ["VU-17"]), "h2": (-100, ["VU-14"])})
    assert_wallets(app, before, {p1: 200, p2: -100, dealer: -100})
    assert_books_balance(app, rid)


def test_OC_7_an_ace_is_not_valued_afresh_once_it_made_21(app, fund):
    table, banker, (p1, p2) = open_table(app, fund, "ochko", ON)
    # h1 AC 5C draws 5D: 21 with the ace at 11; at 1 it would be 11 and draw again.
    rid = start(app, table, banker, dealt([("AC", "5C"), ("9D", "8S")], ("8H", "9C"), ["5D"]))
    stake_all(app, rid, "ochko", banker, p1, p2)
    app.act(rid, "hit", actor=p1, hand="h1")

    assert_refused(
        app,
        rid,
        lambda: app.act(rid, "ace_value", actor=p1, hand="h1", index=0, value=1),
        MustStand,
        "OC-6",
    )
    app.act(rid, "stand", actor=p1, hand="h1")
    assert closing(app, rid) == [("HandStood", "h1", p1, 21)]


def test_OC_6_the_third_draw_passes_the_turn_at_once_even_at_21(app, fund):
    # Everyone counts three cards drawn: passing then tells nothing of what they make.
    table, banker, (p1, p2) = open_table(app, fund, "ochko", ON)
    rid = start(
        app, table, banker, dealt([("2C", "3C"), ("9D", "8S")], ("8H", "9C"), ["4D", "5D", "7D"])
    )
    stake_all(app, rid, "ochko", banker, p1, p2)
    for _ in range(3):
        app.act(rid, "hit", actor=p1, hand="h1")

    assert app.get_round(rid).current_turn() == "h2"
    assert closing(app, rid) == [("HandStood", "h1", "ledger", 21)]


# -- a bust that waits for the banker (OC-11 false) ---------------------------------------------


@pytest.mark.parametrize(
    ("banker_draws", "h1"),
    [([], (-100, ["OC-9", "OC-11"])), (["6H"], (0, ["OC-10", "OC-11"]))],
    ids=["banker-stands", "banker-busts"],
)
def test_OC_11_a_hidden_bust_keeps_the_turn_and_is_recorded_when_its_holder_stands(
    app, fund, banker_draws, h1
):
    table, banker, (p1, p2) = open_table(app, fund, "ochko", {**ON, "punter_bust_pays": False})
    before = wallets(app, banker, p1, p2)
    # h1 TC 7C draws KD face down: 27; h2 9D 8S stands; the banker 8H 9C (17).
    shoe = dealt([("TC", "7C"), ("9D", "8S")], ("8H", "9C"), ["KD", *banker_draws])
    rid = start(app, table, banker, shoe)
    stake_all(app, rid, "ochko", banker, p1, p2)

    app.act(rid, "hit", actor=p1, hand="h1")
    rnd = app.get_round(rid)
    assert (rnd.current_turn(), rnd.hands["h1"]["status"]) == ("h1", "open")
    assert closing(app, rid) == []
    refusal = assert_refused(
        app, rid, lambda: app.act(rid, "hit", actor=p1, hand="h1"), MustStand, "OC-6"
    )
    assert "27" in refusal.message

    app.act(rid, "stand", actor=p1, hand="h1")
    rnd = app.get_round(rid)
    assert (rnd.current_turn(), rnd.hands["h1"]["status"]) == ("h2", "bust")
    assert not rnd.hands["h1"].get("settled")  # it still waits for the banker
    app.act(rid, "stand", actor=p2, hand="h2")
    for _ in banker_draws:
        app.act(rid, "dealer_draw", actor=banker)  # 17 + 6: over 21
    if not banker_draws:
        app.act(rid, "dealer_stand", actor=banker)

    assert closing(app, rid) == [("HandOverdrawn", "h1", "OC-9", 27), ("HandStood", "h2", p2, 17)]
    h2 = (0, ["OC-8"]) if not banker_draws else (200, ["OC-9"])
    assert_settled(app, rid, {"h1": h1, "h2": h2})
    assert_wallets(app, before, {p1: h1[0], p2: h2[0], banker: -h1[0] - h2[0]})
    assert_books_balance(app, rid)


def test_OC_7_an_ace_counted_1_by_a_draw_may_not_be_valued_11_over_21_with_the_option(app, fund):
    table, banker, (p1, p2) = open_table(app, fund, "ochko", {**ON, "punter_bust_pays": False})
    # h1 AC 5C draws 9D: 15 counting the ace 1; valued 11 it would be 25, which no choice makes.
    rid = start(app, table, banker, dealt([("AC", "5C"), ("9D", "8S")], ("8H", "9C"), ["9D"]))
    stake_all(app, rid, "ochko", banker, p1, p2)
    app.act(rid, "hit", actor=p1, hand="h1")
    refusal = assert_refused(
        app,
        rid,
        lambda: app.act(rid, "ace_value", actor=p1, hand="h1", index=0, value=11),
        RuleViolation,
        "OC-7",
    )
    assert "would make 25, over 21" in str(refusal)

    assert app.get_round(rid).current_turn() == "h1" and closing(app, rid) == []
    app.act(rid, "stand", actor=p1, hand="h1")
    assert closing(app, rid) == [("HandStood", "h1", p1, 15)]


def test_OC_11_a_bust_the_punter_pays_at_once_passes_the_turn_at_once(app, fund):
    # The default reading pays the bust at once (OC-9): the settlement is public anyway.
    table, banker, (p1, p2) = open_table(app, fund, "ochko", ON)
    rid = start(app, table, banker, dealt([("TC", "7C"), ("9D", "8S")], ("8H", "9C"), ["KD"]))
    stake_all(app, rid, "ochko", banker, p1, p2)
    app.act(rid, "hit", actor=p1, hand="h1")

    rnd = app.get_round(rid)
    assert rnd.current_turn() == "h2" and rnd.hands["h1"]["result"] == -100


# -- one command ---------------------------------------------------------------------------------


def test_play_round_stands_for_a_hand_whose_turn_is_over(app, fund):
    table, banker, (p1, p2) = open_table(app, fund, "ochko", ON)
    shoe = dealt([("TC", "7C"), ("9D", "8S")], ("8H", "9C"), ["4D"])
    asked = []

    def decide(rnd, hand):
        if hand is None:
            return {"action": "dealer_stand"}
        asked.append((hand, rnd.total(hand)))
        return {"action": "hit" if hand == "h1" else "stand"}

    app.fix_next_shoe(table, shoe)
    done = app.play_round(table, {p1: 100, p2: 100}, decide)

    assert asked == [("h1", 17), ("h2", 17)]  # never asked about h1 at 21
    assert closing(app, done["round_id"]) == [
        ("HandStood", "h1", p1, 21),  # as the holder's own stand records it
        ("HandStood", "h2", p2, 17),
    ]
    assert_settled(app, done["round_id"], {"h1": (100, ["OC-8"]), "h2": (0, ["OC-8"])})
