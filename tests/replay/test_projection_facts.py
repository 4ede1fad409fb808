"""The projectors' facts (``replay/projections/facts.py``) say what the mapper says.

``FactDecoder`` reads most events straight from their stored JSON with orjson, skipping
eventsourcing's mapper, and falls back to the mapper for anything it cannot read exactly as
the mapper would (a compressor, an upcast class version, a value type it does not know). Every
read model, the audit trail and the export rest on that shortcut being invisible, so here the
fast path is held to the mapper on a real history of all four families, on hand-made events
for the cases that history never stores, and on the views a rebuild makes either way.
"""

from __future__ import annotations

import json
from datetime import date
from types import SimpleNamespace
from typing import Any
from uuid import uuid4

import orjson
import pytest
from eventsourcing.persistence import (
    DatetimeAsISO,
    DecimalAsStr,
    JSONTranscoder,
    Mapper,
    StoredEvent,
    Transcoding,
    UUIDAsHex,
)
from eventsourcing.utils import get_topic
from test_projections import event_log, play_history, snapshot

from ledger.application import TwentyOneLedger
from ledger.balances import fold_balances
from ledger.domain.round import Round
from replay.damage import StoreDamaged
from replay.event_rows import page_reader
from replay.projections import open_projections
from replay.projections import queries as q
from replay.projections.facts import FactDecoder, plain, unwrap

ZLIB = {"COMPRESSOR_TOPIC": "eventsourcing.compressor:ZlibCompressor"}
STAKE = get_topic(Round.StakePlaced)
WHEN = "2024-05-01T12:30:00.123456+00:00"


def mapped(mapper: Any, n: Any) -> dict[str, Any]:
    """The yardstick: the event as the mapper decodes it, every value made plain."""
    return {k: plain(v) for k, v in vars(mapper.to_domain_event(n)).items()}


def is_plain_json(fields: dict[str, Any]) -> bool:
    """No UUID, datetime or tuple left (the standard library's json refuses the first two)."""
    return json.loads(json.dumps(fields)) == fields


# -- a real history, on every store --------------------------------------------------------


def test_every_fact_is_the_mappers_event_made_plain(projected):
    app, _, _ = projected
    decode = FactDecoder(app.mapper)
    assert decode.fast
    log = event_log(app)
    wrapped = {n.state.count(b'"_type_"') for n, _ in log}
    assert 1 in wrapped and max(wrapped) > 1, "both fast routes: the time alone, and more"
    for n, event in log:
        fact = decode(n)
        assert type(fact).__qualname__ == type(event).__qualname__
        assert vars(fact) == mapped(app.mapper, n), (n.id, n.topic)
        assert fact.originator_id == str(n.originator_id) and is_plain_json(vars(fact))


def test_the_stored_json_unwrapped_is_the_mappers_event_made_plain(projected):
    app, _, _ = projected
    decode = FactDecoder(app.mapper)
    log = event_log(app)
    assert log, "a history to check"
    for n, _ in log:
        assert decode.stored_json(n) == n.state  # the recorded bytes, not encoded again
        fields = unwrap(orjson.loads(decode.stored_json(n)))
        envelope = {
            "originator_id": str(n.originator_id),
            "originator_version": n.originator_version,
        }
        assert fields | envelope == mapped(app.mapper, n), (n.id, n.topic)


@pytest.mark.parametrize("store_env", ["memory", "sqlite"], indirect=True)
def test_a_compressed_store_is_read_by_the_mapper_into_the_same_facts(store_env):
    env = {**store_env, **ZLIB}
    app = TwentyOneLedger(env=env)
    proj = open_projections(app, env)
    try:
        play_history(app, rounds=1)
        decode = FactDecoder(app.mapper)
        assert not decode.fast
        log = event_log(app)
        assert log, "a history to check"
        for n, event in log:
            assert not n.state.startswith(b"{"), "stored compressed"
            fact = decode(n)
            assert type(fact).__qualname__ == type(event).__qualname__
            assert vars(fact) == mapped(app.mapper, n) == orjson.loads(decode.stored_json(n))
        proj.catch_up()
        assert dict(proj.views.read("SELECT account, balance FROM view_accounts")) == (
            fold_balances(app)
        )
    finally:
        proj.close()
        app.close()


def views(proj: Any) -> tuple[dict, dict]:
    """Every view's rows, the audit trail as its readers see it: the fast path keeps each
    event's stored JSON (times and UUIDs wrapped), the mapper's path plain JSON."""
    rids = [rid for (rid,) in proj.views.read("SELECT round_id FROM view_audit_trail")]
    trails = {rid: q.round_trail(proj.views, rid) for rid in rids}
    return snapshot(proj, exclude=frozenset({"view_audit_trail"})), trails


def test_views_rebuilt_through_the_mapper_are_the_views_read_from_stored_json(live, store_env):
    app, proj = live
    play_history(app, rounds=1)
    proj.catch_up()
    slow = open_projections(app, store_env)
    slow.decode.fast = False  # as with a compressor: every event through the mapper
    try:
        slow.rebuild()
        assert views(slow) == views(proj)
        assert views(proj)[1], "rounds with trails were compared"
    finally:
        slow.close()


# -- hand-made events ----------------------------------------------------------------------


class RecordingMapper(Mapper):
    """The mapper an application makes, noting each event it is asked to decode."""

    def __init__(self) -> None:
        transcoder = JSONTranscoder()
        for transcoding in (UUIDAsHex(), DecimalAsStr(), DatetimeAsISO(), DateAsISO()):
            transcoder.register(transcoding)
        super().__init__(transcoder)
        self.decoded: list[Any] = []

    def to_domain_event(self, stored: Any) -> Any:
        self.decoded.append(stored)
        return super().to_domain_event(stored)


class DateAsISO(Transcoding):
    """A transcoding the mapper knows and the fast path does not."""

    type = date
    name = "date_iso"

    def encode(self, obj: date) -> str:
        return obj.isoformat()

    def decode(self, data: str) -> date:
        return date.fromisoformat(data)


class StakePlacedV2(Round.StakePlaced):
    """An event class whose stored version 1 the mapper upcasts."""

    class_version = 2

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        state["note"] = "upcast"


def wrap(kind: str, data: str) -> dict[str, str]:
    return {"_type_": kind, "_data_": data}


# What a Round.StakePlaced records besides its time and amount: the decoder holds every event to
# its class (replay.event_shape), so the values these tests vary go in fields it does not record.
STAKE_FIELDS = {
    "hand": "h1", "player": "p1", "seat": 1, "held": 100, "clause": "CB-1", "actor": "dealer",
    "prev_hash": "0" * 64, "hash": "1" * 64,
}  # fmt: skip


def stored(fields: dict[str, Any], topic: str = STAKE) -> SimpleNamespace:
    state = orjson.dumps(
        {"timestamp": wrap("datetime_iso", WHEN), "amount": 100, **STAKE_FIELDS, **fields}
    )
    return SimpleNamespace(
        id=7, topic=topic, state=state, originator_id=uuid4(), originator_version=3
    )


def test_nested_uuids_and_times_are_unwrapped_without_the_mapper():
    a, b = uuid4(), uuid4()
    nested = {"by": wrap("uuid_hex", b.hex), "at": wrap("datetime_iso", WHEN)}
    n = stored({"seen": [wrap("uuid_hex", a.hex), nested]})
    decode = FactDecoder(mapper := RecordingMapper())
    fact = decode(n)
    assert mapper.decoded == []
    assert vars(fact) == {
        "timestamp": WHEN, "amount": 100, **STAKE_FIELDS,
        "seen": [str(a), {"by": str(b), "at": WHEN}],
        "originator_id": str(n.originator_id), "originator_version": 3,
    }  # fmt: skip
    assert type(fact).__qualname__ == "Round.StakePlaced"
    assert vars(fact) == mapped(RecordingMapper(), n)
    assert unwrap(orjson.loads(decode.stored_json(n))) == {
        k: v for k, v in vars(fact).items() if not k.startswith("originator_")
    }


@pytest.mark.parametrize(
    ("fields", "topic"),
    [
        ({"memo": {"deep": [wrap("date_iso", "2024-05-01")]}}, STAKE),  # a type it does not know
        ({"class_version": 1}, STAKE),  # stored by another class version
        ({}, get_topic(StakePlacedV2)),  # a class the mapper upcasts
    ],
    ids=["unknown-type", "class-version-stored", "class-version-2"],
)
def test_what_the_fast_path_cannot_read_exactly_goes_to_the_mapper(fields, topic):
    n = stored(fields, topic)
    decode = FactDecoder(mapper := RecordingMapper())
    fact = decode(n)
    assert mapper.decoded == [n]
    assert vars(fact) == mapped(RecordingMapper(), n)
    assert fact.timestamp == WHEN and fact.originator_id == str(n.originator_id)
    assert "class_version" not in vars(fact)
    if topic != STAKE:
        assert fact.note == "upcast" and type(fact).__qualname__ == "StakePlacedV2"


def test_a_decimal_is_its_exact_text_on_either_path():
    n = stored({"rate": wrap("decimal_str", "1.50")})
    decode = FactDecoder(mapper := RecordingMapper())
    fact = decode(n)
    assert mapper.decoded == [] and fact.rate == "1.50" and is_plain_json(vars(fact))
    assert vars(fact) == mapped(RecordingMapper(), n)
    assert unwrap(orjson.loads(decode.stored_json(n)))["rate"] == "1.50"


@pytest.mark.parametrize(
    ("fields", "topic"),
    [
        ({}, STAKE),  # read from its stored JSON
        ({"memo": wrap("date_iso", "2024-05-01")}, STAKE),  # by the mapper
    ],
    ids=["stored-json", "mapper"],
)
@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"hand": None}, "no hand"),
        ({"timestamp": None}, "no timestamp"),
        ({"seat": "1"}, "seat is str, not int"),
        ({"held": True}, "held is bool, not int"),  # JSON tells a bool from a number
    ],
)
def test_an_event_not_of_its_classs_shape_is_named_whichever_way_it_is_read(
    fields, topic, change, says
):
    n = stored(fields, topic)
    state = orjson.loads(n.state)
    for name, value in change.items():
        if value is None:
            del state[name]
        else:
            state[name] = value
    n.state = orjson.dumps(state)
    decode = FactDecoder(RecordingMapper())

    for read in (decode, decode.check):  # decoded, or only copied (the audit trail)
        with pytest.raises(StoreDamaged) as caught:
            read(n)
        assert f"was altered: its fields are not what was recorded ({says})" in str(caught.value)
        assert (caught.value.position, caught.value.version) == (7, 3)


# -- the rows the projectors read (replay/event_rows.py) ----------------------------------------


def test_the_page_reader_gives_the_recorders_notifications_with_text_stream_ids(projected):
    app, _, _ = projected
    read = page_reader(app.recorder)
    head = app.recorder.max_notification_id()
    notes = app.recorder.select_notifications(start=1, limit=head)
    rows = read(1, head, head)
    assert len(rows) == len(notes) == head
    for row, n in zip(rows, notes):
        assert type(row.originator_id) is str
        assert row == (n.id, str(n.originator_id), n.originator_version, n.topic, n.state)
        assert vars(FactDecoder(app.mapper)(row)) == vars(FactDecoder(app.mapper)(n))


def test_the_page_reader_keeps_to_its_start_limit_and_stop(projected):
    app, _, _ = projected
    read = page_reader(app.recorder)
    head = app.recorder.max_notification_id()
    assert [r.id for r in read(3, 4, head)] == [3, 4, 5, 6]
    assert [r.id for r in read(3, 100, 5)] == [3, 4, 5]
    assert read(head + 1, 10, head + 5) == []


@pytest.mark.parametrize("store_env", ["sqlite"], indirect=True)
def test_the_sqlite_page_reader_spells_every_stored_uuid_as_the_recorder_reads_it(store_env):
    app = TwentyOneLedger(env=store_env)
    try:
        oid = uuid4()
        spellings = [oid, str(oid).upper(), "{" + str(oid) + "}"]  # what a UUID column may hold
        app.recorder.insert_events(
            [StoredEvent(id_, 1, STAKE, b"{}") for id_ in spellings[1:]]
            + [StoredEvent(oid, 2, STAKE, b"{}")]
        )
        head = app.recorder.max_notification_id()
        rows = page_reader(app.recorder)(1, head, head)
        notes = app.recorder.select_notifications(start=1, limit=head)
        assert [r.originator_id for r in rows] == [str(n.originator_id) for n in notes]
        assert {r.originator_id for r in rows} == {str(oid)}
    finally:
        app.close()
