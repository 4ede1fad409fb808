"""The Vingt-un dealer's bank cover on a table without credit: what he puts up, and that what
he must pay is always there, so a refusal never depends on a card not yet dealt.

VU-21: when he divides, every stake still standing meets one more dealer hand, which can pay
it double as it stands (a drawn Vingt-un, VU-15, VU-17): the cover grows by that much, not by
the cover taken at staking, which already counts the dealer's double (VU-6).

Each scenario plays a fixed shoe through the application and pins every payout, wallet and
the cover to the minor unit; a refused command writes nothing."""

from __future__ import annotations

from uuid import UUID

import pytest

from ledger import accounts
from ledger.balances import fold_balances
from ledger.errors import InsufficientFunds

SPARE = ["2S", "3S", "4S", "5S", "6S"]


def _table(app, fund, dealer_funds, options=None):
    """The dealer D (seat 1) with ``dealer_funds``; A (seat 2) with plenty."""
    dealer, ann = fund("D", dealer_funds), fund("A")
    options = {"min_stake": 100, "max_stake": 1000, **(options or {})}
    table_id = app.open_table("vingt-un", options)["table_id"]
    app.seat_player(table_id, dealer, 1)
    app.seat_player(table_id, ann, 2)
    app.choose_dealer(table_id, dealer)
    return table_id, dealer, ann


def _events(app, rid, name):
    return [e for e in app.events.get(UUID(rid)) if type(e).__name__ == name]


def _assert_books(app, rid):
    books = fold_balances(app)
    assert sum(books.values()) == 0
    assert books.get(accounts.escrow(rid), 0) == 0


def test_VU_21_after_a_double_the_cover_grows_by_what_one_more_hand_can_pay(app, fund):
    # A: TS 5C, draws 6H: a drawn Vingt-un. The dealer: 8D 8S, divided: 8D 9C and 8S 7D, and
    # each over-draws (KH, QH). His cover: 400 at A's stake of 100 (doubled to 200, VU-6),
    # and 2 x 200 more when he divides; his 100 left over is never touched.
    table_id, dealer, ann = _table(app, fund, 900)
    before = {p: app.get_player(p).balance for p in (dealer, ann)}
    app.fix_next_shoe(table_id, ["TS", "8D", "5C", "8S", "6H", "9C", "7D", "KH", "QH", *SPARE])
    rid = app.start_round(table_id, actor=dealer)["round_id"]
    app.place_stake(rid, ann, 100)
    app.act(rid, "dealer_double", actor=dealer, called=True)
    app.act(rid, "hit", actor=ann, hand="h1")  # 21: stood for him (VU-11)

    app.act(rid, "dealer_split", actor=dealer)

    assert app.get_round(rid).bank_held == 400 + 400
    assert app.get_player(dealer).balance == 100
    assert [e.amount for e in _events(app, rid, "BankCovered")] == [400, 400]
    app.act(rid, "dealer_draw", actor=dealer)  # 8 9 K: over 21, on to his second hand
    app.act(rid, "dealer_draw", actor=dealer)  # 8 7 Q: over 21

    (settled,) = _events(app, rid, "HandSettled")
    # Double from each over-drawn hand (VU-15, VU-17): 4 x 200, all of it from the cover.
    assert (settled.amount, settled.clauses) == (800, ["VU-15", "VU-17", "VU-21"])
    assert settled.from_bank_cover == 800
    after = {p: app.get_player(p).balance for p in (dealer, ann)}
    assert {p: after[p] - before[p] for p in after} == {dealer: -800, ann: 800}
    _assert_books(app, rid)


def test_VU_21_without_a_double_each_division_covers_double_the_stakes(app, fund):
    # A: TC 9C (19). The dealer 8D 8H, divided: 8D 2C (10) then 8H TH (18); he stands on both.
    table_id, dealer, ann = _table(app, fund, 10_000)
    app.fix_next_shoe(table_id, ["TC", "8D", "9C", "8H", "2C", "TH", *SPARE])
    rid = app.start_round(table_id, actor=dealer)["round_id"]
    app.place_stake(rid, ann, 300)
    app.act(rid, "dealer_double", actor=dealer, called=False)
    app.act(rid, "stand", actor=ann, hand="h1")

    app.act(rid, "dealer_split", actor=dealer)

    assert app.get_round(rid).bank_held == 4 * 300 + 2 * 300
    app.act(rid, "dealer_stand", actor=dealer)
    app.act(rid, "dealer_stand", actor=dealer)
    (settled,) = _events(app, rid, "HandSettled")
    assert (settled.amount, settled.clauses) == (600, ["VU-14", "VU-21"])
    assert app.get_player(dealer).balance == 10_000 - 600
    _assert_books(app, rid)


def test_VU_21_a_division_the_dealer_cannot_cover_is_refused(app, fund, nothing_written):
    # As the first scenario, the dealer 100 short of the 400 his second hand can cost him.
    table_id, dealer, ann = _table(app, fund, 700)
    app.fix_next_shoe(table_id, ["TS", "8D", "5C", "8S", "6H", "9C", "7D", *SPARE])
    rid = app.start_round(table_id, actor=dealer)["round_id"]
    app.place_stake(rid, ann, 100)
    app.act(rid, "dealer_double", actor=dealer, called=True)
    app.act(rid, "hit", actor=ann, hand="h1")

    with nothing_written(), pytest.raises(InsufficientFunds, match="needs 400") as refused:
        app.act(rid, "dealer_split", actor=dealer)
    assert refused.value.clause == "VU-21"
