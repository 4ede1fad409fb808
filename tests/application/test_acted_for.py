"""A command given for someone else (``by``: an administrator acting for a player or the
dealer) carries the player's name in its events, as the rules check him, and a
``Round.ActedFor`` just before them names who really gave it."""

from __future__ import annotations

from uuid import UUID

import pytest

from ledger.domain.round import Round
from ledger.errors import InvalidCommand, StakeOutOfLimits, WrongPhase

FLOOR = "admin key 7d1c (floor manager)"
# Ann and the house, twice, then spares: Ann 10+8 stands, the house 9+7 draws the 5.
SHOE = ["TC", "9H", "8D", "7S", "5C", "KS", "KD", "KH", "KC"]


@pytest.fixture
def round_for_ann(app, fund):
    ann = fund("Ann")
    table = app.open_table("casino", {"insurance": False})["table_id"]
    app.seat_player(table, ann, 1)
    app.fix_next_shoe(table, SHOE)
    rid = app.start_round(table)["round_id"]
    return rid, ann


def _events(app, rid):
    return list(app.events.get(UUID(rid)))


def test_an_admins_stake_and_stand_for_a_player_name_him_as_the_giver(app, round_for_ann):
    rid, ann = round_for_ann
    app.place_stake(rid, ann, 200, actor=ann, by=FLOOR)
    app.act(rid, "stand", actor=ann, hand="h1", by=FLOOR)

    events = _events(app, rid)
    acted = [(i, e) for i, e in enumerate(events) if isinstance(e, Round.ActedFor)]
    assert [(e.by, e.actor, e.action) for _, e in acted] == [
        (FLOOR, ann, "stake"),
        (FLOOR, ann, "stand"),
    ]
    # Each stands right before the events of its command, which still carry Ann's name.
    after_stake, after_stand = (events[i + 1] for i, _ in acted)
    assert isinstance(after_stake, Round.StakePlaced) and after_stake.actor == ann
    assert isinstance(after_stand, Round.HandStood) and after_stand.actor == ann


def test_a_player_acting_for_himself_records_no_giver(app, round_for_ann):
    rid, ann = round_for_ann
    app.place_stake(rid, ann, 200)
    app.act(rid, "stand", actor=ann, hand="h1", by=ann)  # by is himself: nothing to add

    assert not [e for e in _events(app, rid) if isinstance(e, Round.ActedFor)]


def test_a_refused_command_given_for_a_player_writes_no_giver(app, round_for_ann, nothing_written):
    rid, ann = round_for_ann
    with nothing_written(), pytest.raises(WrongPhase):
        app.act(rid, "stand", actor=ann, hand="h1", by=FLOOR)  # stakes are still open
    with nothing_written(), pytest.raises(StakeOutOfLimits):
        app.place_stake(rid, ann, 10**9, actor=ann, by=FLOOR)  # more than the table allows


@pytest.mark.parametrize("by", ["", "   ", 7, "x" * 401])
def test_a_giver_that_names_no_one_is_refused(app, round_for_ann, nothing_written, by):
    rid, ann = round_for_ann
    with nothing_written(), pytest.raises(InvalidCommand, match="by names who gave"):
        app.place_stake(rid, ann, 200, actor=ann, by=by)
    with nothing_written(), pytest.raises(InvalidCommand, match="by names who gave"):
        app.act(rid, "stand", actor=ann, hand="h1", by=by)
