"""A whole round as one command writes exactly the events of the step-by-step commands."""

from uuid import UUID

import pytest

from ledger.errors import OutOfTurn

SHOE = ["TC", "5C", "9C", "6D", "7D", "8D", "2H", "9H", "KS", "QS"]


def _casino(app, fund):
    ann, bob = fund("Ann"), fund("Bob")
    table = app.open_table("casino", {"insurance": False})["table_id"]
    app.seat_player(table, ann, 1)
    app.seat_player(table, bob, 2)
    return table, ann, bob


def _kinds(app, rid):
    return [type(e).__name__ for e in app.events.get(UUID(rid))]


def mimic(rnd, hand):
    return {"action": "hit" if rnd.total(hand) < 17 else "stand"}


def test_play_round_records_what_the_single_commands_record(app, fund):
    table, ann, bob = _casino(app, fund)
    app.fix_next_shoe(table, SHOE)
    app.fix_next_shoe(table, SHOE)
    # Step by step: Ann TC 6D stands on 16? no: mimic hits 16 -> 2H = 18; Bob 5C 8D hits -> 9H = 22.
    rid = app.start_round(table)["round_id"]
    app.place_stake(rid, ann, 1000)
    app.place_stake(rid, bob, 1000)
    while not (rnd := app.get_round(rid)).ended:
        hand = rnd.current_turn()
        app.act(rid, mimic(rnd, hand)["action"], actor=rnd.hands[hand]["player"], hand=hand)
    stepwise = app.get_round(rid)

    batch = app.play_round(table, {ann: 1000, bob: 1000}, mimic)

    replayed = app.get_round(batch["round_id"])
    assert _kinds(app, batch["round_id"]) == _kinds(app, rid)
    assert {h: (x["cards"], x["result"]) for h, x in replayed.hands.items()} == {
        h: (x["cards"], x["result"]) for h, x in stepwise.hands.items()
    }
    assert replayed.ended and batch["phase"] == "ended"


def test_a_refused_decision_writes_nothing(app, fund):
    table, ann, bob = _casino(app, fund)
    app.fix_next_shoe(table, SHOE)
    stored = app.recorder.max_notification_id()

    with pytest.raises(OutOfTurn):
        app.play_round(
            table, {ann: 1000, bob: 1000}, lambda rnd, hand: {"action": "stand", "hand": "h2"}
        )

    assert app.recorder.max_notification_id() == stored
    assert app.get_table(table).current_round is None
