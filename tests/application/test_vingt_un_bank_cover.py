"""The Vingt-un dealer's bank cover on a table without credit: what he puts up, and that what
he must pay is always there, so a refusal never depends on a card not yet dealt.

VU-21: when he divides, every stake still standing meets one more dealer hand, which can pay
it double as it stands (a drawn Vingt-un, VU-15, VU-17): the cover grows by that much, not by
the cover taken at staking, which already counts the dealer's double (VU-6).

VU-27 (b): the penalty he pays the pool for each hand he over-draws is held with his cover,
one for each hand he holds, and paid from it: his over-drawing draw is never refused for his
wallet, which would tell him the card on top busts him. VU-26: a penalty for his own
irregularity is paid from the cover the round can no longer cost him, then his wallet.
VU-27 (c): the share of his receipts on ties is paid from his cover too, which still holds
what a tied stake would have cost him. All show in the transfers: the cover released under
the payment's clause, memo saying what for, and the payment's memo saying it was paid from
his bank cover.

Each scenario plays a fixed shoe through the application and pins every payout, wallet and
the cover to the minor unit; a refused command writes nothing."""

from __future__ import annotations

from uuid import UUID

import pytest

from ledger import accounts
from ledger.balances import fold_balances
from ledger.errors import InsufficientFunds
from replay.audit import audit_round
from replay.verify import verify

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


def _assert_books(app, rid, pool=0):
    """The books balance, the escrow is empty, the pool holds ``pool``, and the round's
    transfers are what its events say moved (``replay verify``, the audit's verdict)."""
    books = fold_balances(app)
    assert sum(books.values()) == 0
    assert books.get(accounts.escrow(rid), 0) == 0
    table_id = str(app.get_round(rid).table_id)
    assert books.get(accounts.pool(table_id), 0) == pool
    report = verify(app)
    assert report.ok, report.text()
    assert audit_round(app, rid)["money_reconciles"]["ok"] is True


def _covered(app, rid):
    return [(e.amount, e.clause) for e in _events(app, rid, "BankCovered")]


def _pool_transfers(app, rid):
    """What reached the pool, as the table's stream records it: (amount, clause, memo)."""
    table_id = app.get_round(rid).table_id
    pool = accounts.pool(str(table_id))
    return [
        (e.amount, e.clause, e.memo)
        for e in app.events.get(table_id)
        if type(e).__name__ == "FundsTransferred" and e.to_account == pool
    ]


def _releases(app, dealer, clause):
    """The dealer's cover released to his wallet under ``clause``: (amount, memo)."""
    return [
        (e.amount, e.memo)
        for e in app.events.get(UUID(dealer))
        if type(e).__name__ == "FundsTransferred"
        and e.clause == clause
        and e.to_account == accounts.player(dealer)
    ]


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


# -- VU-27 (b) -------------------------------------------------------------------------------

OVERDRAW = {"pool_dealer_overdraw": 50}


def test_VU_27b_the_dealers_overdraw_goes_through_when_his_wallet_is_empty(app, fund):
    # A: TS 5C (15); the dealer TC 6S (16) draws KH. His 450: the penalty held as the round
    # starts, then 4 x A's 100; his wallet is empty when he draws.
    table_id, dealer, ann = _table(app, fund, 450, OVERDRAW)
    app.fix_next_shoe(table_id, ["TS", "TC", "5C", "6S", "KH", *SPARE])
    rid = app.start_round(table_id, actor=dealer)["round_id"]
    app.place_stake(rid, ann, 100)
    app.act(rid, "dealer_double", actor=dealer, called=False)
    app.act(rid, "stand", actor=ann, hand="h1")
    assert (app.get_player(dealer).balance, app.get_round(rid).bank_held) == (0, 450)

    assert app.act(rid, "dealer_draw", actor=dealer)["card"] == "KH"  # 26: over 21

    (settled,) = _events(app, rid, "HandSettled")
    assert (settled.amount, settled.clauses, settled.from_bank_cover) == (100, ["VU-15"], 100)
    assert _covered(app, rid) == [(50, "VU-27"), (400, "VU-5"), (-50, "VU-27"), (-300, "VU-14")]
    assert _pool_transfers(app, rid) == [
        (50, "VU-27", "dealer over-drew, paid from his bank cover")
    ]
    released = "bank cover held for the VU-27 (b) over-draw penalty, released to pay it"
    assert _releases(app, dealer, "VU-27") == [(50, released)]
    assert app.get_player(dealer).balance == 450 - 100 - 50
    _assert_books(app, rid, pool=50)


def test_VU_27b_the_cover_pays_the_worst_case_and_the_penalty_with_nothing_left(app, fund):
    # The dealer's double (VU-6) makes A's 100 a 200; A draws to a Vingt-un (TS 5C 6H) and the
    # dealer's 16 over-draws: he pays double the 200 (VU-15, VU-17) and the pool 50, exactly
    # the 450 he put up.
    table_id, dealer, ann = _table(app, fund, 450, OVERDRAW)
    app.fix_next_shoe(table_id, ["TS", "TC", "5C", "6S", "6H", "KH", *SPARE])
    rid = app.start_round(table_id, actor=dealer)["round_id"]
    app.place_stake(rid, ann, 100)
    app.act(rid, "dealer_double", actor=dealer, called=True)
    app.act(rid, "hit", actor=ann, hand="h1")  # 21: stood for him (VU-11)

    app.act(rid, "dealer_draw", actor=dealer)

    (settled,) = _events(app, rid, "HandSettled")
    assert (settled.amount, settled.clauses, settled.from_bank_cover) == (
        400,
        ["VU-15", "VU-17"],
        400,
    )
    assert _covered(app, rid) == [(50, "VU-27"), (400, "VU-5"), (-50, "VU-27")]
    assert app.get_player(dealer).balance == 0
    _assert_books(app, rid, pool=50)


def test_VU_27b_each_divided_hand_holds_its_own_penalty(app, fund):
    # As the first VU-21 scenario: both of the dealer's hands over-draw. His 1,000: 50 as the
    # round starts, 400 at A's stake, 400 + 50 when he divides; 100 stays in his wallet.
    table_id, dealer, ann = _table(app, fund, 1_000, OVERDRAW)
    app.fix_next_shoe(table_id, ["TS", "8D", "5C", "8S", "6H", "9C", "7D", "KH", "QH", *SPARE])
    rid = app.start_round(table_id, actor=dealer)["round_id"]
    app.place_stake(rid, ann, 100)
    app.act(rid, "dealer_double", actor=dealer, called=True)
    app.act(rid, "hit", actor=ann, hand="h1")
    app.act(rid, "dealer_split", actor=dealer)
    assert (app.get_player(dealer).balance, app.get_round(rid).bank_held) == (100, 900)

    app.act(rid, "dealer_draw", actor=dealer)
    app.act(rid, "dealer_draw", actor=dealer)

    (settled,) = _events(app, rid, "HandSettled")
    assert (settled.amount, settled.from_bank_cover) == (800, 800)
    assert _covered(app, rid) == [
        (50, "VU-27"),
        (400, "VU-5"),
        (400, "VU-21"),
        (50, "VU-27"),
        (-100, "VU-27"),
    ]
    paid = "dealer over-drew, paid from his bank cover"
    assert _pool_transfers(app, rid) == [(50, "VU-27", paid)] * 2
    assert app.get_player(dealer).balance == 100
    _assert_books(app, rid, pool=100)


def test_VU_27b_a_dealer_who_cannot_hold_the_penalty_starts_no_round(app, fund, nothing_written):
    table_id, dealer, ann = _table(app, fund, 40, OVERDRAW)
    app.fix_next_shoe(table_id, ["TS", "TC", "5C", "6S", *SPARE])

    with nothing_written(), pytest.raises(InsufficientFunds, match="needs 50") as refused:
        app.start_round(table_id, actor=dealer)
    assert refused.value.clause == "VU-27"


# -- VU-27 (c) -------------------------------------------------------------------------------

TIE_SHARE = {"pool_tie_share": "1/3", "max_stake": 100}


@pytest.mark.parametrize(
    ("last", "commands"),
    [("KS", ["dealer_draw"]), ("2C", ["dealer_draw", "dealer_stand"])],
    ids=["over-drawn", "stood"],
)
def test_VU_27c_the_tie_share_comes_from_the_cover_when_his_wallet_is_empty(
    app, fund, last, commands
):
    # A: 8S TH (18). The dealer 8C 8D, divided: 8C TD (18, a tie with A) and 8D 7H, which
    # a king over-draws (or a two leaves at 17). Either way A's 18 loses one stake and wins
    # one: nothing moves, yet the dealer received 100 on a tie and owes the pool a third.
    # His 600 is all cover (4 x 100, then 2 x 100 when he divides): the share comes from it,
    # whichever card ends his last hand, so no draw is refused for it.
    table_id, dealer, ann = _table(app, fund, 600, TIE_SHARE)
    app.fix_next_shoe(table_id, ["8S", "8C", "TH", "8D", "TD", "7H", last, *SPARE])
    rid = app.start_round(table_id, actor=dealer)["round_id"]
    app.place_stake(rid, ann, 100)
    app.act(rid, "dealer_double", actor=dealer, called=False)
    app.act(rid, "stand", actor=ann, hand="h1")
    app.act(rid, "dealer_split", actor=dealer)
    app.act(rid, "dealer_stand", actor=dealer)  # 18: on to his second hand
    assert (app.get_player(dealer).balance, app.get_round(rid).bank_held) == (0, 600)

    for command in commands:
        app.act(rid, command, actor=dealer)

    (settled,) = _events(app, rid, "HandSettled")
    assert (settled.amount, settled.outcome) == (0, "even")
    assert _covered(app, rid) == [(400, "VU-5"), (200, "VU-21"), (-33, "VU-27"), (-567, "VU-14")]
    released = "bank cover released to pay the VU-27 (c) share of receipts on ties"
    assert _releases(app, dealer, "VU-27") == [(33, released)]
    paid = "share of receipts on ties: 1/3 of 100, rounding down: 100/3 -> 33"
    assert _pool_transfers(app, rid) == [(33, "VU-27", f"{paid}, paid from his bank cover")]
    assert app.get_player(dealer).balance == 600 - 33
    _assert_books(app, rid, pool=33)


def test_VU_27c_on_a_credit_table_the_tie_share_leaves_his_wallet(app, fund):
    # No cover at a credit table: the share is paid from his wallet, as before.
    table_id, dealer, ann = _table(app, fund, 0, {**TIE_SHARE, "credit": True})
    app.fix_next_shoe(table_id, ["8S", "8C", "TH", "TD", *SPARE])
    rid = app.start_round(table_id, actor=dealer)["round_id"]
    app.place_stake(rid, ann, 100)
    app.act(rid, "dealer_double", actor=dealer, called=False)
    app.act(rid, "stand", actor=ann, hand="h1")  # 18

    app.act(rid, "dealer_stand", actor=dealer)  # 18: a tie, he receives the stake

    assert _covered(app, rid) == []
    paid = "share of receipts on ties: 1/3 of 100, rounding down: 100/3 -> 33"
    assert _pool_transfers(app, rid) == [(33, "VU-27", paid)]
    assert app.get_player(dealer).balance == 100 - 33
    _assert_books(app, rid, pool=33)


# -- VU-26, the dealer the offender ------------------------------------------------------------

PENALTY = {"penalty_amount": 50}


def test_VU_26_the_dealers_penalty_is_paid_from_cover_the_round_cannot_cost_him(app, fund):
    # His 400 covers A's 100 four times; no double is called, so the round can cost him at
    # most 2 x 100: the penalty for two cards at once comes from the other 200.
    table_id, dealer, ann = _table(app, fund, 400, PENALTY)
    app.fix_next_shoe(table_id, ["TS", "TC", "5C", "7S", "9D", "4H", *SPARE])
    rid = app.start_round(table_id, actor=dealer)["round_id"]
    app.place_stake(rid, ann, 100)
    app.act(rid, "dealer_double", actor=dealer, called=False)
    assert app.get_player(dealer).balance == 0

    app.act(rid, "serve_two", actor=dealer, hand="h1")  # 9D 4H

    assert _covered(app, rid) == [(400, "VU-5"), (-50, "VU-26")]
    released = "bank cover the round can no longer cost him, released to pay a VU-26 penalty"
    assert _releases(app, dealer, "VU-26") == [(50, released)]
    paid = "penalty: two_cards, paid from his bank cover"
    assert _pool_transfers(app, rid) == [(50, "VU-26", paid)]
    app.act(rid, "reject", actor=ann, hand="h1", card="9D")  # 15 + 4: 19, content
    app.act(rid, "dealer_stand", actor=dealer)  # 17
    (settled,) = _events(app, rid, "HandSettled")
    assert (settled.amount, settled.clauses) == (100, ["VU-14"])
    assert app.get_player(dealer).balance == 400 - 50 - 100
    _assert_books(app, rid, pool=50)


def test_VU_26_with_no_cover_to_spare_the_dealers_penalty_needs_his_wallet(
    app, fund, nothing_written
):
    # Doubled, A's 200 can cost him all his 400: the penalty would have to come from his
    # empty wallet. Refused whatever the cards: the cover, the stakes and his wallet decide.
    table_id, dealer, ann = _table(app, fund, 400, PENALTY)
    app.fix_next_shoe(table_id, ["TS", "TC", "5C", "7S", "9D", "4H", *SPARE])
    rid = app.start_round(table_id, actor=dealer)["round_id"]
    app.place_stake(rid, ann, 100)
    app.act(rid, "dealer_double", actor=dealer, called=True)

    with nothing_written(), pytest.raises(InsufficientFunds, match="penalty") as refused:
        app.act(rid, "serve_two", actor=dealer, hand="h1")
    assert refused.value.clause == "VU-26"
