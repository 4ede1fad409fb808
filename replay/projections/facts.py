"""The events as the projectors read them: each stored event's fields as plain JSON values
(UUIDs as text, times as ISO 8601 text), the form the read models store and the export and
the hash chain use.

Decoding straight from the stored JSON with orjson skips what a projector never needs from
eventsourcing's mapper (a ``UUID`` and a ``datetime`` object per value, only to be turned
back into text): it is the largest single saving of a rebuild. The mapper stays the
authority: any event the fast path cannot read exactly as the mapper would (a cipher or
compressor configured, an upcast class version, a value type other than a UUID or a time) is
decoded by the mapper and then made plain.

An event that cannot be read either way (its bytes or its topic damaged) is
``replay.damage.StoreDamaged`` naming it (type, version, stream, position), never the JSON
parser's or the library's own error; so is an event whose JSON still parses but lacks a field
its class records or holds one of another type (``replay.event_shape``, as every replay tool
checks the events it decodes), or lacks its time: read as it is, it would fold a wrong fact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from eventsourcing.persistence import JSONTranscoder
from eventsourcing.utils import TopicError, resolve_topic

from ledger.domain.chain import plain
from ledger.transcoder import OrjsonTranscoder
from replay.damage import altered, decode_with, undecodable
from replay.event_shape import Shape, misfit, shape
from replay.projections.projector import event_name

_TYPE = b'"_type_"'
# The fields every event carries and every reader of its stored JSON takes for granted.
_ENVELOPE = frozenset({"timestamp", "prev_hash", "hash"})


def _fact_shape(cls: type) -> Shape:
    """What a projector's event of ``cls`` must hold: what its class records, and the time
    (read by the history and by every line of the audit trail)."""
    recorded = shape(cls)
    if recorded is None:
        return Shape(_ENVELOPE, ())
    return recorded._replace(required=recorded.required | _ENVELOPE)


class Fact:
    """One event's fields (``vars(fact)``), read by attribute as a domain event's are, with
    ``originator_id`` as text; ``type(fact).__qualname__`` is the event's ``Class.Event``."""


def _uuid_text(hex_: str) -> str:
    return f"{hex_[:8]}-{hex_[8:12]}-{hex_[12:16]}-{hex_[16:20]}-{hex_[20:]}"


# What the stored JSON wraps as {"_type_": name, "_data_": text}, as the same value made plain.
# A Decimal stays its exact text (``plain`` writes the same): JSON numbers would round it.
_UNWRAP: dict[str, Callable[[str], str]] = {
    "uuid_hex": _uuid_text,
    "datetime_iso": str,
    "decimal_str": str,
}


class _Unreadable(Exception):
    """A value the fast path does not know: the mapper decodes this event."""


def unwrap(fields: dict[str, Any]) -> dict[str, Any]:
    """Stored JSON fields (see :meth:`FactDecoder.stored_json`) with every value plain."""
    return {k: _unwrap(v) for k, v in fields.items()}


def _unwrap(value: Any) -> Any:
    if type(value) is dict:
        if len(value) == 2 and "_type_" in value and "_data_" in value:
            plain = _UNWRAP.get(value["_type_"])
            if plain is None:
                raise _Unreadable(value["_type_"])
            return plain(value["_data_"])
        return {k: _unwrap(v) for k, v in value.items()}
    if type(value) is list:
        return [_unwrap(v) for v in value]
    return value


class FactDecoder:
    """Stored event → :class:`Fact`, for one application's mapper."""

    def __init__(self, mapper: Any) -> None:
        self.mapper = mapper
        self.fast = (
            # The library's transcoder, or the application's (ledger/transcoder.py), which
            # writes the same bytes and decodes with the library's code.
            type(mapper.transcoder) in (JSONTranscoder, OrjsonTranscoder)
            and not getattr(mapper, "cipher", None)
            and not getattr(mapper, "compressor", None)
        )
        self._classes: dict[str, type[Fact]] = {}
        # Per topic: whether it is read from its stored JSON, and the shape its events have.
        self._topics: dict[str, tuple[bool, Shape]] = {}

    def fact_class(self, topic: str) -> type[Fact]:
        cls = self._classes.get(topic)
        if cls is None:
            name = event_name(topic)
            cls = self._classes[topic] = type(name, (Fact,), {"__qualname__": name})
        return cls

    def __call__(self, stored: Any) -> Fact:
        """The event's fields, checked against its class (``StoreDamaged`` if they differ)."""
        topic = stored.topic
        as_stored, wanted = self._topic(stored)
        fields = self._fast(stored) if as_stored else None
        if fields is None:
            fields = self._mapped(stored)
        wrong = misfit(wanted, fields)
        if wrong is not None:
            raise altered(stored, wrong)
        oid = stored.originator_id  # text from ``replay.event_rows``, a UUID from a recorder
        fields["originator_id"] = oid if type(oid) is str else str(oid)
        fields["originator_version"] = stored.originator_version
        fact = object.__new__(self.fact_class(topic))
        fact.__dict__ = fields
        return fact

    def stored_json(self, stored: Any) -> bytes:
        """The event's fields as JSON without decoding them: the stored bytes themselves where
        they are JSON as recorded (times and UUIDs wrapped as ``{"_type_", "_data_"}``, which
        :func:`unwrap` makes plain), else the mapper's decoding made plain."""
        if self._topic(stored)[0]:
            return stored.state
        return orjson.dumps(self._mapped(stored))

    def check(self, stored: Any) -> None:
        """Raise ``StoreDamaged`` unless the event can be read and holds what its class
        records (as :meth:`__call__` would): what the runner asks of an event only
        :meth:`stored_json` will read, before anything of its batch is folded (damaged bytes
        copied into the audit trail would fail every read of its round, and an altered
        event would be shown to an auditor as recorded)."""
        as_stored, wanted = self._topic(stored)
        # The stored JSON's plain values are the decoded event's: no need to decode it.
        fields = self._loads(stored) if as_stored else self._mapped(stored)
        wrong = misfit(wanted, fields)
        if wrong is not None:
            raise altered(stored, wrong)

    def _mapped(self, stored: Any) -> dict[str, Any]:
        """The mapper's decoding (decrypted, decompressed, upcast), every value made plain."""
        return plain(vars(decode_with(self.mapper, stored)))

    def _loads(self, stored: Any) -> dict[str, Any]:
        state = stored.state
        if type(state) is not bytes:  # text where bytes were written: the mapper fails too
            raise undecodable(stored, TypeError(f"stored as {type(state).__name__}, not bytes"))
        try:
            fields = orjson.loads(state)
        except orjson.JSONDecodeError as error:
            raise undecodable(stored, error) from None
        if type(fields) is not dict:
            raise undecodable(stored, TypeError(f"JSON {type(fields).__name__}, not an object"))
        return fields

    def _fast(self, stored: Any) -> dict[str, Any] | None:
        state = stored.state
        fields = self._loads(stored)
        if "class_version" in fields:
            return None  # stored by an older class version: the mapper upcasts it
        stamp = fields.get("timestamp")
        if (
            type(stamp) is dict
            and stamp.get("_type_") == "datetime_iso"
            and state.count(_TYPE) == 1  # the time the only wrapped value: most events
        ):
            fields["timestamp"] = stamp["_data_"]
            return fields
        try:
            return unwrap(fields)
        except _Unreadable:
            return None

    def _topic(self, stored: Any) -> tuple[bool, Shape]:
        """Whether events of ``stored``'s topic are read from their stored JSON (no cipher, no
        compressor, and no upcasting by the mapper), and what they must hold."""
        topic = stored.topic
        known = self._topics.get(topic)
        if known is None:
            try:
                cls = resolve_topic(topic)
            except TopicError as error:
                raise undecodable(stored, error) from None
            upcast = getattr(cls, "class_version", 1) > 1
            known = self._topics[topic] = (self.fast and not upcast, _fact_shape(cls))
        return known
