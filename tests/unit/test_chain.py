"""The hash chain: each event commits to its content and to its predecessor."""

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from ledger.domain.chain import (
    GENESIS,
    ChainedAggregate,
    event_hash,
    hash_matches,
    verify_chain,
)
from ledger.domain.player import Player
from ledger.domain.transfers import record_transfer


def _player_with_history():
    player = Player.register(name="Ann", actor="admin")
    record_transfer(player, "cashier", player.account, 500, "L-BUY-IN", "buy-in")
    record_transfer(player, player.account, "cashier", 200, "L-CASH-OUT", "cash-out")
    return player, list(player.pending_events)


def test_a_fresh_stream_verifies_and_starts_from_genesis():
    player, events = _player_with_history()

    assert verify_chain(events) == (True, None)
    assert events[0].prev_hash == GENESIS
    assert events[1].prev_hash == events[0].hash
    assert player.last_hash == events[-1].hash


def test_an_edited_amount_is_named():
    _, events = _player_with_history()
    forged = dataclasses.replace(events[1], amount=5000)

    ok, fault = verify_chain([events[0], forged, events[2]])

    assert not ok
    assert "v2" in fault and "hash" in fault


def test_a_dropped_event_breaks_the_chain_at_the_next_one():
    _, events = _player_with_history()

    ok, fault = verify_chain([events[0], events[2]])

    assert not ok
    assert "v3" in fault


def test_the_hash_covers_the_event_type():
    _, events = _player_with_history()
    fields = dict(vars(events[1]))

    assert event_hash("Player.FundsTransferred", fields) == events[1].hash
    assert event_hash("Round.FundsTransferred", fields) != events[1].hash


def test_the_fast_canonical_encoding_equals_the_standard_librarys():
    from datetime import UTC, datetime
    from uuid import uuid4

    from ledger.domain.chain import canonical, canonical_reference

    fields = {
        "z": [1, "Очко", {"b": uuid4(), "a": None}],
        "a": datetime(2026, 1, 1, tzinfo=UTC),
        "m": datetime.now(UTC),
        "é": True,
        "n": -205,
    }

    assert canonical(fields) == canonical_reference(fields)


def test_an_integer_beyond_64_bits_is_encoded_by_the_recipe_not_refused():
    """No command writes one, but a damaged or forged stored event may hold it: its hash must
    still be computable the documented way, so verify can name the event."""
    from ledger.domain.chain import canonical, canonical_reference

    fields = {"amount": 10**20, "debit": "player:x", "at": [-(2**70), 1]}

    assert (
        canonical(fields)
        == canonical_reference(fields)
        == (b'{"amount":100000000000000000000,"at":[-1180591620717411303424,1],"debit":"player:x"}')
    )


def test_no_chained_aggregate_names_its_topic():
    """``ChainedAggregate.trigger_event`` leaves out the library's check of an explicit
    ``TOPIC``: it holds only while no aggregate has one."""
    import ledger.application  # noqa: F401  (every aggregate class defined)
    from ledger.domain.chain import ChainedAggregate

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    aggregates = list(subclasses(ChainedAggregate))
    assert len(aggregates) >= 4
    assert [cls for cls in aggregates if getattr(cls, "TOPIC", None)] == []


def test_an_event_keeps_a_timestamp_given_and_hashes_it_but_never_takes_the_chains_fields():
    player = Player.register(name="Ann", actor="admin")
    when = datetime(2000, 1, 1, tzinfo=UTC)
    fields = {"from_account": "cashier", "to_account": player.account, "amount": 5}
    fields |= {"clause": "L-BUY-IN", "memo": "buy-in", "round_id": ""}
    player.trigger_event(Player.FundsTransferred, timestamp=when, **fields)
    event = player.pending_events[-1]
    assert event.timestamp == when
    assert verify_chain(player.pending_events) == (True, None)
    for name, value in (("hash", "0" * 64), ("prev_hash", GENESIS), ("originator_version", 9)):
        with pytest.raises(TypeError, match=name):
            player.trigger_event(Player.FundsTransferred, **fields, **{name: value})
    assert player.pending_events[-1] is event, "a refused event is not recorded"


def test_a_streams_times_never_go_back_when_this_clock_is_behind_the_last_writers():
    """Another server with a clock ahead wrote the stream's last event: the next event made
    here takes that time rather than an earlier one, so ``table --at`` may bisect a stream."""
    player = Player.register(name="Ann", actor="admin")
    ahead = datetime.now(UTC) + timedelta(minutes=5)
    fields = {"from_account": "cashier", "to_account": player.account, "amount": 5}
    fields |= {"clause": "L-BUY-IN", "memo": "buy-in", "round_id": ""}
    player.trigger_event(Player.FundsTransferred, timestamp=ahead, **fields)
    player.trigger_event(Player.FundsTransferred, **fields)
    later = player.pending_events[-1]
    assert later.timestamp == ahead
    assert verify_chain(player.pending_events) == (True, None)


class _Defaulted(ChainedAggregate):
    """An aggregate whose events leave fields to their class defaults, as an old event
    class's newer field does (``Round.HoldAdjusted.to_hand``)."""

    class Opened(ChainedAggregate.Created):
        name: str
        note: str = "none"

    class Noted(ChainedAggregate.Event):
        text: str
        to_hand: str = ""

        def apply(self, aggregate):
            aggregate.text = self.text


def test_a_field_left_to_its_class_default_is_hashed_as_stored():
    aggregate = _Defaulted._create(_Defaulted.Opened, name="t")
    aggregate.trigger_event(_Defaulted.Noted, text="x")
    events = list(aggregate.pending_events)

    assert [vars(e).get("note", vars(e).get("to_hand")) for e in events] == ["none", ""]
    assert verify_chain(events) == (True, None)


def test_no_event_class_makes_a_default_by_factory():
    """``_with_defaults`` copies plain defaults; a factory's value would be made anew each time,
    and a field the constructor does not take (``init=False``) would be set after the hash."""
    import ledger.application  # noqa: F401  (every aggregate class defined)

    def classes(root):
        for sub in root.__subclasses__():
            yield sub
            yield from classes(sub)

    factories = [
        (cls.__qualname__, f.name)
        for cls in classes(ChainedAggregate.Event)
        if dataclasses.is_dataclass(cls)
        for f in dataclasses.fields(cls)
        if f.default_factory is not dataclasses.MISSING or not f.init
    ]
    assert len(list(classes(ChainedAggregate.Event))) > 20
    assert factories == [], "a field the caller does not give is not hashed"


def test_a_dealer_divisions_hold_hashed_without_its_default_to_hand_still_verifies():
    """Stores written before ``_with_defaults`` hold such events: same fact, older hash."""
    content = {
        "hand": "h1",
        "amount": 100,
        "clause": "VU-21",
        "memo": "the dealer divided his pair",
        "originator_id": "2f1c0e4e-0000-4000-8000-000000000001",
        "originator_version": 7,
        "timestamp": datetime(2026, 11, 1, tzinfo=UTC),
        "prev_hash": GENESIS,
    }
    stored = {**content, "to_hand": "", "hash": event_hash("Round.HoldAdjusted", content)}

    assert hash_matches("Round.HoldAdjusted", stored)
    assert not hash_matches("Round.HoldAdjusted", {**stored, "to_hand": "h2"})
    assert not hash_matches("Round.HoldAdjusted", {**stored, "amount": 101})
    assert not hash_matches("Round.StakePlaced", {**stored, "to_hand": ""})


def test_an_event_made_from_its_fields_is_the_one_its_constructor_makes():
    """``trigger_event`` makes an event straight from its fields (``_event``) when they are
    exactly its class's; the result must be the constructor's, field for field."""
    player, events = _player_with_history()
    for event in events[1:]:
        made = type(event)(**vars(event))
        assert type(made) is type(event) and made == event and vars(made) == vars(event)
    assert {type(e).__qualname__ for e in events[1:]} == {"Player.FundsTransferred"}


@pytest.mark.parametrize("change", ["missing", "extra"])
def test_an_event_given_the_wrong_fields_is_refused_by_its_constructor(change):
    aggregate = _Defaulted._create(_Defaulted.Opened, name="t")
    fields = {"text": "x"} if change == "extra" else {}
    if change == "extra":
        fields["colour"] = "red"
    before = list(aggregate.pending_events)

    with pytest.raises(TypeError, match="Can't construct event"):
        aggregate.trigger_event(_Defaulted.Noted, **fields)
    assert list(aggregate.pending_events) == before and aggregate.version == 1


def test_an_event_is_applied_only_to_its_own_aggregate_at_the_next_version():
    """``ChainedAggregate.Event.mutate`` keeps eventsourcing's checks: an event of another
    aggregate, or out of sequence, is refused before it changes anything."""
    from eventsourcing.domain import OriginatorIDError, OriginatorVersionError

    one = _Defaulted._create(_Defaulted.Opened, name="one")
    other = _Defaulted._create(_Defaulted.Opened, name="other")
    one.trigger_event(_Defaulted.Noted, text="first")
    one.trigger_event(_Defaulted.Noted, text="second")
    first, second = one.pending_events[1:]
    state = dict(vars(other))

    with pytest.raises(OriginatorIDError):
        first.mutate(other)
    assert vars(other) == state

    copy = _Defaulted._create(_Defaulted.Opened, id=one.id, name="one")
    with pytest.raises(OriginatorVersionError):
        second.mutate(copy)  # v3 onto v1
    assert not hasattr(copy, "text") and copy.version == 1

    assert first.mutate(copy) is copy
    assert (copy.text, copy.version, copy.modified_on, copy.last_hash) == (
        "first",
        2,
        first.timestamp,
        first.hash,
    )
    with pytest.raises(TypeError, match="needs an aggregate"):
        second.mutate(None)


class _Checked(ChainedAggregate):
    """An aggregate whose event checks its own fields after they are set."""

    class Opened(ChainedAggregate.Created):
        name: str

    class Paid(ChainedAggregate.Event):
        amount: int

        def __post_init__(self):
            super().__post_init__()
            if self.amount < 0:
                raise ValueError("a payment is not negative")

        def apply(self, aggregate):
            aggregate.paid = self.amount


def test_an_event_class_with_checks_of_its_own_is_always_made_by_its_constructor():
    aggregate = _Checked._create(_Checked.Opened, name="t")
    aggregate.trigger_event(_Checked.Paid, amount=5)

    with pytest.raises(ValueError, match="not negative"):
        aggregate.trigger_event(_Checked.Paid, amount=-5)
    assert (aggregate.version, aggregate.paid, len(aggregate.pending_events)) == (2, 5, 2)


@pytest.mark.parametrize("family", ["casino", "vingt-un", "hoyle-1913", "ochko"])
def test_every_event_is_stored_as_its_constructor_would_make_it(family):
    """Events made straight from their fields (``_event``) are stored byte for byte as the
    constructor's would be: the same fields, in the same order, every class a round uses."""
    from ledger.application import TwentyOneLedger
    from ledger.config import store_env
    from ledger.simulate import Settings, run

    app = TwentyOneLedger(env=store_env("memory", environ={}))
    try:
        run(Settings(family=family, rounds=30, seed=8, players=2, one_command=True), app)
        stored = app.recorder.select_notifications(start=1, limit=10**6)
        kinds = set()
        for record in stored:
            event = app.mapper.to_domain_event(record)
            made = type(event)(**vars(event))
            assert app.mapper.to_stored_event(made).state == record.state, record.topic
            kinds.add(record.topic)
    finally:
        app.close()
    assert len(kinds) >= 12
