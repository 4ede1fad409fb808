"""A table without credit holds, at staking, the most a hand can cost its player, so a round
can always be settled. Under the VU-10 variation ``natural_collects_from_players`` that is
more than the stake doubled twice (VU-6, VU-8): every other hand's natural collects one
stake from it too."""

from __future__ import annotations

from uuid import UUID

import pytest

from ledger import accounts
from ledger.balances import fold_balances
from ledger.errors import InsufficientFunds
from replay.verify import verify

STAKE = 100
# A, B and C are dealt naturals; E's 16 stands; the dealer (D) holds 18.
SHOE = ["AC", "AD", "AH", "TC", "9D", "KD", "QC", "JH", "6D", "9H", "2S", "3S", "4S"]


@pytest.fixture
def table(app, fund):
    names = ["D", "A", "B", "C", "E"]
    ids = {name: fund(name) for name in names}
    table = app.open_table(
        "vingt-un",
        {"min_stake": STAKE, "max_stake": 1_000, "natural_collects_from_players": True},
    )["table_id"]
    for seat, name in enumerate(names, start=1):
        app.seat_player(table, ids[name], seat)
    app.choose_dealer(table, ids["D"])
    return table, ids


def test_VU_10_a_hold_covers_a_stake_collected_by_every_other_natural(app, table):
    table_id, ids = table
    # E keeps just the hold: his stake doubled by the dealer (VU-6), lost twice over to a
    # dealer natural (VU-8), or collected by each of the three other hands' naturals.
    hold = STAKE * (4 + 2 * 3)
    app.withdraw(ids["E"], app.get_player(ids["E"]).balance - hold)
    app.fix_next_shoe(table_id, SHOE)
    rid = app.start_round(table_id, actor=ids["D"])["round_id"]
    for name in ("A", "B", "C", "E"):
        app.place_stake(rid, ids[name], STAKE)
    app.act(rid, "dealer_double", actor=ids["D"], called=True)
    app.act(rid, "stand", actor=ids["E"], hand="h4")
    app.act(rid, "dealer_stand", actor=ids["D"])

    rnd = app.get_round(rid)
    assert rnd.ended
    collected = [
        e
        for e in app.events.get(UUID(rid))
        if type(e).__name__ == "HoldAdjusted" and e.hand == "h4"
    ]
    assert [(e.amount, e.clause) for e in collected] == [(-2 * STAKE, "VU-10")] * 3
    assert rnd.hands["h4"]["result"] == -2 * STAKE  # and he loses his doubled stake to 18
    assert app.get_player(ids["E"]).balance == hold - 3 * 2 * STAKE - 2 * STAKE
    balances = fold_balances(app)
    assert sum(balances.values()) == 0 and balances.get(accounts.escrow(rid), 0) == 0


def test_VU_10_a_stake_the_wallet_cannot_hold_is_refused_at_staking(app, table):
    table_id, ids = table
    app.withdraw(ids["E"], app.get_player(ids["E"]).balance - STAKE * (4 + 2 * 3) + 1)
    app.fix_next_shoe(table_id, SHOE)
    rid = app.start_round(table_id, actor=ids["D"])["round_id"]
    before = app.recorder.max_notification_id()
    with pytest.raises(InsufficientFunds) as refused:
        app.place_stake(rid, ids["E"], STAKE)
    assert refused.value.clause == "VU-5"
    assert app.recorder.max_notification_id() == before


def test_VU_6_on_credit_the_dealers_double_holds_the_second_stake_too(app, fund):
    """With credit only the stake is held at staking (nothing more can be promised); the
    dealer's double raises the stake, so the hold grows by it from the wallet at once."""
    dealer, ann = fund("D"), fund("A", 1_000)
    table_id = app.open_table("vingt-un", {"min_stake": STAKE, "credit": True})["table_id"]
    app.seat_player(table_id, dealer, 1)
    app.seat_player(table_id, ann, 2)
    app.choose_dealer(table_id, dealer)
    app.fix_next_shoe(table_id, ["TC", "9C", "8D", "8H", "2S", "3S"])
    rid = app.start_round(table_id, actor=dealer)["round_id"]
    app.place_stake(rid, ann, STAKE)
    assert app.get_round(rid).hands["h1"]["held"] == STAKE

    app.act(rid, "dealer_double", actor=dealer, called=True)

    hand = app.get_round(rid).hands["h1"]
    assert (hand["stake"], hand["held"]) == (2 * STAKE, 2 * STAKE)
    assert app.get_player(ann).balance == 1_000 - 2 * STAKE
    assert fold_balances(app)[accounts.escrow(rid)] == 2 * STAKE


def test_VU_10_on_credit_a_stake_collected_by_several_naturals_is_taken_from_the_wallet(app, fund):
    """With credit only the (doubled) stake is held, and the first natural collects all of
    it: what the other naturals collect is taken from the wallet, into debt, as a loss
    beyond the hold is (the hold grows by it first, so the escrow never pays what it does
    not hold), and the round still settles."""
    names = ["D", "A", "B", "C", "E"]
    ids = {name: fund(name) for name in names}
    options = {"min_stake": STAKE, "natural_collects_from_players": True, "credit": True}
    table_id = app.open_table("vingt-un", options)["table_id"]
    for seat, name in enumerate(names, start=1):
        app.seat_player(table_id, ids[name], seat)
    app.choose_dealer(table_id, ids["D"])
    app.withdraw(ids["E"], app.get_player(ids["E"]).balance)  # E plays on credit alone
    app.fix_next_shoe(table_id, SHOE)
    rid = app.start_round(table_id, actor=ids["D"])["round_id"]
    for name in ("A", "B", "C", "E"):
        app.place_stake(rid, ids[name], STAKE)

    app.act(rid, "dealer_double", actor=ids["D"], called=True)

    assert fold_balances(app)[accounts.escrow(rid)] >= 0
    assert app.get_round(rid).hands["h4"]["held"] == 0  # three collections of 2 x STAKE paid
    app.act(rid, "stand", actor=ids["E"], hand="h4")
    app.act(rid, "dealer_stand", actor=ids["D"])  # 18 beats E's 16

    rnd = app.get_round(rid)
    assert rnd.ended and rnd.hands["h4"]["result"] == -2 * STAKE
    assert app.get_player(ids["E"]).balance == -3 * 2 * STAKE - 2 * STAKE
    # Each natural's result is the dealer's double, doubled by his call; the stake it collects
    # from E (VU-10) is a payment between hands, not part of its result.
    for name in ("A", "B", "C"):
        assert rnd.hands[f"h{'ABC'.index(name) + 1}"]["result"] == 4 * STAKE
    balances = fold_balances(app)
    assert sum(balances.values()) == 0 and balances.get(accounts.escrow(rid), 0) == 0
    report = verify(app)
    assert report.ok, report.text()
