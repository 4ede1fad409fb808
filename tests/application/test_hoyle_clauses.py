"""Blackjack as Hoyle gave it in 1913: one scenario (at least) per clause H13-1..H13-10.

Every scenario deals a fixed shoe through the application and checks each payout to the
minor unit: the hand's ``result``, the ``HandSettled`` event's clauses, every wallet (the
dealer's too) before and after the round, and that all the books still sum to zero.

Hoyle deals stakes first, then one card to each hand and one to the dealer, twice; draws
follow in the order of play. Seats: the dealer sits in seat 1, punter 1 in seat 2 (hand h1,
the eldest hand, on the dealer's left), punter 2 in seat 3 (hand h2).
"""

from __future__ import annotations

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
    NotPermitted,
    OutOfTurn,
    RuleViolation,
    StakeOutOfLimits,
    WrongPhase,
)

FAMILY = "hoyle-1913"
# -- helpers (shared with the other player-banked family in private_tables.py) --------------


def open_table(app, fund, options=None, punters=2):
    return private_tables.open_table(app, fund, FAMILY, options, punters)


def deal_passes(app, table):
    return [e for e in app.events.get(UUID(table)) if type(e).__name__ == "DealPassed"]


# -- H13-1 the pack and the count ------------------------------------------------------------


def test_H13_1_a_random_shoe_is_one_full_pack_of_52_cards(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund)
    app.start_round(table, actor=dealer)  # no fixed shoe queued: a committed random shoe

    shoe = app.get_shoe(app.get_table(table).shoe_id)
    assert shoe.packs == 1
    assert shoe.size == 52
    assert sorted(app.shoes.order(shoe)) == sorted(unshuffled(1))  # each card exactly once


def test_H13_1_an_ace_counts_eleven_or_one(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund)
    before = wallets(app, dealer, p1, p2)
    rid = start(
        app,
        table,
        dealer,
        dealt(
            hands=[("AH", "5C"), ("AS", "8C")],
            dealer=("TC", "9H"),
            draws=["9D", "5D"],
        ),
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)

    assert app.get_round(rid).total("h1") == 16  # ace as 11
    app.act(rid, "hit", actor=p1, hand="h1")  # 9D
    assert app.get_round(rid).total("h1") == 15  # ace as 1, not over 21
    app.act(rid, "hit", actor=p1, hand="h1")  # 5D
    assert app.get_round(rid).total("h1") == 20
    app.act(rid, "stand", actor=p1, hand="h1")
    # Only Очко lets the holder value an ace; Hoyle counts it the best way.
    assert_refused(
        app,
        rid,
        lambda: app.act(rid, "ace_value", actor=p2, hand="h2", index=0, value=1),
        RuleViolation,
        "OC-7",
    )
    assert app.get_round(rid).total("h2") == 19  # ace as 11
    app.act(rid, "stand", actor=p2, hand="h2")
    app.act(rid, "dealer_stand", actor=dealer)

    assert_settled(app, rid, {"h1": (200, ["H13-10"]), "h2": (0, ["H13-10"])})
    assert_wallets(app, before, {p1: 200, p2: 0, dealer: -200})
    assert_books_balance(app, rid)


# -- H13-2 betting before the deal -----------------------------------------------------------


def test_H13_2_players_bet_before_the_deal_within_the_limit_and_the_dealer_bets_nothing(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund, {"min_stake": 100, "max_stake": 500})
    before = wallets(app, dealer, p1, p2)
    rid = start(app, table, dealer, dealt(hands=[("TC", "7C"), ("TD", "8D")], dealer=("TH", "8H")))

    rnd = app.get_round(rid)
    assert rnd.phase == "betting"
    assert all(not hand["cards"] for hand in rnd.hands.values())  # no card before the bets
    assert [hand["player"] for hand in rnd.hands.values()] == [p1, p2]  # the dealer has no hand
    assert_refused(app, rid, lambda: app.place_stake(rid, p1, 501), StakeOutOfLimits, "H13-2")
    assert_refused(app, rid, lambda: app.place_stake(rid, p1, 99), StakeOutOfLimits, "H13-2")
    assert_refused(app, rid, lambda: app.place_stake(rid, dealer, 200), NotPermitted, "H13-2")

    app.place_stake(rid, p1, 500)
    app.place_stake(rid, p2, 100)
    app.act(rid, "stand", actor=p1, hand="h1")  # 17
    app.act(rid, "stand", actor=p2, hand="h2")  # 18
    app.act(rid, "dealer_stand", actor=dealer)  # 18: the banker takes and pays all bets

    assert_settled(app, rid, {"h1": (-500, ["H13-10"]), "h2": (0, ["H13-10"])})
    assert_wallets(app, before, {p1: -500, p2: 0, dealer: 500})
    assert_books_balance(app, rid)


def test_H13_2_fixed_bet_allows_only_the_fixed_amount(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund, {"fixed_bet": 200})
    before = wallets(app, dealer, p1, p2)
    rid = start(app, table, dealer, dealt(hands=[("TC", "9C"), ("TD", "6D")], dealer=("TH", "7H")))

    assert_refused(app, rid, lambda: app.place_stake(rid, p1, 300), StakeOutOfLimits, "H13-2")
    assert_refused(app, rid, lambda: app.place_stake(rid, p2, 100), StakeOutOfLimits, "H13-2")
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 200)
    app.act(rid, "stand", actor=p1, hand="h1")  # 19
    app.act(rid, "stand", actor=p2, hand="h2")  # 16
    app.act(rid, "dealer_stand", actor=dealer)  # 17

    assert_settled(app, rid, {"h1": (200, ["H13-10"]), "h2": (-200, ["H13-10"])})
    assert_wallets(app, before, {p1: 200, p2: -200, dealer: 0})
    assert_books_balance(app, rid)


# -- H13-3 variations: staking after the first card, splitting pairs ------------------------------


def test_H13_3_stake_after_first_card_deals_one_card_before_the_stakes(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund, {"stake_after_first_card": True})
    before = wallets(app, dealer, p1, p2)
    rid = start(
        app,
        table,
        dealer,
        dealt(
            hands=[("TC", "9C"), ("5D", "6D")],
            dealer=("7H", "TH"),
            draws=["TD"],
        ),
    )

    rnd = app.get_round(rid)
    assert rnd.phase == "staking"
    assert rnd.hands["h1"]["cards"] == ["TC"]
    assert rnd.hands["h2"]["cards"] == ["5D"]
    assert rnd.dealer_hand["cards"] == ["7H"]
    assert wallets(app, dealer, p1, p2) == before  # nothing staked yet

    app.place_stake(rid, p1, 300)
    assert app.get_round(rid).hands["h1"]["cards"] == ["TC"]  # the second card waits for all stakes
    app.place_stake(rid, p2, 100)
    rnd = app.get_round(rid)
    assert rnd.hands["h1"]["cards"] == ["TC", "9C"]
    assert rnd.dealer_hand["cards"] == ["7H", "TH"]

    app.act(rid, "stand", actor=p1, hand="h1")  # 19
    app.act(rid, "hit", actor=p2, hand="h2")  # TD: 21, stands by itself
    assert app.get_round(rid).hands["h2"]["status"] == "stood"
    app.act(rid, "dealer_stand", actor=dealer)  # 17

    assert_settled(app, rid, {"h1": (300, ["H13-10"]), "h2": (100, ["H13-10"])})
    assert_wallets(app, before, {p1: 300, p2: 100, dealer: -400})
    assert_books_balance(app, rid)


def test_H13_3_allow_split_stakes_on_each_card_of_a_pair(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund, {"allow_split": True})
    before = wallets(app, dealer, p1, p2)
    rid = start(
        app,
        table,
        dealer,
        dealt(
            hands=[("8H", "8D"), ("TC", "9C")],
            dealer=("TH", "9H"),
            draws=["3C", "KD", "9D"],  # split: 3C to h1, KD to the new hand; then h1 draws 9D
        ),
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 100)

    out = app.act(rid, "split", actor=p1, hand="h1", amount=300)
    assert out["new_hand"] == "h3"
    rnd = app.get_round(rid)
    assert rnd.order == ["h1", "h3", "h2"]
    assert rnd.hands["h1"]["cards"] == ["8H", "3C"]
    assert rnd.hands["h3"]["cards"] == ["8D", "KD"]
    assert (rnd.hands["h1"]["stake"], rnd.hands["h3"]["stake"]) == (200, 300)

    app.act(rid, "hit", actor=p1, hand="h1")  # 9D: 20
    app.act(rid, "stand", actor=p1, hand="h1")
    app.act(rid, "stand", actor=p1, hand="h3")  # 18
    app.act(rid, "stand", actor=p2, hand="h2")  # 19
    app.act(rid, "dealer_stand", actor=dealer)  # 19

    assert_settled(
        app,
        rid,
        {
            "h1": (200, ["H13-10"]),
            "h3": (-300, ["H13-10"]),
            "h2": (0, ["H13-10"]),
        },
    )
    assert_wallets(app, before, {p1: -100, p2: 0, dealer: 100})
    assert_books_balance(app, rid)


def test_H13_3_a_split_hand_holds_and_is_covered_for_its_single_stake(app, fund):
    # The naturals were settled at the deal (H13-5, H13-6): a split hand can only win or
    # lose its own stake (H13-7..H13-10), so a wallet that holds that stake may split, and
    # the banker covers the split stake once, not twice as for a stake at the deal.
    dealer, p1 = fund("Dealer", 10_000), fund("Punter 1", 700)
    table = app.open_table(FAMILY, {"allow_split": True})["table_id"]
    app.seat_player(table, dealer, 1)
    app.seat_player(table, p1, 2)
    app.choose_dealer(table, dealer)
    before = wallets(app, dealer, p1)
    rid = start(
        app, table, dealer, dealt(hands=[("8H", "8D")], dealer=("TH", "9H"), draws=["3C", "KD"])
    )
    app.place_stake(rid, p1, 200)  # held twice (H13-5) to the deal, then once

    app.act(rid, "split", actor=p1, hand="h1")  # 200 more on the second eight
    rnd = app.get_round(rid)
    assert (rnd.hands["h2"]["stake"], rnd.hands["h2"]["held"]) == (200, 200)
    assert rnd.bank_held == 200 + 200
    assert app.get_player(p1).balance == 700 - 200 - 200

    app.act(rid, "stand", actor=p1, hand="h1")  # 11
    app.act(rid, "stand", actor=p1, hand="h2")  # 18
    app.act(rid, "dealer_stand", actor=dealer)  # 19

    assert_settled(app, rid, {"h1": (-200, ["H13-10"]), "h2": (-200, ["H13-10"])})
    assert_wallets(app, before, {p1: -400, dealer: 400})
    assert_books_balance(app, rid)


def _one_punter_at_a_split_table(app, fund, wallet, options=None):
    dealer, p1 = fund("Dealer", 10_000), fund("Punter 1", wallet)
    table = app.open_table(FAMILY, {"allow_split": True, **(options or {})})["table_id"]
    app.seat_player(table, dealer, 1)
    app.seat_player(table, p1, 2)
    app.choose_dealer(table, dealer)
    return table, dealer, p1


def test_H13_5_the_hold_beyond_the_single_stake_is_released_once_the_naturals_are_settled(
    app, fund
):
    # Held twice while a dealer natural could take two stakes (H13-5) and covered twice while
    # a player natural could be paid double (H13-6); once the deal shows neither, an open
    # hand can only win or lose its stake (H13-7..H13-10): the rest goes back at once.
    table, dealer, p1 = _one_punter_at_a_split_table(app, fund, 500)
    before = wallets(app, dealer, p1)
    rid = start(
        app, table, dealer, dealt(hands=[("8H", "8D")], dealer=("TH", "9H"), draws=["3C", "KD"])
    )
    app.place_stake(rid, p1, 200)

    rnd = app.get_round(rid)
    assert rnd.hands["h1"]["held"] == 200
    assert rnd.bank_held == 200
    assert app.get_player(p1).balance == 500 - 200
    assert app.get_player(dealer).balance == 10_000 - 200
    released = [
        (type(e).__name__, e.amount, e.clause)
        for e in round_events(app, rid)
        if type(e).__name__ in ("HoldAdjusted", "BankCovered") and e.amount < 0
    ]
    assert released == [("HoldAdjusted", -200, "H13-5"), ("BankCovered", -200, "H13-6")]

    # The split a wallet of 500 was refused while 400 stayed held for one stake of 200: the
    # most his two hands can now lose is 400.
    app.act(rid, "split", actor=p1, hand="h1")
    assert app.get_player(p1).balance == 500 - 400
    app.act(rid, "stand", actor=p1, hand="h1")  # 11
    app.act(rid, "stand", actor=p1, hand="h2")  # 18
    app.act(rid, "dealer_stand", actor=dealer)  # 19

    assert_settled(app, rid, {"h1": (-200, ["H13-10"]), "h2": (-200, ["H13-10"])})
    assert_wallets(app, before, {p1: -400, dealer: 400})
    assert_books_balance(app, rid)


def test_H13_5_nothing_is_released_on_credit_where_only_the_stake_is_held(app, fund):
    table, dealer, p1 = _one_punter_at_a_split_table(app, fund, 500, {"credit": True})
    rid = start(app, table, dealer, dealt(hands=[("8H", "9D")], dealer=("TH", "9H")))
    app.place_stake(rid, p1, 200)

    assert app.get_round(rid).hands["h1"]["held"] == 200
    assert app.get_player(p1).balance == 500 - 200
    assert not [e for e in round_events(app, rid) if type(e).__name__ == "HoldAdjusted"]


def test_H13_5_a_dealer_natural_still_takes_the_double_hold(app, fund):
    # Decided at the deal: nothing is released before the hold pays it.
    table, dealer, p1 = _one_punter_at_a_split_table(app, fund, 500)
    before = wallets(app, dealer, p1)
    rid = start(app, table, dealer, dealt(hands=[("8H", "9D")], dealer=("AH", "KH")))
    app.place_stake(rid, p1, 200)

    assert_settled(app, rid, {"h1": (-400, ["H13-5"])})
    assert_wallets(app, before, {p1: -400, dealer: 400})
    assert not [e for e in round_events(app, rid) if type(e).__name__ == "HoldAdjusted"]
    assert_books_balance(app, rid)


def test_H13_3_no_split_unless_the_table_allows_it(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund)  # allow_split defaults to False
    before = wallets(app, dealer, p1, p2)
    rid = start(app, table, dealer, dealt(hands=[("8H", "8D"), ("TC", "9C")], dealer=("TH", "7H")))
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 100)

    assert_refused(
        app, rid, lambda: app.act(rid, "split", actor=p1, hand="h1"), RuleViolation, "H13-3"
    )
    app.act(rid, "stand", actor=p1, hand="h1")  # 16
    app.act(rid, "stand", actor=p2, hand="h2")  # 19
    app.act(rid, "dealer_stand", actor=dealer)  # 17

    assert_settled(app, rid, {"h1": (-200, ["H13-10"]), "h2": (100, ["H13-10"])})
    assert_wallets(app, before, {p1: -200, p2: 100, dealer: 100})
    assert_books_balance(app, rid)


# -- H13-4 the deal and who deals next ----------------------------------------------------------


def test_H13_4_two_cards_each_one_at_a_time_in_rotation_to_the_left(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund)
    before = wallets(app, dealer, p1, p2)
    rid = start(app, table, dealer, dealt(hands=[("2C", "3C"), ("4D", "5D")], dealer=("6H", "7H")))
    app.place_stake(rid, p1, 100)
    app.place_stake(rid, p2, 100)

    deal = [
        (e.hand, e.card, e.clause)
        for e in round_events(app, rid)
        if type(e).__name__ == "CardDealt"
    ]
    assert deal == [
        ("h1", "2C", "H13-4"),
        ("h2", "4D", "H13-4"),
        ("dealer", "6H", "H13-4"),
        ("h1", "3C", "H13-4"),
        ("h2", "5D", "H13-4"),
        ("dealer", "7H", "H13-4"),
    ]
    rnd = app.get_round(rid)
    assert [rnd.hands[h]["seat"] for h in rnd.order] == [2, 3]  # from the dealer's left

    app.act(rid, "stand", actor=p1, hand="h1")  # 5
    app.act(rid, "stand", actor=p2, hand="h2")  # 9
    app.act(rid, "dealer_stand", actor=dealer)  # 13

    assert_settled(app, rid, {"h1": (-100, ["H13-10"]), "h2": (-100, ["H13-10"])})
    assert_wallets(app, before, {p1: -100, p2: -100, dealer: 200})
    assert_books_balance(app, rid)
    assert app.get_table(table).dealer == dealer  # no natural: the deal stays (default)
    assert deal_passes(app, table) == []


def test_H13_4_deal_passes_left_on_a_player_natural_by_default(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund)
    before = wallets(app, dealer, p1, p2)
    rid = start(app, table, dealer, dealt(hands=[("TC", "8C"), ("AD", "KD")], dealer=("TH", "9H")))
    app.place_stake(rid, p1, 100)
    app.place_stake(rid, p2, 100)
    app.act(rid, "stand", actor=p1, hand="h1")  # 18
    app.act(rid, "dealer_stand", actor=dealer)  # 19

    assert_settled(app, rid, {"h1": (-100, ["H13-10"]), "h2": (200, ["H13-6"])})
    assert_wallets(app, before, {p1: -100, p2: 200, dealer: -100})
    assert_books_balance(app, rid)
    assert app.get_round(rid).passes_deal == "H13-4"
    assert app.get_table(table).dealer == p1  # seat 2, on the dealer's left
    assert [(e.to_player, e.clause) for e in deal_passes(app, table)] == [(p1, "H13-4")]


def test_H13_4_deal_passes_every_round_option(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund, {"deal_passes": "every_round"})
    before = wallets(app, dealer, p1, p2)
    rid = start(app, table, dealer, dealt(hands=[("TC", "8C"), ("TD", "7D")], dealer=("TH", "7H")))
    app.place_stake(rid, p1, 100)
    app.place_stake(rid, p2, 200)
    app.act(rid, "stand", actor=p1, hand="h1")  # 18
    app.act(rid, "stand", actor=p2, hand="h2")  # 17
    app.act(rid, "dealer_stand", actor=dealer)  # 17

    assert_settled(app, rid, {"h1": (100, ["H13-10"]), "h2": (0, ["H13-10"])})
    assert_wallets(app, before, {p1: 100, p2: 0, dealer: -100})
    assert_books_balance(app, rid)
    assert app.get_table(table).dealer == p1  # no natural, and still the deal passes
    assert [(e.to_player, e.clause) for e in deal_passes(app, table)] == [(p1, "H13-4")]


def test_H13_4_deal_passes_every_round_even_after_a_dealer_natural(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund, {"deal_passes": "every_round"})
    before = wallets(app, dealer, p1, p2)
    rid = start(app, table, dealer, dealt(hands=[("TC", "8C"), ("TD", "7D")], dealer=("AH", "KH")))
    app.place_stake(rid, p1, 100)
    app.place_stake(rid, p2, 200)

    assert_settled(app, rid, {"h1": (-200, ["H13-5"]), "h2": (-400, ["H13-5"])})
    assert_wallets(app, before, {p1: -200, p2: -400, dealer: 600})
    assert_books_balance(app, rid)
    assert app.get_table(table).dealer == p1  # "every round" means this round too


def test_H13_4_deal_never_passes_option(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund, {"deal_passes": "never"})
    before = wallets(app, dealer, p1, p2)
    rid = start(app, table, dealer, dealt(hands=[("AC", "QC"), ("TD", "9D")], dealer=("TH", "8H")))
    app.place_stake(rid, p1, 100)
    app.place_stake(rid, p2, 200)
    app.act(rid, "stand", actor=p2, hand="h2")  # 19
    app.act(rid, "dealer_stand", actor=dealer)  # 18

    assert_settled(app, rid, {"h1": (200, ["H13-6"]), "h2": (200, ["H13-10"])})
    assert_wallets(app, before, {p1: 200, p2: 200, dealer: -400})
    assert_books_balance(app, rid)
    assert app.get_round(rid).passes_deal is None
    assert app.get_table(table).dealer == dealer  # a natural, yet the deal stays
    assert deal_passes(app, table) == []


# -- H13-5 dealer natural -----------------------------------------------------------------------


def test_H13_5_dealer_natural_takes_twice_each_stake_except_from_a_natural(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund)
    before = wallets(app, dealer, p1, p2)
    rid = start(app, table, dealer, dealt(hands=[("TC", "9C"), ("AD", "KD")], dealer=("AH", "QH")))
    app.place_stake(rid, p1, 250)
    app.place_stake(rid, p2, 400)

    rnd = app.get_round(rid)
    assert rnd.ended  # nobody draws against a dealer natural
    assert rnd.dealer_hand["natural"]
    assert_settled(app, rid, {"h1": (-500, ["H13-5"]), "h2": (0, ["H13-5"])})
    assert_wallets(app, before, {p1: -500, p2: 0, dealer: 500})
    assert_books_balance(app, rid)
    assert app.get_table(table).dealer == dealer  # a dealer natural does not pass the deal


# -- H13-6 player natural -------------------------------------------------------------------------


def test_H13_6_player_natural_is_paid_double_by_the_dealer(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund)
    before = wallets(app, dealer, p1, p2)
    rid = start(app, table, dealer, dealt(hands=[("AC", "QC"), ("TD", "8D")], dealer=("TH", "7H")))
    app.place_stake(rid, p1, 300)
    app.place_stake(rid, p2, 100)

    rnd = app.get_round(rid)
    assert rnd.hands["h1"]["settled"]  # paid at once, before anyone draws
    assert rnd.hands["h1"]["result"] == 600
    assert rnd.current_turn() == "h2"
    app.act(rid, "stand", actor=p2, hand="h2")  # 18
    app.act(rid, "dealer_stand", actor=dealer)  # 17

    assert_settled(app, rid, {"h1": (600, ["H13-6"]), "h2": (100, ["H13-10"])})
    assert_wallets(app, before, {p1: 600, p2: 100, dealer: -700})
    assert_books_balance(app, rid)


def _natural_takes_the_table(app, fund):
    table, dealer, (p1, p2, p3) = open_table(app, fund, {"natural_takes_table": True}, punters=3)
    before = wallets(app, dealer, p1, p2, p3)
    rid = start(
        app,
        table,
        dealer,
        dealt(
            hands=[("TC", "8C"), ("AD", "JD"), ("9S", "9C")],
            dealer=("TH", "7H"),
        ),
    )
    app.place_stake(rid, p1, 100)
    app.place_stake(rid, p2, 200)
    app.place_stake(rid, p3, 300)
    return rid, table, dealer, (p1, p2, p3), before


def test_H13_6_natural_takes_table_moves_every_stake_to_the_holder(app, fund):
    rid, table, dealer, (p1, p2, p3), before = _natural_takes_the_table(app, fund)

    rnd = app.get_round(rid)
    assert rnd.ended  # every stake is taken: nothing left to play
    by_hand = {e.hand: e for e in settlements(app, rid)}
    assert (by_hand["h1"].amount, by_hand["h1"].clauses) == (-100, ["H13-6"])
    assert (by_hand["h3"].amount, by_hand["h3"].clauses) == (-300, ["H13-6"])
    assert by_hand["h2"].clauses == ["H13-6"]
    assert_wallets(app, before, {p1: -100, p2: 400, p3: -300, dealer: 0})
    assert_books_balance(app, rid)
    assert app.get_table(table).dealer == p1  # a player natural passes the deal (default)


def test_H13_6_natural_takes_table_records_the_holders_winnings(app, fund):
    rid, table, dealer, (p1, p2, p3), before = _natural_takes_the_table(app, fund)

    assert_settled(
        app,
        rid,
        {
            "h1": (-100, ["H13-6"]),
            "h2": (400, ["H13-6"]),
            "h3": (-300, ["H13-6"]),
        },
    )
    assert_wallets(app, before, {p1: -100, p2: 400, p3: -300, dealer: 0})
    assert_books_balance(app, rid)


def _two_naturals_and_the_table(app, fund, dealer_cards=("TH", "7H")):
    """natural_takes_table with two naturals: h1 (the eldest) and h3; h2 and h4 hold none."""
    table, dealer, punters = open_table(app, fund, {"natural_takes_table": True}, punters=4)
    before = wallets(app, dealer, *punters)
    hands = [("AD", "JD"), ("TC", "8C"), ("KS", "AS"), ("9S", "9C")]
    rid = start(app, table, dealer, dealt(hands=hands, dealer=dealer_cards))
    for pid, stake in zip(punters, (100, 200, 500, 300), strict=True):
        app.place_stake(rid, pid, stake)
    return rid, dealer, punters, before


def test_H13_6_natural_takes_table_every_natural_is_declared_the_eldest_takes_the_rest(app, fund):
    rid, dealer, (p1, p2, p3, p4), before = _two_naturals_and_the_table(app, fund)

    events = round_events(app, rid)
    declared = [(e.hand, e.clause) for e in events if type(e).__name__ == "NaturalDeclared"]
    assert declared == [("h1", "H13-6"), ("h3", "H13-6")]
    # The eldest natural (h1, on the dealer's left) takes the stakes of the hands holding none;
    # the other natural (h3) stands off: his stake back, nothing paid or received.
    assert_settled(
        app,
        rid,
        {
            "h1": (500, ["H13-6"]),
            "h2": (-200, ["H13-6"]),
            "h3": (0, ["H13-6"]),
            "h4": (-300, ["H13-6"]),
        },
    )
    outcomes = {e.hand: e.outcome for e in settlements(app, rid)}
    assert outcomes["h3"] == "natural stand-off"
    assert app.get_round(rid).ended
    assert_wallets(app, before, {p1: 500, p2: -200, p3: 0, p4: -300, dealer: 0})
    assert_books_balance(app, rid)


@pytest.mark.parametrize(
    "hands", [[("AS", "KS")], [("AS", "KS"), ("KD", "AD")]], ids=["alone", "facing-only-naturals"]
)
def test_H13_6_a_natural_with_no_stake_to_take_wins_nothing(app, fund, hands):
    # The ledger's reading (README): the natural is paid with the stakes it takes, in place of
    # the dealer's double, so with none to take it nets 0 where it would otherwise win 2 x 500.
    table, dealer, punters = open_table(
        app, fund, {"natural_takes_table": True}, punters=len(hands)
    )
    before = wallets(app, dealer, *punters)
    rid = start(app, table, dealer, dealt(hands=hands, dealer=("9H", "8H")))
    for pid, stake in zip(punters, (500, 300), strict=False):
        app.place_stake(rid, pid, stake)

    assert_settled(app, rid, {f"h{n}": (0, ["H13-6"]) for n in range(1, len(hands) + 1)})
    outcomes = {e.hand: e.outcome for e in settlements(app, rid)}
    assert outcomes["h1"] == "natural takes the table"  # the eldest, not a stand-off
    assert_wallets(app, before, dict.fromkeys([dealer, *punters], 0))
    assert_books_balance(app, rid)


def test_H13_5_a_dealer_natural_still_rules_when_a_natural_takes_the_table(app, fund):
    rid, dealer, (p1, p2, p3, p4), before = _two_naturals_and_the_table(
        app, fund, dealer_cards=("AH", "QH")
    )

    assert_settled(
        app,
        rid,
        {
            "h1": (0, ["H13-5"]),
            "h2": (-400, ["H13-5"]),
            "h3": (0, ["H13-5"]),
            "h4": (-600, ["H13-5"]),
        },
    )
    assert_wallets(app, before, {p1: 0, p2: -400, p3: 0, p4: -600, dealer: 1000})
    assert_books_balance(app, rid)


# -- H13-7 the players draw -------------------------------------------------------------------


def test_H13_7_players_draw_from_the_eldest_hand_and_an_overdraw_pays_at_once(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund)
    before = wallets(app, dealer, p1, p2)
    rid = start(
        app,
        table,
        dealer,
        dealt(
            hands=[("TC", "6C"), ("5D", "4D")],
            dealer=("TH", "8H"),
            draws=["9C", "3D", "7D"],
        ),
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)

    assert app.get_round(rid).current_turn() == "h1"  # the eldest hand, on the dealer's left
    assert_refused(app, rid, lambda: app.act(rid, "hit", actor=p2, hand="h2"), OutOfTurn, "H13-7")
    assert_refused(app, rid, lambda: app.act(rid, "dealer_draw", actor=dealer), WrongPhase, "H13-8")

    app.act(rid, "hit", actor=p1, hand="h1")  # 9C: 25, over 21
    rnd = app.get_round(rid)
    assert rnd.hands["h1"]["status"] == "bust"
    assert rnd.hands["h1"]["result"] == -200  # pays the dealer at once, before the dealer plays
    assert not rnd.ended

    app.act(rid, "hit", actor=p2, hand="h2")  # 3D: 12, one card at a time
    app.act(rid, "hit", actor=p2, hand="h2")  # 7D: 19
    app.act(rid, "stand", actor=p2, hand="h2")
    app.act(rid, "dealer_stand", actor=dealer)  # 18

    assert_settled(app, rid, {"h1": (-200, ["H13-7"]), "h2": (300, ["H13-10"])})
    assert_wallets(app, before, {p1: -200, p2: 300, dealer: -100})
    assert_books_balance(app, rid)


# -- H13-8 the dealer draws at his discretion ----------------------------------------------------


def test_H13_8_dealer_turns_his_cards_up_and_draws_at_his_discretion(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund)
    before = wallets(app, dealer, p1, p2)
    rid = start(
        app,
        table,
        dealer,
        dealt(
            hands=[("TC", "8C"), ("9D", "9S")],
            dealer=("TH", "4H"),
            draws=["2H", "3H"],
        ),
    )
    app.place_stake(rid, p1, 100)
    app.place_stake(rid, p2, 200)
    app.act(rid, "stand", actor=p1, hand="h1")  # 18
    app.act(rid, "stand", actor=p2, hand="h2")  # 18

    rnd = app.get_round(rid)
    assert rnd.phase == "dealer"
    assert rnd.dealer_hand["face_up"] == [True, True]  # turned face up
    shown = [e for e in round_events(app, rid) if type(e).__name__ == "CardsShown"]
    assert [(e.hand, e.clause) for e in shown] == [("dealer", "H13-8")]
    assert_refused(app, rid, lambda: app.act(rid, "dealer_draw", actor=p1), NotPermitted, "H13-8")

    app.act(rid, "dealer_draw", actor=dealer)  # 2H: 16, and he may still draw
    app.act(rid, "dealer_draw", actor=dealer)  # 3H: 19
    app.act(rid, "dealer_stand", actor=dealer)

    assert_settled(app, rid, {"h1": (-100, ["H13-10"]), "h2": (-200, ["H13-10"])})
    assert_wallets(app, before, {p1: -100, p2: -200, dealer: 300})
    assert_books_balance(app, rid)


def test_H13_8_dealer_may_stand_on_a_low_total(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund)
    before = wallets(app, dealer, p1, p2)
    rid = start(app, table, dealer, dealt(hands=[("TC", "3C"), ("9D", "2D")], dealer=("TH", "2H")))
    app.place_stake(rid, p1, 100)
    app.place_stake(rid, p2, 200)
    app.act(rid, "stand", actor=p1, hand="h1")  # 13
    app.act(rid, "stand", actor=p2, hand="h2")  # 11
    app.act(rid, "dealer_stand", actor=dealer)  # 12: no fixed rule makes him draw

    assert_settled(app, rid, {"h1": (100, ["H13-10"]), "h2": (-200, ["H13-10"])})
    assert_wallets(app, before, {p1: 100, p2: -200, dealer: 100})
    assert_books_balance(app, rid)


# -- H13-9 dealer over 21 ----------------------------------------------------------------------


def test_H13_9_dealer_overdraw_pays_every_player_who_has_not_overdrawn(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund)
    before = wallets(app, dealer, p1, p2)
    rid = start(
        app,
        table,
        dealer,
        dealt(
            hands=[("TC", "5C"), ("TD", "2D")],
            dealer=("TH", "6H"),
            draws=["KC", "8H"],
        ),
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)
    app.act(rid, "hit", actor=p1, hand="h1")  # KC: 25, over-drawn
    app.act(rid, "stand", actor=p2, hand="h2")  # 12
    app.act(rid, "dealer_draw", actor=dealer)  # 8H: 24

    overdrawn = [e for e in round_events(app, rid) if type(e).__name__ == "HandOverdrawn"]
    assert [(e.hand, e.total, e.clause) for e in overdrawn] == [
        ("h1", 25, "H13-7"),
        ("dealer", 24, "H13-9"),
    ]
    assert_settled(app, rid, {"h1": (-200, ["H13-7"]), "h2": (300, ["H13-9"])})
    assert_wallets(app, before, {p1: -200, p2: 300, dealer: -100})
    assert_books_balance(app, rid)


# -- H13-10 dealer 21 or less: compare ---------------------------------------------------------


def test_H13_10_equal_totals_stand_off(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund)
    before = wallets(app, dealer, p1, p2)
    rid = start(
        app,
        table,
        dealer,
        dealt(
            hands=[("TC", "9C"), ("7D", "7S")],
            dealer=("TH", "5H"),
            draws=["5D", "4H"],
        ),
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)
    app.act(rid, "stand", actor=p1, hand="h1")  # 19
    app.act(rid, "hit", actor=p2, hand="h2")  # 5D: 19 in three cards
    app.act(rid, "stand", actor=p2, hand="h2")
    app.act(rid, "dealer_draw", actor=dealer)  # 4H: 19
    app.act(rid, "dealer_stand", actor=dealer)

    assert_settled(app, rid, {"h1": (0, ["H13-10"]), "h2": (0, ["H13-10"])})
    assert_wallets(app, before, {p1: 0, p2: 0, dealer: 0})
    assert_books_balance(app, rid)


def test_H13_10_higher_total_wins_and_lower_total_loses_the_stake(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund)
    before = wallets(app, dealer, p1, p2)
    rid = start(app, table, dealer, dealt(hands=[("TC", "QC"), ("TD", "7D")], dealer=("TH", "8H")))
    app.place_stake(rid, p1, 150)
    app.place_stake(rid, p2, 350)
    app.act(rid, "stand", actor=p1, hand="h1")  # 20
    app.act(rid, "stand", actor=p2, hand="h2")  # 17
    app.act(rid, "dealer_stand", actor=dealer)  # 18

    assert_settled(app, rid, {"h1": (150, ["H13-10"]), "h2": (-350, ["H13-10"])})
    assert_wallets(app, before, {p1: 150, p2: -350, dealer: 200})
    assert_books_balance(app, rid)


def test_H13_10_a_drawn_21_is_no_natural_and_ties_or_wins_single(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund)
    before = wallets(app, dealer, p1, p2)
    rid = start(
        app,
        table,
        dealer,
        dealt(
            hands=[("7C", "7D"), ("TD", "QD")],
            dealer=("7H", "4H"),
            draws=["7S", "TH"],
        ),
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)
    app.act(rid, "hit", actor=p1, hand="h1")  # 7S: 21, stands by itself
    app.act(rid, "stand", actor=p2, hand="h2")  # 20
    app.act(rid, "dealer_draw", actor=dealer)  # TH: 21 in three cards
    app.act(rid, "dealer_stand", actor=dealer)

    assert_settled(app, rid, {"h1": (0, ["H13-10"]), "h2": (-300, ["H13-10"])})
    assert_wallets(app, before, {p1: 0, p2: -300, dealer: 300})
    assert_books_balance(app, rid)
