"""``allowed_actions`` at the edges random rounds seldom reach: a shoe that runs out under a
decision (the dry run stops before making a new one: no secret sealed or deleted, no
randomness drawn), an Очко ace valued out of turn, and a list asked for an earlier version."""

from __future__ import annotations

import random


def seat(app, fund, family, options, names):
    table = app.open_table(family, options)["table_id"]
    ids = [fund(name) for name in names]
    for number, pid in enumerate(ids, start=1):
        app.seat_player(table, pid, number)
    return table, ids


def moves(app, rid, **kwargs):
    return [(a["action"], a.get("hand")) for a in app.allowed_actions(rid, **kwargs)]


def test_a_decision_that_needs_a_new_shoe_is_listed_and_nothing_is_made(app, fund, nothing_written):
    table, (ann, bob) = seat(app, fund, "casino", {"decks": 1, "burn": 0, "insurance": False}, "AB")
    # Exactly the deal (Ann 8C 8D, Bob TC 6D, the dealer 9H 7S): any draw needs a new shoe.
    app.fix_next_shoe(table, ["8C", "TC", "9H", "8D", "6D", "7S"])
    rid = app.start_round(table)["round_id"]
    app.place_stake(rid, ann, 200)
    app.place_stake(rid, bob, 200)
    app.shoes.rng = random.Random(42)
    randomness = app.shoes.rng.getstate()
    secrets, orders = dict(app.vault._cache), dict(app.shoes._orders)

    with nothing_written():  # the ledger's store and the vault's, row for row
        listed = moves(app, rid)

    assert listed == [("hit", "h1"), ("stand", "h1"), ("double_down", "h1"), ("split", "h1")]
    assert app.shoes.rng.getstate() == randomness
    assert app.vault._cache == secrets and app.shoes._orders == orders
    # Sent for real, the draw is completed from a shoe of the used cards (VU-29).
    first_shoe = app.get_round(rid).shoe_id
    hit = app.act(rid, "hit", actor=ann, hand="h1")
    rnd = app.get_round(rid)
    assert rnd.shoe_id != first_shoe and hit["card"] == rnd.hands["h1"]["cards"][-1]


def test_an_ochko_ace_valued_out_of_turn_is_listed_where_the_table_allows_it(app, fund):
    table, (dee, ann, bob) = seat(app, fund, "ochko", {"ace_value_binds": True}, "DAB")
    app.choose_dealer(table, dee)
    # Ann 9D 5H, Bob AS 6H, Dee 7C: h1's turn, and Bob may value his ace already (OC-7).
    app.fix_next_shoe(table, ["9D", "AS", "7C"] + ["5H", "6H", "2C", "3C", "4C", "8C"] * 4)
    rid = app.start_round(table)["round_id"]
    app.place_stake(rid, ann, 200)
    app.place_stake(rid, bob, 200)
    assert app.get_round(rid).current_turn() == "h1"
    assert moves(app, rid, actor=bob) == [("ace_value", "h2"), ("ace_value", "h2")]
    app.act(rid, "ace_value", actor=bob, hand="h2", index=0, value=11)


def test_the_list_answers_the_version_it_is_given(app, fund):
    table, (ann,) = seat(app, fund, "casino", {"insurance": False}, "A")
    app.fix_next_shoe(table, ["9C", "9H", "8D", "7S"] + ["2S"] * 20)
    rid = app.start_round(table)["round_id"]
    staking = app.get_round(rid)
    app.place_stake(rid, ann, 200)
    assert moves(app, rid, as_of=staking) == [("stake", None)]
    assert moves(app, rid)[:2] == [("hit", "h1"), ("stand", "h1")]
