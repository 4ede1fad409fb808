"""``replay verify`` names a table's last event dropped by what the other streams written in
the same write still say: a shoe revealed because its table closed names the missing
``Table.Closed``, a round that ended its missing ``Table.RoundClosed``, a round that started
its missing ``Table.RoundOpened``, a shoe committed for the table its missing
``Table.ShoeChanged``, a round its table opened another after, its missing closing, and a
round whose end passed the deal, the missing ``Table.DealPassed``. A
table's hash chain alone cannot show any of these: its last event is simply gone."""

from __future__ import annotations

import sqlite3
from uuid import UUID

import pytest
from forgery import forge_stream
from replay_history import FIXED_ROUND, casino_table, play_fixed_round
from store_checks import played, verified
from tampering import delete_event

from ledger.domain.table import Table


def _last(path, stream: str) -> tuple[int, str]:
    """The last version of ``stream`` and its topic's type (``Table.Closed``)."""
    with sqlite3.connect(path) as db:
        version, topic = db.execute(
            "SELECT originator_version, topic FROM stored_events WHERE originator_id=?"
            " ORDER BY originator_version DESC LIMIT 1",
            (UUID(stream).hex,),
        ).fetchone()
    return version, topic.rsplit(":", 1)[-1]


def _drop_last(path, stream: str, expected: str) -> int:
    """Delete the stream's last event, which must be of type ``expected``; its position."""
    version, kind = _last(path, stream)
    assert kind == expected
    return delete_event(path, stream, version)


@pytest.fixture
def fixed_table(sqlite_file):
    """A casino table that played the fixed round, on SQLite: env, path, table, round."""
    env, path = sqlite_file

    def play(app):
        table, ann, bob = casino_table(app)
        return table, play_fixed_round(app, table, ann, bob, FIXED_ROUND + ["2C"] * 40)

    table, rid = played(env, play)
    assert verified(env).ok
    return env, path, table, rid


def _faults(report, check: str) -> list[tuple[str, str, str]]:
    return [(f.type, f.stream, f.problem) for f in report.faults if f.check == check]


def test_a_closed_tables_dropped_closing_is_named_by_the_shoe_revealed_when_it_closed(fixed_table):
    env, path, table, _ = fixed_table
    played(env, lambda app: app.close_table(table))
    shoe = played(env, lambda app: str(app.get_table(table).shoe_id))
    _drop_last(path, table, "Table.Closed")

    report = verified(env)

    assert not report.ok
    ((kind, stream, problem),) = [f for f in _faults(report, "shuffle") if "Table.Closed" in f[2]]
    assert (kind, stream) == ("Shoe.Revealed", shoe)
    assert problem.startswith(
        f"table {table}'s Table.Closed is missing: shoe {shoe} was revealed because the table "
        "closed (its reveal is at position "
    )


def test_an_open_tables_dropped_closing_of_a_round_is_named_at_the_rounds_end(fixed_table):
    env, path, table, rid = fixed_table
    _drop_last(path, table, "Table.RoundClosed")

    report = verified(env)

    assert not report.ok
    assert [(k, s) for k, s, _ in _faults(report, "rounds")] == [("Round.Ended", rid)]
    (problem,) = [p for _, _, p in _faults(report, "rounds")]
    assert problem.startswith(
        f"table {table}'s Table.RoundClosed for round {rid} is missing: the round ended at "
        "position "
    )


def test_a_tables_dropped_opening_of_the_round_in_play_and_its_new_shoe_are_named(sqlite_file):
    env, path = sqlite_file

    def play(app):
        table, ann, _ = casino_table(app)
        rid = app.start_round(table)["round_id"]
        app.place_stake(rid, ann, 500)
        return table, rid, str(app.get_table(table).shoe_id)

    table, rid, shoe = played(env, play)
    _drop_last(path, table, "Table.RoundOpened")
    _drop_last(path, table, "Table.ShoeChanged")

    report = verified(env)

    assert not report.ok
    rounds = _faults(report, "rounds")
    assert [(k, s) for k, s, _ in rounds] == [("Round.Started", rid)]
    assert rounds[0][2].startswith(
        f"table {table}'s Table.RoundOpened for round {rid} is missing: the round started at "
        "position "
    )
    shoes = [f for f in _faults(report, "shuffle") if "Table.ShoeChanged" in f[2]]
    assert [(k, s) for k, s, _ in shoes] == [("Shoe.Committed", shoe)]
    assert shoes[0][2].startswith(
        f"table {table}'s Table.ShoeChanged for shoe {shoe} is missing: the shoe was committed "
        "for the table at position "
    )


def test_a_rounds_closing_forged_out_of_its_table_is_named_by_the_round_opened_after_it(
    fixed_table,
):
    """The first round's end and the table's closing of it both gone, the table's stream
    rewritten with its hashes recomputed: the round the table opened next shows it."""
    env, path, table, first = fixed_table

    def again(app):
        rid = app.start_round(table)["round_id"]
        for _, player in sorted(app.get_table(table).seats.items()):
            app.place_stake(rid, player, 500)
        while not app.get_round(rid).ended:  # each hand stands (the dealer plays himself)
            stand = next(a for a in app.allowed_actions(rid) if a["action"] == "stand")
            app.act(rid, "stand", actor=stand["actor"], hand=stand["hand"])
        return rid

    second = played(env, again)
    _drop_last(path, first, "Round.Ended")
    forge_stream(
        env,
        table,
        lambda events: [
            e for e in events if not (isinstance(e, Table.RoundClosed) and str(e.round_id) == first)
        ],
    )

    report = verified(env)

    assert not report.ok
    rounds = _faults(report, "rounds")
    assert [(k, s) for k, s, _ in rounds] == [("Table.RoundOpened", table)]
    assert rounds[0][2].startswith(
        f"table {table}'s Table.RoundClosed for round {first} is missing: the table opened "
        f"round {second} after it (position "
    )


@pytest.fixture
def hoyle_deal_passed(sqlite_file):
    """A Hoyle table passing the deal every round (H13-4) that played one round, on SQLite:
    env, path, table, round. The table's last event is the deal passing."""
    env, path = sqlite_file

    def play(app):
        ids = []
        for name in ("Dealer", "Ann", "Bob"):
            pid = app.register_player(name)["player_id"]
            app.deposit(pid, 100_000)
            ids.append(pid)
        dealer, ann, bob = ids
        table = app.open_table("hoyle-1913", {"deal_passes": "every_round"})["table_id"]
        for seat, pid in enumerate(ids, start=1):
            app.seat_player(table, pid, seat)
        app.choose_dealer(table, dealer)
        # Ann T 8, Bob T 7, the dealer T 7; then spare cards.
        app.fix_next_shoe(table, ["TC", "TD", "TH", "8C", "7D", "7H"] + ["2S"] * 40)
        rid = app.start_round(table, actor=dealer)["round_id"]
        app.place_stake(rid, ann, 100)
        app.place_stake(rid, bob, 100)
        app.act(rid, "stand", actor=ann, hand="h1")
        app.act(rid, "stand", actor=bob, hand="h2")
        app.act(rid, "dealer_stand", actor=dealer)
        return table, rid

    table, rid = played(env, play)
    assert verified(env).ok
    return env, path, table, rid


def test_a_tables_dropped_passing_of_the_deal_is_named_at_the_rounds_closing(hoyle_deal_passed):
    env, path, table, rid = hoyle_deal_passed
    closed, _ = _last(path, table)
    _drop_last(path, table, "Table.DealPassed")

    report = verified(env)

    assert not report.ok
    ((kind, stream, problem),) = [f for f in _faults(report, "rounds") if "DealPassed" in f[2]]
    assert (kind, stream) == ("Table.RoundClosed", table)
    assert problem == (
        f"table {table}'s Table.DealPassed after round {rid} is missing: the round ended "
        "passing the deal (H13-4), and the deal passes in its table's stream in the same "
        "write, right after the round's closing"
    )
    assert [f.version for f in report.faults if "DealPassed" in f.problem] == [closed - 1]
