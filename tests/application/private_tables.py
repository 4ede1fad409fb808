"""Helpers for scenario tests at tables a player banks (Hoyle 1913, Очко): seating, the
shoe in dealing order, and the checks every scenario makes on payouts and the books."""

from __future__ import annotations

from uuid import UUID

import pytest

from ledger.balances import fold_balances

# Spare cards after every scenario, so a short shoe never silently brings in a random card.
SPARE = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"]


def open_table(app, fund, family, options=None, punters=2):
    """The dealer (banker) in seat 1, the punters in seats 2, 3, …"""
    dealer = fund("Dealer")
    players = [fund(f"Punter {n}") for n in range(1, punters + 1)]
    table = app.open_table(family, options or {})["table_id"]
    for seat, pid in enumerate([dealer, *players], start=1):
        app.seat_player(table, pid, seat)
    app.choose_dealer(table, dealer)
    return table, dealer, players


def dealt(hands, dealer=None, draws=(), spare=True, *, banker=None):
    """The shoe in dealing order: a card to each hand then the dealer (the banker, in
    Очко), twice; then draws."""
    dealer = banker if dealer is None else dealer
    first = [cards[0] for cards in hands] + [dealer[0]]
    second = [cards[1] for cards in hands] + [dealer[1]]
    return first + second + list(draws) + (SPARE if spare else [])


def start(app, table, dealer, shoe):
    app.fix_next_shoe(table, shoe)
    return app.start_round(table, actor=dealer)["round_id"]


def wallets(app, *pids):
    return {pid: app.get_player(pid).balance for pid in pids}


def round_events(app, rid):
    return list(app.events.get(UUID(rid)))


def settlements(app, rid):
    return [e for e in round_events(app, rid) if type(e).__name__ == "HandSettled"]


def assert_settled(app, rid, expected, same_shoe=True):
    """``expected``: {hand id: (player's net in minor units, clauses of its HandSettled)}."""
    rnd = app.get_round(rid)
    assert rnd.ended
    if same_shoe:
        assert rnd.shoe_id == rnd.start_shoe, (
            "the fixed shoe ran out: the scenario drew a random card"
        )
    events = settlements(app, rid)
    assert sorted(e.hand for e in events) == sorted(expected), "one HandSettled per hand"
    for event in events:
        net, clauses = expected[event.hand]
        assert rnd.hands[event.hand]["result"] == net, event.hand
        assert event.amount == net, event.hand
        assert event.clauses == clauses, event.hand


def assert_wallets(app, before, changes):
    """Every wallet of the scenario changed by exactly ``changes`` over the round."""
    assert set(changes) == set(before)
    after = wallets(app, *before)
    assert {pid: after[pid] - before[pid] for pid in before} == changes


def assert_books_balance(app, rid):
    books = fold_balances(app)
    assert sum(books.values()) == 0
    assert books.get(f"escrow:{rid}", 0) == 0, "nothing is left in the round's escrow"


def event_keys(app, rid):
    return [(e.originator_version, type(e).__name__) for e in round_events(app, rid)]


def assert_refused(app, rid, command, error, clause):
    """The command is refused with ``clause`` and writes nothing at all; returns the error."""
    round_before = event_keys(app, rid)
    stored_before = len(app.recorder.select_notifications(start=1, limit=10**6))
    with pytest.raises(error) as refusal:
        command()
    assert refusal.value.clause == clause
    assert event_keys(app, rid) == round_before
    assert len(app.recorder.select_notifications(start=1, limit=10**6)) == stored_before
    return refusal.value
