"""A command given by someone other than its actor (``app.given_by``: an administrator's key,
as the API sets it, or an operator's script) keeps the actor in its events, as the rules
check him, and closes its events in each stream it wrote with an ``ActedFor`` naming the
giver and the first version it covers."""

from __future__ import annotations

from uuid import UUID

import pytest

from ledger.domain.player import Player
from ledger.domain.round import Round
from ledger.domain.table import Table
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


def _events(app, stream):
    return list(app.events.get(UUID(str(stream))))


def _acted(events):
    return [e for e in events if type(e).__name__ == "ActedFor"]


def test_an_admins_stake_and_stand_for_a_player_close_their_events_with_the_giver(
    app, round_for_ann
):
    rid, ann = round_for_ann
    with app.given_by(FLOOR):
        app.place_stake(rid, ann, 200, actor=ann)
        app.act(rid, "stand", actor=ann, hand="h1")

    events = _events(app, rid)
    acted = _acted(events)
    assert [(e.by, e.actor, e.action) for e in acted] == [
        (FLOOR, ann, "place_stake"),
        (FLOOR, ann, "stand"),
    ]
    assert all(isinstance(e, Round.ActedFor) for e in acted)
    # Each covers its command's events, from its first_version to the event before it, which
    # still carry Ann's name.
    stake = events[acted[0].first_version - 1 : acted[0].originator_version - 1]
    assert [type(e).__name__ for e in stake][:1] == ["StakePlaced"] and stake[0].actor == ann
    stand = events[acted[1].first_version - 1 : acted[1].originator_version - 1]
    assert type(stand[0]).__name__ == "HandStood" and stand[0].actor == ann
    assert acted[1].first_version == acted[0].originator_version + 1  # nothing in between
    # Ann's wallet, which her stake debited, says it too.
    (wallet,) = _acted(_events(app, ann))
    assert isinstance(wallet, Player.ActedFor) and wallet.action == "place_stake"


def test_an_operators_deposit_and_seating_name_the_key_that_gave_them(app, fund):
    ann = fund("Ann", 0)
    table = app.open_table("casino", {})["table_id"]
    with app.given_by(FLOOR):
        app.deposit(ann, 5_000)  # actor "admin": the key is what tells one admin from another
        app.seat_player(table, ann, 1)

    (deposit,) = _acted(_events(app, ann))
    assert (deposit.by, deposit.actor, deposit.action) == (FLOOR, "admin", "deposit")
    (seating,) = _acted(_events(app, table))
    assert isinstance(seating, Table.ActedFor) and seating.action == "seat_player"
    assert seating.first_version == seating.originator_version - 1  # the PlayerSeated


def test_commands_outside_the_context_or_by_their_own_actor_record_no_giver(app, round_for_ann):
    rid, ann = round_for_ann
    app.place_stake(rid, ann, 200)
    with app.given_by(ann):  # given by the actor himself: nothing to add
        app.act(rid, "stand", actor=ann, hand="h1")

    assert _acted(_events(app, rid)) == [] and _acted(_events(app, ann)) == []


def test_a_refused_command_given_for_a_player_writes_nothing(app, round_for_ann, nothing_written):
    rid, ann = round_for_ann
    with app.given_by(FLOOR):
        with nothing_written(), pytest.raises(WrongPhase):
            app.act(rid, "stand", actor=ann, hand="h1")  # stakes are still open
        with nothing_written(), pytest.raises(StakeOutOfLimits):
            app.place_stake(rid, ann, 10**9, actor=ann)  # more than the table allows


@pytest.mark.parametrize("by", ["", "   ", 7, "x" * 401])
def test_a_giver_that_names_no_one_is_refused(app, by):
    with pytest.raises(InvalidCommand, match="by names who gave"):
        with app.given_by(by):
            pass
