"""Tamper evidence: every stored event carries its predecessor's hash and a hash of its own
content, so ``verify_chain`` must name exactly the event that was edited, the place where one
was dropped, and the place where two were swapped.

The streams come from a real application that played rounds in two families; tampering is done
on copies of the stored events (any stream, any event, any field, drawn by hypothesis) and, once,
on a row of a real SQLite store.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.application import TwentyOneLedger
from ledger.config import store_env
from ledger.domain.chain import GENESIS, event_hash, verify_chain
from ledger.domain.player import Player

CHAIN_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def play_simple_round(app: TwentyOneLedger, table_id: str) -> str:
    """Minimum stakes, every hand stands, the dealer stands: a round that always ends."""
    table = app.get_table(table_id)
    rid = app.start_round(table_id, actor=table.dealer or "admin")["round_id"]
    for _ in range(100):
        rnd = app.get_round(rid)
        if rnd.ended:
            return rid
        if rnd.phase in ("betting", "staking"):
            hand = next(h for h in rnd.order if rnd.hands[h]["stake"] == 0)
            app.place_stake(rid, rnd.hands[hand]["player"], table.rules.min_stake)
        elif rnd.phase == "dealer_double":
            app.act(rid, "dealer_double", actor=rnd.dealer, called=False)
        elif rnd.phase == "play":
            hand = rnd.current_turn()
            app.act(rid, "stand", actor=rnd.hands[hand]["player"], hand=hand)
        elif rnd.phase == "dealer":
            app.act(rid, "dealer_stand", actor=rnd.dealer)
        else:
            raise AssertionError(f"unexpected phase {rnd.phase}")
    raise AssertionError("round did not end")


def populate(app: TwentyOneLedger, rounds: int = 3) -> None:
    players = []
    for name in ("Ann", "Bob", "Cy"):
        pid = app.register_player(name)["player_id"]
        app.deposit(pid, 1_000_000)
        app.deposit(pid, 500)
        players.append(pid)
    casino = app.open_table("casino", {"insurance": False, "decks": 1})["table_id"]
    vingt_un = app.open_table("vingt-un", {})["table_id"]
    for seat, pid in enumerate(players, start=1):
        app.seat_player(casino, pid, seat)
        app.seat_player(vingt_un, pid, seat)
    app.choose_dealer(vingt_un, players[0])
    for _ in range(rounds):
        play_simple_round(app, casino)
        play_simple_round(app, vingt_un)
    app.withdraw(players[1], 100)


@pytest.fixture(scope="module")
def streams() -> dict[UUID, list[Any]]:
    """Every stream of a played application: id -> its stored events, in order."""
    app = TwentyOneLedger(
        env={**store_env("memory", environ={}), "LEDGER_ALLOW_FIXED_SHOES": "true"}
    )
    try:
        populate(app)
        ids = []
        for notification in app.recorder.select_notifications(start=1, limit=10**6):
            if notification.originator_id not in ids:
                ids.append(notification.originator_id)
        return {i: list(app.events.get(i)) for i in ids}
    finally:
        app.close()


def where(event: Any) -> str:
    """How verify_chain names an event at the start of its report."""
    return f"{event.originator_id} v{event.originator_version} {type(event).__qualname__}:"


def changed(value: Any, data: Any) -> Any:
    """A different value of the same shape, as an editor of the store might write it."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + data.draw(st.sampled_from([-100, -1, 1, 7, 10**6]), label="delta")
    if isinstance(value, str):
        return data.draw(
            st.sampled_from([value + "0", value[:-1], value.upper() + "Z", ""]).filter(
                lambda v: v != value
            ),
            label="text",
        )
    if isinstance(value, UUID):
        return uuid4()
    if isinstance(value, datetime):
        return value + timedelta(microseconds=data.draw(st.integers(1, 10**6), label="later"))
    if isinstance(value, list):
        return [*value, "JK"] if not value or data.draw(st.booleans(), label="grow") else value[:-1]
    if isinstance(value, dict):
        return {**value, "forged": True}
    if value is None:
        return 0
    raise AssertionError(f"no way to change a {type(value).__name__}")


def test_every_stream_of_a_played_application_verifies(streams):
    assert len(streams) > 10
    kinds = {type(events[0]).__qualname__ for events in streams.values()}
    assert {"Player.Registered", "Table.Opened", "Round.Started", "Shoe.Committed"} <= kinds
    for events in streams.values():
        assert verify_chain(events) == (True, None)
        assert events[0].prev_hash == GENESIS
        for before, after in zip(events, events[1:]):
            assert after.prev_hash == before.hash


def transfer_in_the_middle(streams: dict[UUID, list[Any]]) -> tuple[list[Any], int]:
    for events in streams.values():
        for i, event in enumerate(events[1:-1], start=1):
            if isinstance(event, Player.FundsTransferred):
                return events, i
    raise AssertionError("no player stream with a transfer in the middle")


def test_an_altered_amount_is_reported_at_exactly_that_event(streams):
    events, i = transfer_in_the_middle(streams)
    forged = dataclasses.replace(events[i], amount=events[i].amount + 1)
    tampered = events[:i] + [forged] + events[i + 1 :]

    ok, fault = verify_chain(tampered)

    assert not ok
    assert fault == f"{where(events[i])[:-1]}: content does not match its hash"
    assert verify_chain(tampered[:i]) == (True, None)


def test_a_forger_who_rehashes_the_altered_event_is_caught_by_the_next_one(streams):
    events, i = transfer_in_the_middle(streams)
    forged = dataclasses.replace(events[i], amount=events[i].amount * 10)
    fields = {k: v for k, v in vars(forged).items()}
    forged = dataclasses.replace(forged, hash=event_hash(type(forged).__qualname__, fields))
    assert verify_chain(events[:i] + [forged]) == (True, None)  # alone it looks honest

    ok, fault = verify_chain(events[:i] + [forged] + events[i + 1 :])

    assert not ok
    assert fault.startswith(where(events[i + 1]))
    assert "prev_hash does not match" in fault


def test_a_dropped_event_is_reported_as_a_version_gap(streams):
    events, i = transfer_in_the_middle(streams)

    ok, fault = verify_chain(events[:i] + events[i + 1 :])

    assert not ok
    assert fault.startswith(where(events[i + 1]))
    assert f"version gap (expected v{events[i].originator_version})" in fault


def test_two_swapped_events_are_reported_where_the_order_breaks(streams):
    events, i = transfer_in_the_middle(streams)
    swapped = events[:i] + [events[i + 1], events[i]] + events[i + 2 :]

    ok, fault = verify_chain(swapped)

    assert not ok
    assert fault.startswith(where(events[i + 1]))
    assert "version gap" in fault


@CHAIN_SETTINGS
@given(data=st.data())
def test_any_edit_of_any_stored_event_is_reported_at_that_event(streams, data):
    stream = data.draw(st.sampled_from(sorted(streams, key=str)), label="stream")
    events = streams[stream]
    i = data.draw(st.integers(0, len(events) - 1), label="event")
    original = events[i]
    name = data.draw(st.sampled_from(sorted(vars(original))), label="field")
    value = changed(getattr(original, name), data)
    forged = dataclasses.replace(original, **{name: value})
    tampered = events[:i] + [forged] + events[i + 1 :]

    ok, fault = verify_chain(tampered)

    assert not ok, f"editing {name} of {where(original)} went unnoticed"
    assert fault.startswith(where(forged)), fault
    assert verify_chain(tampered[:i]) == (True, None)


@CHAIN_SETTINGS
@given(data=st.data())
def test_any_dropped_or_reordered_event_is_reported(streams, data):
    candidates = sorted((s for s in streams if len(streams[s]) >= 3), key=str)
    events = streams[data.draw(st.sampled_from(candidates), label="stream")]
    i = data.draw(st.integers(0, len(events) - 2), label="first")
    if data.draw(st.booleans(), label="drop?"):
        tampered = events[:i] + events[i + 1 :]  # (the last event alone is never dropped here)
    else:
        j = data.draw(st.integers(i + 1, len(events) - 1), label="second")
        tampered = [*events]
        tampered[i], tampered[j] = tampered[j], tampered[i]

    ok, fault = verify_chain(tampered)

    assert not ok
    assert fault.startswith(where(tampered[i])), fault
    assert verify_chain(tampered[:i]) == (True, None)


def test_an_edited_row_in_a_real_sqlite_store_is_reported_at_that_event(tmp_path):
    path = tmp_path / "ledger.sqlite3"
    env = {
        **store_env("sqlite", sqlite_path=str(path), environ={}),
        "LEDGER_ALLOW_FIXED_SHOES": "true",
    }
    app = TwentyOneLedger(env=env)
    try:
        populate(app, rounds=1)
        pid = UUID(app.register_player("Dee")["player_id"])
        for amount in (100, 200, 300):
            app.deposit(str(pid), amount)
        assert verify_chain(app.events.get(pid)) == (True, None)
        recorder_table = app.recorder.events_table_name
    finally:
        app.close()

    where_row = f"FROM {recorder_table} WHERE originator_id = ? AND originator_version = 3"
    db = sqlite3.connect(path)
    try:
        (state,) = db.execute(f"SELECT state {where_row}", (pid.hex,)).fetchone()
        fields = json.loads(state)
        assert fields["amount"] == 200
        fields["amount"] = 20_000
        forged = json.dumps(fields, separators=(",", ":")).encode()
        db.execute(
            f"UPDATE {recorder_table} SET state = ? WHERE originator_id = ? "
            "AND originator_version = 3",
            (forged, pid.hex),
        )
        db.commit()
    finally:
        db.close()

    reopened = TwentyOneLedger(env=env)
    try:
        events = list(reopened.events.get(pid))
        assert events[2].amount == 20_000  # the edit is what the store now says
        ok, fault = verify_chain(events)
        assert not ok
        assert fault == f"{pid} v3 Player.FundsTransferred: content does not match its hash"
        assert verify_chain(events[:2]) == (True, None)
    finally:
        reopened.close()
