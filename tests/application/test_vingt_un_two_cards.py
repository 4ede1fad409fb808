"""VU-23: two cards given at once while a player draws. "The player may keep either or both
of them; but if he rejects one, he must be regarded as content, and cannot draw another card"
(seed 002). The choice is his, made in his turn: until he has made it his turn does not pass,
nothing else the dealer records moves play on past him (VU-24 serving another out of turn, a
false division of another hand, VU-25, a hand thrown up), and he cannot make it later, once
the dealer's cards are turned up. Each scenario plays a fixed shoe through the application and
pins every payout to the minor unit; a refused command writes nothing."""

from __future__ import annotations

from uuid import UUID

import pytest

from ledger.balances import fold_balances
from ledger.domain.round import Round
from ledger.errors import HandClosed, OutOfTurn, RuleViolation, WrongPhase
from ledger.games import turns
from ledger.games.bookkeeping import Books
from ledger.games.play import Play
from ledger.rules import rules_from_record

PENALTY = 50
# First cards: A 9S, B TH, the dealer TC; second: A 7C (16), B 8D (18), the dealer 7S (17).
DEAL = ["9S", "TH", "TC", "7C", "8D", "7S"]
SPARE = ["2S", "3S", "4S", "5S", "6S"]


@pytest.fixture
def table(app, fund):
    """The dealer D in seat 1; A (h1) and B (h2) play; a pool with a VU-26 penalty."""
    ids = {name: fund(name) for name in ("D", "A", "B")}
    table_id = app.open_table(
        "vingt-un", {"min_stake": 100, "max_stake": 1000, "penalty_amount": PENALTY}
    )["table_id"]
    for seat, name in enumerate(("D", "A", "B"), start=1):
        app.seat_player(table_id, ids[name], seat)
    app.choose_dealer(table_id, ids["D"])
    return table_id, ids


def _deal(app, table, draws):
    table_id, ids = table
    app.fix_next_shoe(table_id, [*DEAL, *draws, *SPARE])
    rid = app.start_round(table_id, actor=ids["D"])["round_id"]
    app.place_stake(rid, ids["A"], 200)
    app.place_stake(rid, ids["B"], 200)
    app.act(rid, "dealer_double", actor=ids["D"], called=False)
    return rid


def _wallets(app, ids):
    return {name: app.get_player(pid).balance for name, pid in ids.items()}


def _settled(app, rid):
    events = app.events.get(UUID(rid))
    return {e.hand: (e.amount, e.clauses) for e in events if type(e).__name__ == "HandSettled"}


def _stood(app, rid):
    events = app.events.get(UUID(rid))
    return [(e.hand, e.actor) for e in events if type(e).__name__ == "HandStood"]


def _assert_books(app, table_id, rid, pool):
    books = fold_balances(app)
    assert sum(books.values()) == 0
    assert books.get(f"escrow:{rid}", 0) == 0
    assert books.get(f"pool:{table_id}", 0) == pool


def test_VU_23_two_cards_pending_keep_the_turn_whatever_they_make(app, table, nothing_written):
    table_id, ids = table
    before = _wallets(app, ids)
    rid = _deal(app, table, ["9D", "5H"])

    app.act(rid, "serve_two", actor=ids["D"], hand="h1")  # 16 + 9 + 5 = 30 with both

    rnd = app.get_round(rid)
    assert rnd.hands["h1"]["pending_two"] == ["9D", "5H"]
    assert (rnd.phase, rnd.current_turn(), rnd.hands["h1"]["status"]) == ("play", "h1", "open")
    assert _stood(app, rid) == []  # the ledger stands no hand at 30 for its holder

    app.act(rid, "reject", actor=ids["A"], hand="h1", card="9D")  # 16 + 5: a drawn Vingt-un
    assert app.get_round(rid).current_turn() == "h2"  # content, he draws no more
    app.act(rid, "stand", actor=ids["B"], hand="h2")
    app.act(rid, "dealer_stand", actor=ids["D"])  # 17

    assert _settled(app, rid) == {"h1": (400, ["VU-17"]), "h2": (200, ["VU-14"])}
    after = _wallets(app, ids)
    assert {n: after[n] - before[n] for n in ids} == {"D": -600 - PENALTY, "A": 400, "B": 200}
    _assert_books(app, table_id, rid, PENALTY)  # VU-26: the dealer gave two at once


def test_VU_23_keeping_both_of_two_cards_over_21_is_an_over_draw(app, table):
    table_id, ids = table
    before = _wallets(app, ids)
    rid = _deal(app, table, ["9D", "5H"])
    app.act(rid, "serve_two", actor=ids["D"], hand="h1")

    app.act(rid, "take", actor=ids["A"], hand="h1")  # 30: pays at once (VU-12)
    app.act(rid, "stand", actor=ids["B"], hand="h2")
    app.act(rid, "dealer_stand", actor=ids["D"])

    assert _settled(app, rid) == {"h1": (-200, ["VU-12"]), "h2": (200, ["VU-14"])}
    after = _wallets(app, ids)
    assert {n: after[n] - before[n] for n in ids} == {"D": 0 - PENALTY, "A": -200, "B": 200}
    _assert_books(app, table_id, rid, PENALTY)


def test_VU_23_play_moving_on_stops_at_the_hand_with_two_cards_pending(app, table):
    """However play comes to move on, it stops at the hand whose holder has two cards to
    choose from: at 30 with both, the ledger does not stand it (VU-11) for him."""
    table_id, ids = table
    rid = _deal(app, table, ["9D", "5H"])
    app.act(rid, "serve_two", actor=ids["D"], hand="h1")
    rnd = app.get_round(rid)
    play = Play(rnd, rules_from_record(rnd.rules_record), None, Books(None, rnd), "ledger")

    turns.continue_play(play)

    assert rnd.collect_events() == []
    assert (rnd.current_turn(), rnd.hands["h1"]["status"]) == ("h1", "open")


@pytest.mark.parametrize(
    ("actor", "action", "hand"),
    [
        ("D", "serve_out_of_order", "h2"),  # VU-24: serving B would pass A's turn
        ("D", "false_division", "h2"),  # VU-25 on another hand settles it and moves play on
        ("B", "throw_up", "h2"),
        ("A", "throw_up", "h1"),  # given two cards, he was served: no choice after seeing them
    ],
)
def test_VU_23_nothing_moves_play_past_two_cards_pending(
    app, table, nothing_written, actor, action, hand
):
    table_id, ids = table
    rid = _deal(app, table, ["9D", "5H", "2C"])
    app.act(rid, "serve_two", actor=ids["D"], hand="h1")

    with nothing_written(), pytest.raises(RuleViolation, match="h1 has two cards") as refused:
        app.act(rid, action, actor=ids[actor], hand=hand)

    assert refused.value.clause == "VU-23"
    assert app.get_round(rid).current_turn() == "h1"


def test_VU_23_a_second_pair_is_refused_while_the_first_is_pending(app, table, nothing_written):
    table_id, ids = table
    before = _wallets(app, ids)
    # A holds 4S 3C (7); B TH 8C (18); the dealer TC 7S (17). Two at once: 9D 8D.
    app.fix_next_shoe(table_id, ["4S", "TH", "TC", "3C", "8C", "7S", "9D", "8D", "2H", *SPARE])
    rid = app.start_round(table_id, actor=ids["D"])["round_id"]
    app.place_stake(rid, ids["A"], 200)
    app.place_stake(rid, ids["B"], 200)
    app.act(rid, "dealer_double", actor=ids["D"], called=False)
    app.act(rid, "serve_two", actor=ids["D"], hand="h1")

    with nothing_written(), pytest.raises(RuleViolation, match="9D 8D") as refused:
        app.act(rid, "serve_two", actor=ids["D"], hand="h1")
    assert refused.value.clause == "VU-23"

    app.act(rid, "reject", actor=ids["A"], hand="h1", card="8D")  # keeps 9D: 16, content
    assert app.get_round(rid).hands["h1"]["cards"] == ["4S", "3C", "9D"]
    app.act(rid, "stand", actor=ids["B"], hand="h2")
    app.act(rid, "dealer_stand", actor=ids["D"])  # 17

    assert _settled(app, rid) == {"h1": (-200, ["VU-14"]), "h2": (200, ["VU-14"])}
    after = _wallets(app, ids)
    assert {n: after[n] - before[n] for n in ids} == {"D": 0 - PENALTY, "A": -200, "B": 200}
    _assert_books(app, table_id, rid, PENALTY)  # one penalty: the refused pair was never given


def test_VU_25_the_hand_with_two_cards_pending_may_itself_be_reported(app, table):
    """A false division pays double whatever the two cards make: no choice is taken from
    the player, so it may be recorded on his hand, and the turn passes."""
    table_id, ids = table
    before = _wallets(app, ids)
    rid = _deal(app, table, ["9D", "5H"])
    app.act(rid, "serve_two", actor=ids["D"], hand="h1")

    app.act(rid, "false_division", actor=ids["D"], hand="h1")  # 9S 7C do not pair

    assert app.get_round(rid).current_turn() == "h2"
    app.act(rid, "stand", actor=ids["B"], hand="h2")
    app.act(rid, "dealer_stand", actor=ids["D"])
    assert _settled(app, rid) == {"h1": (-400, ["VU-25"]), "h2": (200, ["VU-14"])}
    after = _wallets(app, ids)
    assert {n: after[n] - before[n] for n in ids} == {
        "D": 200 - PENALTY,  # he gave two at once: his penalty, A's 400 and B's 200
        "A": -400 - PENALTY,  # he drew separately: his penalty
        "B": 200,
    }
    _assert_books(app, table_id, rid, 2 * PENALTY)


# Rounds stored before the ledger held the turn on two cards pending: the dealer's next
# command stood A's hand at 30 for him. Written here as it was then recorded.


def _stored_before_the_fix(app, table):
    table_id, ids = table
    rid = _deal(app, table, ["9D", "5H", "KH"])  # then a king: the dealer's 17 would over-draw
    app.act(rid, "serve_two", actor=ids["D"], hand="h1")
    rnd = app.get_round(rid)
    rnd.trigger_event(Round.HandStood, hand="h1", total=30, clause="VU-11", actor="ledger")
    app.save(rnd)
    return rid


def test_VU_23_two_cards_are_not_chosen_from_once_the_hand_is_closed(app, table, nothing_written):
    table_id, ids = table
    rid = _stored_before_the_fix(app, table)

    with nothing_written(), pytest.raises(HandClosed) as closed:
        app.act(rid, "reject", actor=ids["A"], hand="h1", card="9D")
    assert closed.value.clause == "VU-23"

    app.act(rid, "stand", actor=ids["B"], hand="h2")  # the dealer turns up his 17
    for action, kwargs in (("reject", {"card": "9D"}), ("take", {})):
        with nothing_written(), pytest.raises(WrongPhase, match="phase 'dealer'") as late:
            app.act(rid, action, actor=ids["A"], hand="h1", **kwargs)
        assert late.value.clause == "VU-23"


def test_VU_23_a_hand_over_21_is_never_settled_as_standing(app, table, nothing_written):
    table_id, ids = table
    rid = _stored_before_the_fix(app, table)
    app.act(rid, "stand", actor=ids["B"], hand="h2")

    for action in ("dealer_stand", "dealer_draw"):
        with nothing_written(), pytest.raises(RuleViolation, match="h1 is at 30") as refused:
            app.act(rid, action, actor=ids["D"])
        assert refused.value.clause == "VU-23"
    assert not _settled(app, rid)


def test_VU_23_two_cards_are_chosen_from_only_in_the_holders_turn(app, table, nothing_written):
    table_id, ids = table
    rid = _deal(app, table, ["9D", "5H"])
    rnd = app.get_round(rid)  # as if B had been given two while A was in turn
    rnd.trigger_event(
        Round.IrregularityRecorded,
        kind="two_cards",
        offender=ids["D"],
        hand="h2",
        clause="VU-23",
        actor=ids["D"],
        note="gave TH 8D at once",
    )
    app.save(rnd)

    with nothing_written(), pytest.raises(OutOfTurn) as refused:
        app.act(rid, "take", actor=ids["B"], hand="h2")
    assert refused.value.clause == "VU-23"
