"""Двадцать одно, "Очко": one scenario (at least) per clause OC-1..OC-12.

Every scenario deals a fixed shoe through the application and checks each payout to the
minor unit: the hand's ``result``, the ``HandSettled`` event's clauses, every wallet (the
banker's too) before and after the round, and that all the books still sum to zero.

The banker deals two cards to everyone, himself included: one to each punter then himself,
twice (stakes first, by default); draws follow in the order of the deal. Seats: the banker
sits in seat 1, punter 1 in seat 2 (hand h1, on the banker's left), punter 2 in seat 3 (h2)…
"""

from __future__ import annotations

from collections import Counter
from uuid import UUID

import private_tables
import pytest
from private_tables import (
    assert_books_balance,
    assert_refused,
    assert_settled,
    assert_wallets,
    dealt,
    round_events,
    settlements,
    start,
    wallets,
)

from ledger.cards import unshuffled
from ledger.errors import (
    DrawLimitReached,
    InvalidCommand,
    NotPermitted,
    OutOfTurn,
    RuleViolation,
    StakeOutOfLimits,
    WrongPhase,
)

FAMILY = "ochko"
# -- helpers (shared with the other player-banked family in private_tables.py) --------------


def open_table(app, fund, options=None, punters=2):
    return private_tables.open_table(app, fund, FAMILY, options, punters)


# -- OC-1 two packs --------------------------------------------------------------------------


def test_OC_1_a_random_shoe_is_two_full_packs_of_104_cards(app, fund):
    table, banker, (p1, p2) = open_table(app, fund)
    app.start_round(table, actor=banker)  # no fixed shoe queued: a committed random shoe

    shoe = app.get_shoe(app.get_table(table).shoe_id)
    assert shoe.packs == 2
    assert shoe.size == 104
    order = app.shoes.order(shoe)
    assert len(order) == 104
    assert Counter(order) == Counter(unshuffled(2))  # every card of a pack exactly twice


# -- OC-2 the banker deals to everyone, himself included ------------------------------------


def test_OC_2_banker_deals_two_cards_to_everyone_himself_included(app, fund):
    table, banker, (p1, p2) = open_table(app, fund)
    before = wallets(app, banker, p1, p2)
    rid = start(app, table, banker, dealt(hands=[("TC", "7C"), ("9D", "9S")], banker=("TH", "8H")))

    rnd = app.get_round(rid)
    assert rnd.dealer == banker
    assert [rnd.hands[h]["player"] for h in rnd.order] == [p1, p2]  # the banker holds no hand
    assert rnd.phase == "betting"  # stakes before the deal, by default (OC-3)
    app.place_stake(rid, p1, 100)
    app.place_stake(rid, p2, 200)

    deal = [
        (e.hand, e.card, e.clause)
        for e in round_events(app, rid)
        if type(e).__name__ == "CardDealt"
    ]
    assert deal == [
        ("h1", "TC", "OC-2"),
        ("h2", "9D", "OC-2"),
        ("dealer", "TH", "OC-2"),
        ("h1", "7C", "OC-2"),
        ("h2", "9S", "OC-2"),
        ("dealer", "8H", "OC-2"),
    ]
    assert app.get_round(rid).dealer_hand["cards"] == ["TH", "8H"]

    app.act(rid, "stand", actor=p1, hand="h1")  # 17
    app.act(rid, "stand", actor=p2, hand="h2")  # 18
    app.act(rid, "dealer_stand", actor=banker)  # 18

    assert_settled(app, rid, {"h1": (-100, ["OC-8"]), "h2": (0, ["OC-8"])})
    assert_wallets(app, before, {p1: -100, p2: 0, banker: 100})
    assert_books_balance(app, rid)


# -- OC-3 stakes -------------------------------------------------------------------------------


def test_OC_3_each_punter_stakes_any_sum_within_the_limits(app, fund):
    table, banker, (p1, p2) = open_table(app, fund, {"min_stake": 1, "max_stake": 5_000})
    before = wallets(app, banker, p1, p2)
    rid = start(app, table, banker, dealt(hands=[("TC", "9C"), ("TD", "6D")], banker=("TH", "7H")))

    assert_refused(app, rid, lambda: app.place_stake(rid, p1, 5_001), StakeOutOfLimits, "OC-3")
    assert_refused(app, rid, lambda: app.place_stake(rid, banker, 100), NotPermitted, "OC-3")
    app.place_stake(rid, p1, 137)
    app.place_stake(rid, p2, 4_999)
    app.act(rid, "stand", actor=p1, hand="h1")  # 19
    app.act(rid, "stand", actor=p2, hand="h2")  # 16
    app.act(rid, "dealer_stand", actor=banker)  # 17

    assert_settled(app, rid, {"h1": (137, ["OC-8"]), "h2": (-4_999, ["OC-8"])})
    assert_wallets(app, before, {p1: 137, p2: -4_999, banker: 4_862})
    assert_books_balance(app, rid)


def test_OC_3_bank_cap_limits_the_total_staked_against_the_bank(app, fund):
    table, banker, (p1, p2) = open_table(app, fund, {"bank_cap": 500})
    before = wallets(app, banker, p1, p2)
    rid = start(app, table, banker, dealt(hands=[("TC", "9C"), ("TD", "8D")], banker=("TH", "8H")))

    app.place_stake(rid, p1, 300)
    assert_refused(app, rid, lambda: app.place_stake(rid, p2, 300), StakeOutOfLimits, "OC-3")
    app.place_stake(rid, p2, 200)  # 500 in all: exactly the cap
    app.act(rid, "stand", actor=p1, hand="h1")  # 19
    app.act(rid, "stand", actor=p2, hand="h2")  # 18
    app.act(rid, "dealer_stand", actor=banker)  # 18

    assert_settled(app, rid, {"h1": (300, ["OC-8"]), "h2": (0, ["OC-8"])})
    assert_wallets(app, before, {p1: 300, p2: 0, banker: -300})
    assert_books_balance(app, rid)


def test_OC_3_bank_cap_keeps_room_for_the_least_stake_of_each_punter_still_to_stake(app, fund):
    # Every punter must stake before the deal: a cap filled early would hold the round in
    # betting for good, with nothing able to end it.
    table, banker, (p1, p2) = open_table(app, fund, {"bank_cap": 300, "min_stake": 100})
    rid = start(app, table, banker, dealt(hands=[("TC", "9C"), ("TD", "8D")], banker=("TH", "8H")))

    refusal = assert_refused(
        app, rid, lambda: app.place_stake(rid, p1, 250), StakeOutOfLimits, "OC-3"
    )
    assert "would leave 50, less than the least stake (100) of each of the 1 punters" in str(
        refusal
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 100)
    assert app.get_round(rid).phase == "play"


def test_OC_3_a_round_the_bank_cap_cannot_take_every_least_stake_of_does_not_start(app, fund):
    table, banker, (p1, p2) = open_table(app, fund, {"bank_cap": 100, "min_stake": 100})
    stored = len(app.recorder.select_notifications(start=1, limit=10**6))
    with pytest.raises(RuleViolation) as refused:
        app.start_round(table, actor=banker)
    assert refused.value.clause == "OC-3"
    assert "least stake (100) of 2 punters" in str(refused.value)
    assert len(app.recorder.select_notifications(start=1, limit=10**6)) == stored
    assert app.get_table(table).current_round is None

    app.unseat_player(table, 3)  # punter 2's seat
    # A fixed shoe: a random one could deal a natural and end the round at the stake.
    rid = start(app, table, banker, dealt(hands=[("TC", "9C")], banker=("TH", "8H")))
    app.place_stake(rid, p1, 100)
    assert app.get_round(rid).phase == "play"


def test_OC_3_bank_cap_caps_the_stakes_and_the_bank_can_lose_twice_the_cap(app, fund):
    # The ledger's reading (README): the cap bounds what is staked, not what the bank risks;
    # a 21 on the deal (OC-5) and a banker's over-draw (OC-9) are each paid double.
    table, banker, (p1, p2) = open_table(app, fund, {"bank_cap": 1_000})
    before = wallets(app, banker, p1, p2)
    rid = start(
        app,
        table,
        banker,
        dealt(hands=[("AC", "KC"), ("TD", "7D")], banker=("TH", "6H"), draws=["9H"]),
    )
    app.place_stake(rid, p1, 500)
    app.place_stake(rid, p2, 500)  # 1_000 in all: exactly the cap
    app.act(rid, "stand", actor=p2, hand="h2")  # 17
    app.act(rid, "dealer_draw", actor=banker)  # 9H: 25

    assert_settled(app, rid, {"h1": (1_000, ["OC-5"]), "h2": (1_000, ["OC-9"])})
    assert_wallets(app, before, {p1: 1_000, p2: 1_000, banker: -2_000})
    assert_books_balance(app, rid)


def test_OC_3_stake_after_first_card_option(app, fund):
    table, banker, (p1, p2) = open_table(app, fund, {"stake_after_first_card": True})
    before = wallets(app, banker, p1, p2)
    rid = start(app, table, banker, dealt(hands=[("TC", "QC"), ("5D", "9D")], banker=("9H", "9S")))

    rnd = app.get_round(rid)
    assert rnd.phase == "staking"
    assert [rnd.hands[h]["cards"] for h in rnd.order] == [["TC"], ["5D"]]
    assert rnd.dealer_hand["cards"] == ["9H"]
    assert wallets(app, banker, p1, p2) == before  # nothing staked yet

    app.place_stake(rid, p1, 400)
    app.place_stake(rid, p2, 100)
    assert app.get_round(rid).dealer_hand["cards"] == ["9H", "9S"]
    app.act(rid, "stand", actor=p1, hand="h1")  # 20
    app.act(rid, "stand", actor=p2, hand="h2")  # 14
    app.act(rid, "dealer_stand", actor=banker)  # 18

    assert_settled(app, rid, {"h1": (400, ["OC-8"]), "h2": (-100, ["OC-8"])})
    assert_wallets(app, before, {p1: 400, p2: -100, banker: -300})
    assert_books_balance(app, rid)


# -- OC-4 banker's 21 on the deal ---------------------------------------------------------------


def test_OC_4_banker_21_takes_every_stake_even_from_a_punter_21(app, fund):
    table, banker, (p1, p2) = open_table(app, fund)
    before = wallets(app, banker, p1, p2)
    rid = start(app, table, banker, dealt(hands=[("TC", "9C"), ("AD", "KD")], banker=("AH", "QH")))
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)

    rnd = app.get_round(rid)
    assert rnd.ended  # he shows his cards and ends the round at once
    assert rnd.dealer_hand["natural"]
    assert rnd.dealer_hand["face_up"] == [True, True]
    assert_settled(app, rid, {"h1": (-200, ["OC-4"]), "h2": (-300, ["OC-4"])})
    assert_wallets(app, before, {p1: -200, p2: -300, banker: 500})
    assert_books_balance(app, rid)


def test_OC_4_banker_natural_does_not_beat_a_natural_when_the_option_is_off(app, fund):
    table, banker, (p1, p2) = open_table(app, fund, {"banker_natural_beats_natural": False})
    before = wallets(app, banker, p1, p2)
    rid = start(app, table, banker, dealt(hands=[("TC", "9C"), ("AD", "KD")], banker=("AH", "QH")))
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)

    assert app.get_round(rid).ended
    assert_settled(app, rid, {"h1": (-200, ["OC-4"]), "h2": (0, ["OC-4"])})
    assert_wallets(app, before, {p1: -200, p2: 0, banker: 200})
    assert_books_balance(app, rid)


# -- OC-5 punter's 21 on the deal --------------------------------------------------------------


def test_OC_5_punter_21_on_the_deal_is_paid_double_even_if_the_banker_draws_21(app, fund):
    table, banker, (p1, p2) = open_table(app, fund)
    before = wallets(app, banker, p1, p2)
    rid = start(
        app,
        table,
        banker,
        dealt(
            hands=[("AC", "KC"), ("TD", "8D")],
            banker=("5H", "6H"),
            draws=["TH"],
        ),
    )
    app.place_stake(rid, p1, 250)
    app.place_stake(rid, p2, 100)

    rnd = app.get_round(rid)
    assert rnd.hands["h1"]["settled"]  # paid at once
    assert rnd.hands["h1"]["result"] == 500
    app.act(rid, "stand", actor=p2, hand="h2")  # 18
    app.act(rid, "dealer_draw", actor=banker)  # TH: the banker makes 21 by drawing
    app.act(rid, "dealer_stand", actor=banker)
    assert app.get_round(rid).total("dealer") == 21

    assert_settled(app, rid, {"h1": (500, ["OC-5"]), "h2": (-100, ["OC-8"])})
    assert_wallets(app, before, {p1: 500, p2: -100, banker: -400})
    assert_books_balance(app, rid)


# -- OC-6 drawing: at most three cards, in the order of the deal ----------------------------


def _three_draws_each(app, fund):
    table, banker, (p1, p2) = open_table(app, fund)
    before = wallets(app, banker, p1, p2)
    rid = start(
        app,
        table,
        banker,
        dealt(
            hands=[("2C", "3C"), ("TC", "4C")],
            banker=("2H", "3H"),
            draws=["2D", "3D", "5D", "2S", "3S", "4S"],  # three for h1, then three for the banker
        ),
    )
    app.place_stake(rid, p1, 100)
    app.place_stake(rid, p2, 200)
    return table, banker, (p1, p2), before, rid


def test_OC_6_punters_draw_in_the_order_of_the_deal_at_most_three_cards(app, fund):
    table, banker, (p1, p2), before, rid = _three_draws_each(app, fund)

    assert_refused(app, rid, lambda: app.act(rid, "hit", actor=p2, hand="h2"), OutOfTurn, "OC-6")
    for _ in range(3):
        app.act(rid, "hit", actor=p1, hand="h1")  # 2D, 3D, 5D: 15
    rnd = app.get_round(rid)
    assert rnd.hands["h1"]["draws"] == 3
    assert rnd.hands["h1"]["status"] == "stood"  # three cards drawn: he stands by himself
    assert rnd.current_turn() == "h2"
    assert_refused(
        app, rid, lambda: app.act(rid, "hit", actor=p1, hand="h1"), RuleViolation, "OC-6"
    )

    app.act(rid, "stand", actor=p2, hand="h2")  # 14
    for _ in range(3):
        app.act(rid, "dealer_draw", actor=banker)  # 2S, 3S, 4S: 14
    app.act(rid, "dealer_stand", actor=banker)

    assert_settled(app, rid, {"h1": (100, ["OC-8"]), "h2": (0, ["OC-8"])})
    assert_wallets(app, before, {p1: 100, p2: 0, banker: -100})
    assert_books_balance(app, rid)


def test_OC_6_a_punters_fourth_draw_raises_draw_limit_reached(app, fund):
    table, banker, (p1, p2), before, rid = _three_draws_each(app, fund)
    for _ in range(3):
        app.act(rid, "hit", actor=p1, hand="h1")

    assert_refused(
        app, rid, lambda: app.act(rid, "hit", actor=p1, hand="h1"), DrawLimitReached, "OC-6"
    )


def test_OC_6_the_banker_too_draws_at_most_three_cards(app, fund):
    table, banker, (p1, p2), before, rid = _three_draws_each(app, fund)
    for _ in range(3):
        app.act(rid, "hit", actor=p1, hand="h1")  # 15
    app.act(rid, "stand", actor=p2, hand="h2")  # 14

    for _ in range(3):
        app.act(rid, "dealer_draw", actor=banker)  # 2S, 3S, 4S: 14
    assert app.get_round(rid).dealer_hand["draws"] == 3
    assert_refused(
        app, rid, lambda: app.act(rid, "dealer_draw", actor=banker), DrawLimitReached, "OC-6"
    )
    app.act(rid, "dealer_stand", actor=banker)

    assert app.get_round(rid).dealer_hand["cards"] == ["2H", "3H", "2S", "3S", "4S"]
    assert_settled(app, rid, {"h1": (100, ["OC-8"]), "h2": (0, ["OC-8"])})
    assert_wallets(app, before, {p1: 100, p2: 0, banker: -100})
    assert_books_balance(app, rid)


# -- OC-7 the ace: 1 or 11 at the holder's choice ------------------------------------------------


def test_OC_7_punter_values_his_ace_as_one_or_eleven(app, fund):
    table, banker, (p1, p2) = open_table(app, fund)
    before = wallets(app, banker, p1, p2)
    rid = start(
        app,
        table,
        banker,
        dealt(
            hands=[("AC", "6D"), ("AD", "8D")],
            banker=("TH", "8H"),
            draws=["4C"],
        ),
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)

    assert app.get_round(rid).total("h1") == 17
    app.act(rid, "ace_value", actor=p1, hand="h1", index=0, value=1)
    assert app.get_round(rid).total("h1") == 7
    app.act(rid, "hit", actor=p1, hand="h1")  # 4C: 11 with the ace as 1
    assert app.get_round(rid).total("h1") == 11
    app.act(rid, "ace_value", actor=p1, hand="h1", index=0, value=11)  # 21: stands by itself
    assert app.get_round(rid).hands["h1"]["status"] == "stood"

    assert app.get_round(rid).total("h2") == 19
    app.act(rid, "ace_value", actor=p2, hand="h2", index=0, value=1)  # 9, his choice
    app.act(rid, "stand", actor=p2, hand="h2")
    app.act(rid, "dealer_stand", actor=banker)  # 18

    chosen = [
        (e.hand, e.index, e.value, e.clause)
        for e in round_events(app, rid)
        if type(e).__name__ == "AceValueChosen"
    ]
    assert chosen == [("h1", 0, 1, "OC-7"), ("h1", 0, 11, "OC-7"), ("h2", 0, 1, "OC-7")]
    by_hand = {e.hand: e for e in settlements(app, rid)}
    assert (by_hand["h1"].player_total, by_hand["h2"].player_total) == (21, 9)
    assert_settled(app, rid, {"h1": (200, ["OC-8"]), "h2": (-300, ["OC-8"])})
    assert_wallets(app, before, {p1: 200, p2: -300, banker: 100})
    assert_books_balance(app, rid)


def test_OC_7_only_the_holder_values_an_ace_and_only_as_one_or_eleven(app, fund):
    table, banker, (p1, p2) = open_table(app, fund)
    before = wallets(app, banker, p1, p2)
    rid = start(app, table, banker, dealt(hands=[("AC", "6D"), ("TD", "8D")], banker=("AH", "7H")))
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)

    act = app.act
    assert_refused(
        app,
        rid,
        lambda: act(rid, "ace_value", actor=p1, hand="h1", index=0, value=5),
        InvalidCommand,
        "OC-7",
    )
    assert_refused(
        app,
        rid,
        lambda: act(rid, "ace_value", actor=p1, hand="h1", index=1, value=1),
        InvalidCommand,
        "OC-7",
    )
    assert_refused(
        app,
        rid,
        lambda: act(rid, "ace_value", actor=p2, hand="h1", index=0, value=1),
        NotPermitted,
        "OC-7",
    )
    assert_refused(
        app, rid, lambda: act(rid, "ace_value", actor=p1, index=0, value=1), NotPermitted, "OC-7"
    )
    assert_refused(
        app, rid, lambda: act(rid, "ace_value", actor=banker, index=0, value=1), WrongPhase, "OC-7"
    )

    app.act(rid, "stand", actor=p1, hand="h1")  # 17
    app.act(rid, "stand", actor=p2, hand="h2")  # 18
    app.act(rid, "ace_value", actor=banker, index=0, value=1)  # his own ace, on his turn: 8
    assert app.get_round(rid).total("dealer") == 8
    app.act(rid, "dealer_stand", actor=banker)

    assert_settled(app, rid, {"h1": (200, ["OC-8"]), "h2": (300, ["OC-8"])})
    assert_wallets(app, before, {p1: 200, p2: 300, banker: -500})
    assert_books_balance(app, rid)


def test_OC_7_a_banker_ace_declared_eleven_counts_one_when_his_draw_would_take_him_over_21(
    app, fund
):
    # The review's case: A 5 valued 16, then a 9. Held to 11 he would be at 25 and pay every
    # punter double (OC-9); counting the ace 1, as any holder would, he stands on 15.
    table, banker, (p1, p2) = open_table(app, fund)
    before = wallets(app, banker, p1, p2)
    rid = start(
        app,
        table,
        banker,
        dealt(hands=[("TC", "8C"), ("9C", "9D")], banker=("AD", "5H"), draws=["9S"]),
    )
    app.place_stake(rid, p1, 100)
    app.place_stake(rid, p2, 300)
    app.act(rid, "stand", actor=p1, hand="h1")
    app.act(rid, "stand", actor=p2, hand="h2")

    app.act(rid, "ace_value", actor=banker, index=0, value=11)
    assert app.get_round(rid).total("dealer") == 16
    app.act(rid, "dealer_draw", actor=banker)
    assert app.get_round(rid).total("dealer") == 15
    assert [e for e in round_events(app, rid) if type(e).__name__ == "HandOverdrawn"] == []
    app.act(rid, "dealer_stand", actor=banker)

    assert_settled(app, rid, {"h1": (100, ["OC-8"]), "h2": (300, ["OC-8"])})
    assert_wallets(app, before, {p1: 100, p2: 300, banker: -400})
    assert_books_balance(app, rid)


def test_OC_7_a_punter_ace_declared_eleven_counts_one_after_a_draw_and_cannot_be_eleven_again(
    app, fund
):
    table, banker, (p1, p2) = open_table(app, fund)
    before = wallets(app, banker, p1, p2)
    rid = start(
        app,
        table,
        banker,
        dealt(hands=[("AC", "5C"), ("TD", "8D")], banker=("TH", "7H"), draws=["9S"]),
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)

    app.act(rid, "ace_value", actor=p1, hand="h1", index=0, value=11)  # 16
    app.act(rid, "hit", actor=p1, hand="h1")  # 9S: 15, not 25
    rnd = app.get_round(rid)
    assert (rnd.total("h1"), rnd.hands["h1"]["status"], rnd.current_turn()) == (15, "open", "h1")
    # Counted 11 again, the ace would make 25 out of cards already held: no choice makes that.
    assert_refused(
        app,
        rid,
        lambda: app.act(rid, "ace_value", actor=p1, hand="h1", index=0, value=11),
        RuleViolation,
        "OC-7",
    )
    app.act(rid, "stand", actor=p1, hand="h1")
    app.act(rid, "stand", actor=p2, hand="h2")
    app.act(rid, "dealer_stand", actor=banker)  # 17

    assert_settled(app, rid, {"h1": (-200, ["OC-8"]), "h2": (300, ["OC-8"])})
    assert_wallets(app, before, {p1: -200, p2: 300, banker: -100})
    assert_books_balance(app, rid)


def test_OC_7_two_aces_cannot_both_count_eleven_and_a_punter_values_his_aces_in_his_turn(app, fund):
    table, banker, (p1, p2) = open_table(app, fund)
    rid = start(app, table, banker, dealt(hands=[("TC", "6C"), ("AC", "AD")], banker=("TH", "7H")))
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)

    # h1 plays first (OC-6): h2 values his aces when his turn comes, as he draws.
    assert_refused(
        app,
        rid,
        lambda: app.act(rid, "ace_value", actor=p2, hand="h2", index=0, value=11),
        OutOfTurn,
        "OC-6",
    )
    app.act(rid, "stand", actor=p1, hand="h1")
    app.act(rid, "ace_value", actor=p2, hand="h2", index=0, value=11)  # 12
    assert_refused(
        app,
        rid,
        lambda: app.act(rid, "ace_value", actor=p2, hand="h2", index=1, value=11),
        RuleViolation,
        "OC-7",
    )
    rnd = app.get_round(rid)
    assert (rnd.total("h2"), rnd.hands["h2"]["status"]) == (12, "open")


def test_OC_7_ace_value_binds_holds_a_declared_eleven_past_21_as_tables_did_before_it(app, fund):
    # The strict reading, and how every Очко table opened before the option played.
    table, banker, (p1, p2) = open_table(app, fund, {"ace_value_binds": True})
    before = wallets(app, banker, p1, p2)
    rid = start(
        app,
        table,
        banker,
        dealt(hands=[("TC", "8C"), ("AC", "AD")], banker=("AD", "5H"), draws=["9S"]),
    )
    app.place_stake(rid, p1, 100)
    app.place_stake(rid, p2, 300)
    # Out of turn, and over 21 by the valuation alone: both allowed under this reading.
    app.act(rid, "ace_value", actor=p2, hand="h2", index=0, value=11)
    app.act(rid, "ace_value", actor=p2, hand="h2", index=1, value=11)
    assert app.get_round(rid).hands["h2"]["result"] == -300  # 22: over-drawn (OC-9)
    app.act(rid, "stand", actor=p1, hand="h1")
    app.act(rid, "ace_value", actor=banker, index=0, value=11)  # 16
    app.act(rid, "dealer_draw", actor=banker)  # 9S: 25, over-drawn

    assert_settled(app, rid, {"h1": (200, ["OC-9"]), "h2": (-300, ["OC-9", "OC-11"])})
    assert_wallets(app, before, {p1: 200, p2: -300, banker: 100})
    assert_books_balance(app, rid)


def test_OC_7_a_round_recorded_before_ace_value_binds_existed_keeps_its_binding_count(app, fund):
    from ledger.rules import recorded_option, rules_from_record

    table, banker, (p1, p2) = open_table(app, fund)
    record = app.get_table(table).rules_record
    assert record["ace_value_binds"] is False  # recorded whole at opening
    old = {k: v for k, v in record.items() if k != "ace_value_binds"}
    assert rules_from_record(old).ace_value_binds is True
    assert recorded_option(old, "ace_value_binds") is True

    rid = start(app, table, banker, dealt(hands=[("AC", "5C"), ("TD", "8D")], banker=("TH", "7H")))
    app.place_stake(rid, p1, 100)
    app.place_stake(rid, p2, 100)
    rnd = app.get_round(rid)  # a copy: changed here to read the count, never saved
    rnd.hands["h1"]["cards"].append("9S")
    rnd.hands["h1"]["aces"] = {"0": 11}
    assert rnd.total("h1") == 15  # this table's reading
    rnd.rules_record = old
    assert rnd.total("h1") == 25  # the reading a round recorded before the option had


# -- OC-8 the comparison ---------------------------------------------------------------------


def test_OC_8_lower_pays_higher_is_paid_one_stake_equal_takes_the_stake_back(app, fund):
    table, banker, (p1, p2, p3) = open_table(app, fund, punters=3)
    before = wallets(app, banker, p1, p2, p3)
    rid = start(
        app,
        table,
        banker,
        dealt(
            hands=[("TC", "7C"), ("TD", "9D"), ("9S", "9C")],
            banker=("TH", "8H"),
        ),
    )
    app.place_stake(rid, p1, 100)
    app.place_stake(rid, p2, 250)
    app.place_stake(rid, p3, 400)
    app.act(rid, "stand", actor=p1, hand="h1")  # 17
    app.act(rid, "stand", actor=p2, hand="h2")  # 19
    app.act(rid, "stand", actor=p3, hand="h3")  # 18
    app.act(rid, "dealer_stand", actor=banker)  # 18

    assert_settled(app, rid, {"h1": (-100, ["OC-8"]), "h2": (250, ["OC-8"]), "h3": (0, ["OC-8"])})
    assert_wallets(app, before, {p1: -100, p2: 250, p3: 0, banker: -150})
    assert_books_balance(app, rid)


# -- OC-9 over 21 loses; a banker over 21 pays double ------------------------------------------


def test_OC_9_banker_overdraw_pays_double(app, fund):
    table, banker, (p1, p2) = open_table(app, fund)
    before = wallets(app, banker, p1, p2)
    rid = start(
        app,
        table,
        banker,
        dealt(
            hands=[("TC", "8C"), ("9D", "4D")],
            banker=("TH", "6H"),
            draws=["8H"],
        ),
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)
    app.act(rid, "stand", actor=p1, hand="h1")  # 18
    app.act(rid, "stand", actor=p2, hand="h2")  # 13
    app.act(rid, "dealer_draw", actor=banker)  # 8H: 24

    overdrawn = [
        (e.hand, e.total, e.clause)
        for e in round_events(app, rid)
        if type(e).__name__ == "HandOverdrawn"
    ]
    assert overdrawn == [("dealer", 24, "OC-9")]
    assert_settled(app, rid, {"h1": (400, ["OC-9"]), "h2": (600, ["OC-9"])})
    assert_wallets(app, before, {p1: 400, p2: 600, banker: -1_000})
    assert_books_balance(app, rid)


def test_OC_9_punter_overdraw_loses_and_busts_are_not_compared(app, fund):
    table, banker, (p1, p2, p3) = open_table(app, fund, punters=3)
    before = wallets(app, banker, p1, p2, p3)
    rid = start(
        app,
        table,
        banker,
        dealt(
            hands=[("TC", "6C"), ("TD", "3D"), ("TS", "8S")],
            banker=("TH", "7H"),
            draws=["9C", "KD"],  # h1 to 25, h2 to 23
        ),
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)
    app.place_stake(rid, p3, 100)
    app.act(rid, "hit", actor=p1, hand="h1")  # 25
    app.act(rid, "hit", actor=p2, hand="h2")  # 23
    rnd = app.get_round(rid)
    assert (rnd.hands["h1"]["result"], rnd.hands["h2"]["result"]) == (-200, -300)  # at once
    app.act(rid, "stand", actor=p3, hand="h3")  # 18
    app.act(rid, "dealer_stand", actor=banker)  # 17

    assert_settled(
        app,
        rid,
        {
            "h1": (-200, ["OC-9", "OC-11"]),
            "h2": (-300, ["OC-9", "OC-11"]),
            "h3": (100, ["OC-8"]),
        },
    )
    assert_wallets(app, before, {p1: -200, p2: -300, p3: 100, banker: 400})
    assert_books_balance(app, rid)


# -- OC-10 both over 21 -----------------------------------------------------------------------


def test_OC_10_banker_and_punter_both_over_21_nobody_pays(app, fund):
    table, banker, (p1, p2) = open_table(app, fund, {"punter_bust_pays": False})
    before = wallets(app, banker, p1, p2)
    rid = start(
        app,
        table,
        banker,
        dealt(
            hands=[("TC", "6C"), ("TD", "8D")],
            banker=("TH", "5H"),
            draws=["9C", "KH"],
        ),
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)
    app.act(rid, "hit", actor=p1, hand="h1")  # 9C: 25
    app.act(rid, "stand", actor=p2, hand="h2")  # 18
    app.act(rid, "dealer_draw", actor=banker)  # KH: 25

    assert_settled(app, rid, {"h1": (0, ["OC-10", "OC-11"]), "h2": (600, ["OC-9"])})
    assert_wallets(app, before, {p1: 0, p2: 600, banker: -600})
    assert_books_balance(app, rid)


# -- OC-11 "a punter does not pay for a bust": both readings -----------------------------------


def test_OC_11_default_reading_busted_punter_loses_his_stake_at_once(app, fund):
    table, banker, (p1, p2) = open_table(app, fund)  # punter_bust_pays defaults to True
    before = wallets(app, banker, p1, p2)
    rid = start(
        app,
        table,
        banker,
        dealt(
            hands=[("TC", "6C"), ("TD", "8D")],
            banker=("TH", "5H"),
            draws=["9C", "KH"],
        ),
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)
    app.act(rid, "hit", actor=p1, hand="h1")  # 9C: 25
    rnd = app.get_round(rid)
    assert rnd.hands["h1"]["settled"]
    assert rnd.hands["h1"]["result"] == -200  # his stake and nothing beyond it
    app.act(rid, "stand", actor=p2, hand="h2")  # 18
    app.act(rid, "dealer_draw", actor=banker)  # KH: 25, too late to save h1

    assert_settled(app, rid, {"h1": (-200, ["OC-9", "OC-11"]), "h2": (600, ["OC-9"])})
    assert_wallets(app, before, {p1: -200, p2: 600, banker: -400})
    assert_books_balance(app, rid)


def test_OC_11_other_reading_busted_punter_pays_only_if_the_banker_stands(app, fund):
    table, banker, (p1, p2) = open_table(app, fund, {"punter_bust_pays": False})
    before = wallets(app, banker, p1, p2)
    rid = start(
        app,
        table,
        banker,
        dealt(
            hands=[("TC", "6C"), ("TD", "8D")],
            banker=("TH", "7H"),
            draws=["9C"],
        ),
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)
    app.act(rid, "hit", actor=p1, hand="h1")  # 9C: 25
    rnd = app.get_round(rid)
    assert rnd.hands["h1"]["status"] == "bust"
    assert not rnd.hands["h1"].get("settled")  # waits for the banker
    assert rnd.hands["h1"]["result"] is None
    app.act(rid, "stand", actor=p2, hand="h2")  # 18
    app.act(rid, "dealer_stand", actor=banker)  # 17: the banker stands

    assert_settled(app, rid, {"h1": (-200, ["OC-9", "OC-11"]), "h2": (300, ["OC-8"])})
    assert_wallets(app, before, {p1: -200, p2: 300, banker: -100})
    assert_books_balance(app, rid)


# -- OC-12 the bank passes when the two packs are played out --------------------------------


def stood_round(app, table, banker, p1, p2, spare):
    """A round all three stand in at once (p1 19 for 200, p2 18 for 300, the banker 18),
    dealt from a talia holding only ``spare`` beyond its cards; its id."""
    deal = dealt(hands=[("TC", "9C"), ("TD", "8D")], banker=("TH", "8H"), spare=False)
    rid = start(app, table, banker, deal + list(spare))
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)
    app.act(rid, "stand", actor=p1, hand="h1")
    app.act(rid, "stand", actor=p2, hand="h2")
    app.act(rid, "dealer_stand", actor=banker)
    return rid


def deals_passed(app, table):
    """Each passing of the bank the table recorded: (from, to, clause)."""
    events = app.events.get(UUID(table))
    return [
        (e.from_player, e.to_player, e.clause) for e in events if type(e).__name__ == "DealPassed"
    ]


def test_OC_12_bank_passes_left_when_the_packs_run_out_mid_round(app, fund):
    table, banker, (p1, p2) = open_table(app, fund)
    before = wallets(app, banker, p1, p2)
    # Only the six cards of the deal: h1's draw must come from a fresh shoe. Whatever it is,
    # h1 (2+2 and one card: at most 15) loses to the banker's 20 and h2's 20 ties.
    rid = start(
        app,
        table,
        banker,
        dealt(
            hands=[("2C", "2D"), ("TD", "QD")],
            banker=("TH", "KH"),
            spare=False,
        ),
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)
    app.act(rid, "hit", actor=p1, hand="h1")
    app.act(rid, "stand", actor=p1, hand="h1")
    app.act(rid, "stand", actor=p2, hand="h2")
    app.act(rid, "dealer_stand", actor=banker)

    rnd = app.get_round(rid)
    replaced = [e for e in round_events(app, rid) if type(e).__name__ == "ShoeReplaced"]
    assert [e.clause for e in replaced] == ["OC-12"]
    assert rnd.shoe_id != rnd.start_shoe
    assert app.get_shoe(rnd.shoe_id).packs == 2  # the fresh shoe is two packs again (OC-1)
    assert len(rnd.hands["h1"]["cards"]) == 3 and rnd.total("h1") <= 15
    assert_settled(app, rid, {"h1": (-200, ["OC-8"]), "h2": (0, ["OC-8"])}, same_shoe=False)
    assert_wallets(app, before, {p1: -200, p2: 0, banker: 200})
    assert_books_balance(app, rid)

    assert app.get_table(table).dealer == p1  # seat 2: the punter on the banker's left
    assert deals_passed(app, table) == [(banker, p1, "OC-12")]

    # The next round is banked by p1; the old banker now punts.
    nxt = start(app, table, p1, dealt(hands=[("TC", "9C"), ("TS", "8S")], banker=("9H", "9D")))
    rnd = app.get_round(nxt)
    assert rnd.dealer == p1
    assert [rnd.hands[h]["player"] for h in rnd.order] == [p2, banker]  # from p1's left


def test_OC_12_bank_passes_left_when_the_packs_are_played_out_between_rounds(app, fund):
    table, banker, (p1, p2) = open_table(app, fund)
    before = wallets(app, banker, p1, p2)
    # The deal and two spare cards: too few for another round of three players.
    rid = stood_round(app, table, banker, p1, p2, ["2C", "2D"])
    assert_settled(app, rid, {"h1": (200, ["OC-8"]), "h2": (0, ["OC-8"])})
    assert_wallets(app, before, {p1: 200, p2: 0, banker: -200})
    assert_books_balance(app, rid)

    nxt = app.start_round(table, actor="admin")["round_id"]  # the talon is played out

    assert app.get_table(table).dealer == p1
    rnd = app.get_round(nxt)
    assert rnd.dealer == p1  # the round is banked by the punter on the old banker's left
    assert [rnd.hands[h]["player"] for h in rnd.order] == [p2, banker]


@pytest.mark.parametrize(("left", "passes"), [(8, True), (9, False)], ids=["8-left", "9-left"])
def test_OC_12_bank_passes_with_fewer_cards_left_than_three_for_each_seat(app, fund, left, passes):
    # The ledger's reading (README): no round is begun on the talia's last few cards, so the
    # bank passes when fewer are left than three for each seated player, the banker included
    # (three seats here: nine cards), not only when the last card is dealt.
    table, banker, (p1, p2) = open_table(app, fund)
    before = wallets(app, banker, p1, p2)
    rid = stood_round(app, table, banker, p1, p2, private_tables.SPARE[:left])

    assert_settled(app, rid, {"h1": (200, ["OC-8"]), "h2": (0, ["OC-8"])})
    assert_wallets(app, before, {p1: 200, p2: 0, banker: -200})
    assert_books_balance(app, rid)
    assert deals_passed(app, table) == ([(banker, p1, "OC-12")] if passes else [])
    assert app.get_table(table).dealer == (p1 if passes else banker)


def test_OC_12_the_bank_passes_as_a_round_starts_when_a_new_seat_leaves_the_talia_too_short(
    app, fund
):
    """Nine cards were enough for the three seated when the round closed; a fourth sits
    down, and they are no longer enough for a round: the talia is played out for the table
    as it is now, so the bank passes before the next round (OC-12), which its new holder
    deals from a fresh talia."""
    table, banker, (p1, p2) = open_table(app, fund)
    stood_round(app, table, banker, p1, p2, private_tables.SPARE[:9])
    assert app.get_table(table).dealer == banker  # nine left for three seats: no pass yet
    old_shoe = app.get_table(table).shoe_id
    p3 = fund("Punter 3")
    app.seat_player(table, p3, 4)

    nxt = app.start_round(table, actor=banker)["round_id"]

    assert deals_passed(app, table) == [(banker, p1, "OC-12")]
    rnd = app.get_round(nxt)
    assert rnd.dealer == p1 and app.get_table(table).dealer == p1
    assert [rnd.hands[h]["player"] for h in rnd.order] == [p2, p3, banker]
    assert rnd.shoe_id != old_shoe  # the new banker's talia
