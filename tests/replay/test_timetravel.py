"""``python -m replay round ID --at N`` and ``table ID --at TIME``."""

from __future__ import annotations

import json
from datetime import timedelta
from uuid import UUID

import pytest
from replay_history import play_fixed_casino

from ledger.application import TwentyOneLedger
from ledger.domain.chain import project
from ledger.domain.table import Table
from ledger.simulate import Settings, play_round, setup_table
from ledger.simulate_tally import Tally
from replay.__main__ import main
from replay.timetravel import parse_time, round_at, state_of, table_at


@pytest.fixture
def stored(sqlite_file):
    env = sqlite_file[0]
    app = TwentyOneLedger(env=env)
    rid = play_fixed_casino(app)
    table = str(app.get_round(rid).table_id)
    app.close()
    return env, rid, table


def test_a_round_after_each_of_its_events(stored):
    env, rid, _ = stored
    app = TwentyOneLedger(env=env)
    try:
        events = list(app.events.get(UUID(rid)))
        first = round_at(app, rid, 1)
        now = round_at(app, rid)
        staked = next(e.originator_version for e in events if type(e).__name__ == "StakePlaced")
        at_stake = round_at(app, rid, staked)
    finally:
        app.close()

    assert first["version"] == 1 and first["phase"] == "started" and first["hands"] == {}
    assert first["events"] == len(events)
    assert now["version"] == len(events) and now["ended"] is True
    assert now["hands"]["h1"]["result"] == 1000
    assert at_stake["hands"]["h1"]["stake"] == 500 and at_stake["hands"]["h2"]["stake"] == 0


def test_the_round_command_in_text_and_json(stored, capsys):
    env, rid, _ = stored

    assert main(["round", rid, "--at", "3"], env=env) == 0
    text = capsys.readouterr().out
    assert f"round {rid}" in text and "after event 3 of" in text

    assert main(["round", rid, "--json"], env=env) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["id"] == rid and state["ended"] is True
    assert state["totals"]["h1"] == 21

    assert main(["round", "00000000-0000-0000-0000-000000000000"], env=env) == 1


def test_a_table_at_a_moment(stored, capsys):
    env, rid, table = stored
    app = TwentyOneLedger(env=env)
    try:
        events = list(app.events.get(UUID(table)))
        opened = next(e for e in events if type(e).__name__ == "RoundOpened")
        closed = next(e for e in events if type(e).__name__ == "RoundClosed")
        at_open = table_at(app, table, events[0].timestamp)
        in_play = table_at(app, table, opened.timestamp)
        after = table_at(app, table, closed.timestamp + timedelta(seconds=1))
    finally:
        app.close()

    assert at_open["seats"] == {} and at_open["round_in_play"] is None
    assert in_play["current_round"] == rid
    assert in_play["round_in_play"]["id"] == rid
    assert len(in_play["seats"]) == 2
    assert after["current_round"] is None and after["rounds"] == 1

    moment = opened.timestamp.isoformat().replace("+00:00", "Z")
    assert main(["table", table, "--at", moment], env=env) == 0
    assert f"round in play: {rid}" in capsys.readouterr().out
    assert main(["table", table, "--at", moment, "--json"], env=env) == 0
    assert json.loads(capsys.readouterr().out)["round_in_play"]["id"] == rid
    before = (events[0].timestamp - timedelta(days=1)).isoformat()
    assert main(["table", table, "--at", before], env=env) == 1
    assert main(["table", table, "--at", "yesterday"], env=env) == 2  # bad usage


def test_a_table_mid_round_shows_its_shoe_with_the_cards_the_round_has_drawn(stored, capsys):
    env, rid, table = stored
    app = TwentyOneLedger(env=env)
    try:
        split = next(e for e in app.events.get(UUID(rid)) if type(e).__name__ == "HandSplit")
        drawn = round_at(app, rid, split.originator_version)["shoe_next"]
        state = table_at(app, table, split.timestamp)
    finally:
        app.close()
    assert drawn >= 6  # the initial deal, at least
    assert state["shoe_next"] == 0  # the table's own record: as of its last round's close
    assert state["shoe_now"] == {"shoe_id": state["shoe_id"], "next_card": drawn}

    moment = split.timestamp.isoformat()
    assert main(["table", table, "--at", moment], env=env) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("  shoe:"))
    assert line.startswith(f"  shoe: {state['shoe_id']} (next card {drawn}, counting the cards")
    assert "the table's own record, next card 0" in line


def test_times_are_read_as_utc():
    assert parse_time("2025-01-31T12:00:00Z") == parse_time("2025-01-31T13:00:00+01:00")
    assert parse_time("2025-01-31T12:00:00").utcoffset() == timedelta(0)


def test_a_long_table_at_any_moment_is_its_prefix_rebuilt_from_a_snapshot(app):
    """Every moment gives the table exactly as its events up to then fold to, and reading
    one decodes a bisection's few events and what follows the snapshot, not the stream."""
    s = Settings(rounds=100, seed=3, players=1, strategy="mimic", one_command=True)
    table_id, view = setup_table(s, app)
    for _ in range(s.rounds):
        play_round(app, table_id, s, view, Tally())
    events = list(app.events.get(UUID(table_id)))
    interval = app.snapshotting_intervals[Table]
    assert len(events) > 3 * interval
    decoded = []
    decode = app.mapper.to_domain_event
    app.mapper.to_domain_event = lambda stored: decoded.append(stored) or decode(stored)

    for event in events[::7] + events[-1:]:
        decoded.clear()
        state = table_at(app, table_id, event.timestamp)
        expected = [e for e in events if e.timestamp <= event.timestamp]
        assert state["version"] == expected[-1].originator_version
        assert state == {**state_of(project(None, expected)), **_extra(state)}
        # The round in play: a bisection of its stream and a fold of at most its events.
        round_reads = 2 * len(events).bit_length() + 30
        assert len(decoded) < interval + 2 * len(events).bit_length() + round_reads


def _extra(state):
    return {
        "at": state["at"],
        "round_in_play": state["round_in_play"],
        "shoe_now": state["shoe_now"],
    }
