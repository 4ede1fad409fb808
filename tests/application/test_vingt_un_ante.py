"""VU-27 (a), the ante "at the commencement of each deal" (seed 002, POOL), under each reading
the table's ``ante_each`` option names: every round, or the first round of each deal, where a
deal is a dealer's spell (VU-29..31): it starts when a dealer is chosen (VU-2) or the deal
passes (VU-10, VU-29, VU-30), and a sale (VU-31) continues it.

Each round records which round of its deal it is (``Round.Started.round_of_deal``), so the
ante taken or not is explained by the round's own events. The harness and seating are those of
test_vingt_un_clauses.py: the dealer "D" in seat 1, then "A", "B", "C"."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from test_vingt_un_clauses import NATURAL_FOR_A, VingtUnTable, of_type

from ledger.errors import InvalidRules
from ledger.rules.vingt_un import VingtUnRules

ANTE = 50
# A 19, B 17, the dealer 18 (with D dealing to A and B): nobody holds a natural.
PLAIN = ["TC", "9C", "TD", "9D", "8C", "8D"]


@pytest.fixture
def table(app, fund):
    def make(seats: list[str], options: dict[str, Any], **kwargs: Any) -> VingtUnTable:
        return VingtUnTable(app, fund, seats, {"pool_ante": ANTE, **options}, **kwargs)

    return make


def play(t: VingtUnTable, cards: list[str], **kwargs: Any) -> str:
    """A round dealt from ``cards``: every player stakes 100, every open hand stands, and so
    does the dealer."""
    rid = t.start(cards, **kwargs)
    rnd = t.round(rid)
    for hand in rnd.order:
        t.app.place_stake(rid, rnd.hands[hand]["player"], 100)
    t.app.act(rid, "dealer_double", actor=rnd.dealer, called=False)
    while not t.round(rid).ended:
        rnd = t.round(rid)
        turn = rnd.current_turn()
        if turn is None:
            t.app.act(rid, "dealer_stand", actor=rnd.dealer)
        else:
            t.app.act(rid, "stand", actor=rnd.hands[turn]["player"], hand=turn)
    return rid


def antes(t: VingtUnTable, rid: str) -> list[str]:
    """Who paid an ante in round ``rid``: each payer's name, as his wallet's stream records."""
    return sorted(
        name
        for name, pid in t.ids.items()
        for e in of_type(list(t.app.events.get(UUID(pid))), "FundsTransferred")
        if e.round_id == rid and e.clause == "VU-27" and e.memo == "ante"
    )


def round_of_deal(t: VingtUnTable, rid: str) -> int:
    (started,) = of_type(t.events(rid), "Started")
    return started.round_of_deal


@pytest.mark.parametrize("options", [{}, {"ante_each": "round"}], ids=["default", "round"])
def test_VU_27a_ante_each_round_every_player_pays_at_every_round_of_a_deal(table, options):
    t = table(["D", "A", "B"], options)
    assert t.table().rules.ante_each == "round"
    first, second = play(t, PLAIN), play(t, PLAIN)
    assert [round_of_deal(t, r) for r in (first, second)] == [1, 2]
    assert antes(t, first) == antes(t, second) == ["A", "B"]
    assert t.pool() == 4 * ANTE
    t.assert_books_balance()


def test_VU_27a_ante_each_deal_players_pay_at_the_first_round_of_the_deal_only(table):
    t = table(["D", "A", "B"], {"ante_each": "deal"})
    first = play(t, PLAIN)
    assert t.pool() == 2 * ANTE
    second, third = play(t, PLAIN), play(t, PLAIN)
    assert t.dealer() == "D"  # one deal throughout: no natural ended it
    assert [round_of_deal(t, r) for r in (first, second, third)] == [1, 2, 3]
    assert antes(t, first) == ["A", "B"]
    assert antes(t, second) == antes(t, third) == []
    assert t.pool() == 2 * ANTE
    # A and B each won one round and lost two against the dealer's 18 (A 19; B 17).
    assert t.deltas() == {"D": 0, "A": 300 - ANTE, "B": -300 - ANTE}
    t.assert_books_balance()


def test_VU_27a_VU_29_a_deal_limited_to_n_hands_takes_the_ante_again_when_it_passes(table):
    t = table(["D", "A", "B"], {"ante_each": "deal", "deal_limit": "hands", "deal_hands": 2})
    rounds = [play(t, PLAIN), play(t, PLAIN)]
    assert t.dealer() == "A"  # two hands dealt: the deal passes left (VU-29, VU-30)
    # A deals to B (seat 3) and D (seat 1): B 19, D 17, A 18.
    rounds += [play(t, PLAIN, actor=t.ids["A"]), play(t, PLAIN, actor=t.ids["A"])]
    assert [round_of_deal(t, r) for r in rounds] == [1, 2, 1, 2]
    assert [antes(t, r) for r in rounds] == [["A", "B"], [], ["B", "D"], []]
    assert t.pool() == 4 * ANTE
    t.assert_books_balance()


def test_VU_27a_VU_10_a_natural_passes_the_deal_and_the_new_dealer_s_first_round_takes_the_ante(
    table,
):
    t = table(["D", "A", "B"], {"ante_each": "deal"})
    first = play(t, NATURAL_FOR_A + ["2C", "3C"])
    assert t.dealer() == "A"  # A's natural throws D out (VU-10, VU-29 default)
    second = play(t, PLAIN, actor=t.ids["A"])
    third = play(t, PLAIN, actor=t.ids["A"])
    assert [round_of_deal(t, r) for r in (first, second, third)] == [1, 1, 2]
    assert [antes(t, r) for r in (first, second, third)] == [["A", "B"], ["B", "D"], []]
    t.assert_books_balance()


def test_VU_27a_VU_2_a_dealer_chosen_again_starts_a_new_deal(app, table):
    t = table(["D", "A", "B"], {"ante_each": "deal"})
    first = play(t, PLAIN)
    app.choose_dealer(t.table_id, t.ids["B"])
    second = play(t, PLAIN, actor=t.ids["B"])
    third = play(t, PLAIN, actor=t.ids["B"])
    assert [round_of_deal(t, r) for r in (first, second, third)] == [1, 1, 2]
    assert [antes(t, r) for r in (first, second, third)] == [["A", "B"], ["A", "D"], []]
    t.assert_books_balance()


def test_VU_27a_VU_31_a_sold_deal_continues_the_deal_so_the_buyer_s_rounds_take_no_new_ante(
    app, table
):
    t = table(["D", "A", "B", "C"], {"ante_each": "deal"})
    first = play(t, PLAIN + ["7C", "7D"])
    app.sell_deal(t.table_id, t.ids["D"], t.ids["C"], 500)
    # C deals, from the proper dealer's left: A, B, then D.
    second = play(t, PLAIN + ["7C", "7D"], actor=t.ids["C"])
    assert t.round(second).dealer == t.ids["C"]
    assert [round_of_deal(t, r) for r in (first, second)] == [1, 2]
    assert antes(t, first) == ["A", "B", "C"]
    assert antes(t, second) == []
    assert t.pool() == 3 * ANTE
    t.assert_books_balance()


def test_VU_27a_VU_31_a_deal_sold_before_its_first_round_takes_the_ante_at_the_buyer_s_first(
    app, table
):
    t = table(["D", "A", "B", "C"], {"ante_each": "deal"})
    app.sell_deal(t.table_id, t.ids["D"], t.ids["C"], 500)
    rid = play(t, PLAIN + ["7C", "7D"], actor=t.ids["C"])
    assert round_of_deal(t, rid) == 1
    assert antes(t, rid) == ["A", "B", "D"]  # the buyer deals: he pays none
    t.assert_books_balance()


def test_VU_27a_ante_each_must_name_a_reading(app, nothing_written):
    with nothing_written(), pytest.raises(InvalidRules) as info:
        app.open_table("vingt-un", {"pool_ante": ANTE, "ante_each": "hand"})
    assert info.value.details == {"option": "ante_each"}
    assert "ante_each must be one of round, deal, got 'hand'" in str(info.value)


def test_VU_27a_a_round_recorded_before_rounds_were_counted_owes_the_ante_as_then():
    # round_of_deal 0: a Round.Started stored before the field, read at its class default.
    assert VingtUnRules(pool_ante=ANTE).ante_due(0) == ANTE
    assert VingtUnRules(pool_ante=ANTE, ante_each="deal").ante_due(0) == ANTE
    assert VingtUnRules(pool_ante=ANTE, ante_each="deal").ante_due(2) == 0
