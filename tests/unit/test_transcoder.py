"""The orjson transcoder writes exactly the library's bytes, and raises the library's errors."""

import enum
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from typing import NamedTuple
from uuid import UUID, uuid4

import pytest
from eventsourcing.persistence import (
    DatetimeAsISO,
    DecimalAsStr,
    JSONTranscoder,
    Transcoding,
    TranscodingNotRegisteredError,
    UUIDAsHex,
)
from hypothesis import given
from hypothesis import strategies as st

from ledger.application import TwentyOneLedger
from ledger.config import store_env
from ledger.transcoder import OrjsonTranscoder


def _pair() -> tuple[JSONTranscoder, OrjsonTranscoder]:
    library, fast = JSONTranscoder(), OrjsonTranscoder()
    for transcoder in (library, fast):
        for transcoding in (UUIDAsHex(), DecimalAsStr(), DatetimeAsISO()):
            transcoder.register(transcoding)
    return library, fast


class Suit(str, enum.Enum):
    HEARTS = "H"


SAME_BYTES = [
    {},
    {"timestamp": datetime(2026, 1, 1, tzinfo=UTC), "hash": "ab" * 32, "n": -205},
    {"t": datetime(999, 12, 31, 23, 59, 59, 1, tzinfo=UTC), "u": datetime.now(UTC)},
    # Not UTC, or naive: written by the transcoding (isoformat), not by orjson.
    {"t": datetime(2026, 5, 1, 12, tzinfo=timezone(timedelta(hours=5, minutes=30)))},
    {"t": datetime(2026, 5, 1, 12)},
    {"id": uuid4(), "ids": [uuid4(), (uuid4(), {"deep": [uuid4()]})], "d": Decimal("1.50")},
    {"text": 'Очко \x00\x1f"\\\n\t\u2028 \U0001f0a1', "flags": [True, False, None]},
    # Left to the library: a float, a 65-bit integer, a key that is not text, an enum.
    {"x": 0.1, "big": 1e16},
    {"amount": 2**64},
    {"by_seat": {1: "a"}},
    {"suit": Suit.HEARTS},
]


class Point(NamedTuple):
    x: int


class AsCode(Transcoding):
    """A transcoding registered for a subclass of a JSON type, which the library never uses."""

    def __init__(self, kind: type, name: str) -> None:
        self.type, self.name = kind, name

    def encode(self, obj):
        return str(obj)

    def decode(self, data):
        return data


def test_a_json_subclass_is_written_plainly_even_with_a_transcoding_registered_for_it():
    library, fast = _pair()
    for transcoder in (library, fast):
        transcoder.register(AsCode(Suit, "suit"))
        transcoder.register(AsCode(Point, "point"))
    state = {"suit": Suit.HEARTS, "at": Point(1), "both": [Point(2), Suit.HEARTS]}
    assert fast.encode(state) == library.encode(state) == b'{"suit":"H","at":[1],"both":[[2],"H"]}'


class DatetimeAsEpoch(Transcoding):
    """Another transcoding for times: a UTC timestamp must then not be left to orjson."""

    type, name = datetime, "epoch"

    def encode(self, obj):
        return obj.timestamp()

    def decode(self, data):
        return datetime.fromtimestamp(data, UTC)


def test_a_time_is_written_by_whichever_transcoding_was_registered_last():
    library, fast = _pair()
    state = {
        "timestamp": datetime(2026, 1, 1, tzinfo=UTC),
        "at": [datetime(2026, 1, 2, tzinfo=UTC)],
    }
    assert fast.encode(state) == library.encode(state)
    for transcoder in (library, fast):
        transcoder.register(DatetimeAsEpoch())
    assert fast.encode(state) == library.encode(state)
    assert b"epoch" in fast.encode(state)
    for transcoder in (library, fast):
        transcoder.register(DatetimeAsISO())
    assert fast.encode(state) == library.encode(state)
    assert b"datetime_iso" in fast.encode(state)


@pytest.mark.parametrize("state", SAME_BYTES)
def test_the_same_bytes_as_the_librarys_transcoder(state):
    library, fast = _pair()

    assert fast.encode(state) == library.encode(state)
    assert fast.decode(fast.encode(state)) == library.decode(library.encode(state))


json_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.text(),
    st.uuids(),
    st.datetimes(timezones=st.just(UTC)),
    st.decimals(allow_nan=False),
)
json_values = st.recursive(
    json_leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), json_values, max_size=8))
def test_any_event_state_the_same_bytes(state):
    library, fast = _pair()

    assert fast.encode(state) == library.encode(state)


def test_the_librarys_errors():
    library, fast = _pair()
    circular: dict = {}
    circular["self"] = circular

    for state, error in (
        ({"what": object()}, TranscodingNotRegisteredError),
        ({"lone": "\ud800"}, UnicodeEncodeError),
        (circular, ValueError),
    ):
        with pytest.raises(error):
            library.encode(state)
        with pytest.raises(error):
            fast.encode(state)


def test_the_application_encodes_with_it_unless_told_otherwise():
    app = TwentyOneLedger(env=store_env("memory", environ={}))
    other = TwentyOneLedger(
        env={**store_env("memory", environ={}), "TRANSCODER_TOPIC": _topic(JSONTranscoder)}
    )
    try:
        assert type(app.mapper.transcoder) is OrjsonTranscoder
        assert UUID in app.mapper.transcoder.types
        assert type(other.mapper.transcoder) is JSONTranscoder
    finally:
        app.close()
        other.close()


def _topic(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def test_a_stored_state_takes_the_memory_of_its_own_size():
    """The in-memory store keeps every state it is given: a state must not carry the
    encoder's working buffer with it (orjson's is 4 KiB or more, for a few hundred bytes)."""
    import tracemalloc

    _, fast = _pair()
    state = {"timestamp": datetime(2026, 1, 1, tzinfo=UTC), "id": uuid4(), "memo": "x" * 300}
    size = len(fast.encode(state))
    tracemalloc.start()
    try:
        kept = [fast.encode(state) for _ in range(200)]
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(kept) == 200 and held / len(kept) < 2 * size
