"""Who dealt each card (``CardDealt.actor``), as the audit shows it: the round's dealer deals
every card ("house" in the casino), whichever command set the deal going; only a card a
player asked for himself (a hit, a double down, his division's cards) names that player."""

from __future__ import annotations

from uuid import UUID

from private_tables import dealt, open_table, start

from ledger.domain.round import Round

SPARE = ["KS"] * 10


def _dealt(app, rid):
    return [
        (e.hand, e.card, e.actor)
        for e in app.events.get(UUID(rid))
        if isinstance(e, Round.CardDealt)
    ]


def test_casino_the_house_deals_the_deal_and_draws_its_own_cards(app, fund):
    ann, bob = fund("Ann"), fund("Bob")
    table = app.open_table("casino", {"insurance": False})["table_id"]
    app.seat_player(table, ann, 1)
    app.seat_player(table, bob, 2)
    # Ann 6C 5D doubles onto TH; Bob 8C 8H splits (h3), his second cards 2S, 3S, and both
    # stand; the dealer shows 9H, holds 7S (16) and draws 8D.
    app.fix_next_shoe(table, ["6C", "8C", "9H", "5D", "8H", "7S", "TH", "2S", "3S", "8D", *SPARE])
    rid = app.start_round(table)["round_id"]
    app.place_stake(rid, ann, 200)
    app.place_stake(rid, bob, 200)  # the last stake sets the deal going: Bob does not deal

    app.act(rid, "double_down", actor=ann, hand="h1")
    app.act(rid, "split", actor=bob, hand="h2")  # h2's second card comes with its turn
    app.act(rid, "stand", actor=bob, hand="h2")
    app.act(rid, "stand", actor=bob, hand="h3")  # sets the house's play going

    assert _dealt(app, rid) == [
        ("h1", "6C", "house"),
        ("h2", "8C", "house"),
        ("dealer", "9H", "house"),
        ("h1", "5D", "house"),
        ("h2", "8H", "house"),
        ("dealer", "7S", "house"),  # the hole card
        ("h1", "TH", ann),  # her double down
        ("h2", "2S", "house"),  # a split hand's second card, dealt as its turn comes
        ("h3", "3S", "house"),
        ("dealer", "8D", "house"),  # CB-8: the house's own draw
    ]


def test_hoyle_the_dealer_deals_what_the_last_stake_set_going(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund, "hoyle-1913", {"allow_split": True})
    rid = start(
        app,
        table,
        dealer,
        dealt(hands=[("8H", "8D"), ("TC", "9C")], dealer=("TH", "9H"), draws=["3C", "KD", "9D"]),
    )
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 100)
    app.act(rid, "split", actor=p1, hand="h1", amount=300)  # 3C and KD, at his asking
    app.act(rid, "hit", actor=p1, hand="h1")  # 9D

    actors = [(hand, actor) for hand, _, actor in _dealt(app, rid)]
    assert actors == [
        *[(hand, dealer) for hand in ("h1", "h2", "dealer") * 2],
        ("h1", p1),
        ("h3", p1),
        ("h1", p1),
    ]


def test_vingt_un_the_dealer_deals_the_first_cards_whoever_starts_the_round(app, fund):
    table, dealer, (p1, p2) = open_table(app, fund, "vingt-un")
    app.fix_next_shoe(table, ["TC", "9D", "8H", "KC", "7D", "9C", *SPARE])
    rid = app.start_round(table)["round_id"]  # started by an admin

    assert [actor for _, _, actor in _dealt(app, rid)] == [dealer] * 3
