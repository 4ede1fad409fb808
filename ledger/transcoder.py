"""eventsourcing's JSON transcoder, writing the same bytes faster: an event in about 4.3 µs
instead of 6.2 in the simulator (2.0 instead of 4.8 in a tight loop).

The library encodes an event's state with ``json.JSONEncoder`` (compact separators, UTF-8 as
is), calling back into Python for every value JSON has no type for (each event's timestamp,
its UUIDs) to wrap it as ``{"_type_": name, "_data_": encoded}``; about a fifth of a
simulated round. orjson writes the same bytes for the JSON types, but it writes a UUID as
plain text of its own, where the library wraps it. So ``encode`` first copies the state,
wrapping every value of a registered type the way the library's ``default`` does, and only
then hands the copy to orjson (which writes a UTC timestamp's ISO text itself, in C).
Anything this copy does not know for certain encodes the same way (a float, whose text
differs; a dict key that is not text; a subclass of str or int; a type without a registered
transcoding) sends the whole state to the library's own encoder, as does anything orjson
refuses (an integer beyond 64 bits, a lone surrogate): the bytes, and the errors, are always
the library's (``tests/unit/test_transcoder.py``). Decoding is the library's, unchanged."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson
from eventsourcing.persistence import DatetimeAsISO, JSONTranscoder, Transcoding

# Leaves written identically by both encoders. Exact types: a subclass (an enum of str or
# int, bool's own text aside) could be written differently, so it is left to the library.
_SAME = frozenset({str, int, bool, type(None)})


# What JSON has a type for: a subclass of one is written as that type by the library.
_JSON_KINDS = (str, int, float, list, tuple, dict)


class _Unsure(Exception):
    """A value that only the library's encoder is sure to write the library's way."""


class OrjsonTranscoder(JSONTranscoder):
    _utc_name: str | None = None  # see ``register``

    def encode(self, obj: Any) -> bytes:
        try:
            # orjson (3.12 on) returns its whole working buffer, 4 KiB at least, as the bytes
            # object; joined, the state is copied into an object of its own size. The stored
            # state outlives the call (the in-memory store keeps it): about nine times less
            # memory per event, for a twentieth of a microsecond.
            return b"".join((orjson.dumps(self._wrapped(obj)), b""))
        except (_Unsure, orjson.JSONEncodeError, RecursionError):
            # RecursionError: a state that contains itself; the library says so its way.
            return super().encode(obj)

    def register(self, transcoding: Transcoding) -> None:
        super().register(transcoding)
        datetimes = self.types.get(datetime)
        # The name a UTC timestamp is wrapped with, when orjson may write its text (below).
        self._utc_name = datetimes.name if type(datetimes) is DatetimeAsISO else None

    def _wrapped(self, value: Any) -> Any:
        """``value`` with every value of a registered type replaced by what the library's
        ``default`` gives for it; the rest copied as it is."""
        kind = type(value)
        if kind in _SAME:
            return value
        if kind is dict:
            out = {}
            for key, item in value.items():
                if type(key) is not str:
                    raise _Unsure
                # Most values are text or numbers, and every event has a timestamp: these
                # are settled here, spared a call each.
                kind = type(item)
                if kind in _SAME:
                    out[key] = item
                elif kind is datetime and item.tzinfo is UTC and self._utc_name is not None:
                    out[key] = {"_type_": self._utc_name, "_data_": item}
                else:
                    out[key] = self._wrapped(item)
            return out
        if kind is list or kind is tuple:
            return [item if type(item) in _SAME else self._wrapped(item) for item in value]
        # Looked up first (most values here are UUIDs), but a subclass of a JSON type is
        # refused even when registered, as the library's encoder writes it as plain JSON.
        transcoding = self.types.get(kind)
        if transcoding is None or issubclass(kind, _JSON_KINDS):
            # A str enum, a named tuple, a dict subclass, or a type nothing encodes.
            raise _Unsure
        if kind is datetime and value.tzinfo is UTC and self._utc_name is not None:
            # A timestamp. orjson writes a UTC time exactly as isoformat() does (any year,
            # with or without microseconds), in C: left for it to write.
            return {"_type_": self._utc_name, "_data_": value}
        data = transcoding.encode(value)
        return {
            "_type_": transcoding.name,
            "_data_": data if type(data) in _SAME else self._wrapped(data),
        }
