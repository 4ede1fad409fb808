"""Tamper evidence: every event carries the hash of its predecessor in its stream and a
hash of its own canonical content, so editing a stored event, re-ordering events or dropping
one that others follow breaks the chain at exactly that event (see ``verify_chain``).

Dropping a stream's last events (or a whole stream) leaves a shorter chain that still checks
out: ``replay verify`` catches that by comparing streams with one another (a round the table
closed must have ended, a round a transfer names must exist, an escrow must be empty, a
round's transfers must be what its events say moved, a snapshot must not be ahead of its
stream) and, for the log's own end, against a checkpoint (``--expect-head POSITION:HASH``)
kept from an earlier run."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Iterable
from datetime import datetime
from decimal import Decimal
from enum import Enum
from operator import itemgetter
from typing import Any
from uuid import UUID

import orjson
from eventsourcing.domain import (
    Aggregate,
    DomainEvent,
    OriginatorIDError,
    OriginatorVersionError,
)

GENESIS = "0" * 64
# Fields that describe the chain itself rather than the fact recorded.
_CHAIN_FIELDS = ("hash",)
# Set by ``trigger_event`` itself, never by its caller.
_CHAINED = frozenset({"originator_id", "originator_version", "prev_hash", "hash"})


def _plain(value: Any) -> Any:
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    raise TypeError(f"cannot encode {type(value).__name__} canonically")


def plain(value: Any) -> Any:
    """JSON-ready: UUIDs, times and enums as ``canonical`` writes them, a Decimal as its exact
    text, containers copied (keys as text)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, UUID | datetime | Enum):
        return _plain(value)
    return value


def canonical(fields: dict[str, Any]) -> bytes:
    """Sorted keys, no whitespace, UTF-8, UUIDs as text and times in ISO 8601: the bytes of
    ``json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` in any
    language, so any verifier can reproduce them from an export line. orjson writes exactly
    those bytes, several times faster (a test holds the two to the same output). orjson
    refuses an integer beyond 64 bits, which no command writes but a stored event may hold
    (damaged or forged): its hash is still the recipe's, from the standard library."""
    try:
        return orjson.dumps(fields, option=orjson.OPT_SORT_KEYS, default=_plain)
    except orjson.JSONEncodeError:
        return canonical_reference(fields)


def canonical_reference(fields: dict[str, Any]) -> bytes:
    """The same encoding with the standard library, the yardstick for ``canonical``."""
    return json.dumps(
        fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_plain
    ).encode()


def _clone(value: Any) -> Any:
    # Leaves (str, int, UUID, datetime, frozen records) are immutable and shared safely; they
    # are told here rather than in a call each, most of the calls of copying a round.
    kind = type(value)
    if kind is dict:
        return {k: _clone(v) if type(v) in _NESTED else v for k, v in value.items()}
    if kind is list:
        return [_clone(v) if type(v) in _NESTED else v for v in value]
    return value


_NESTED = frozenset({dict, list})


def project(aggregate: Any, events: Iterable[Any]) -> Any:
    """Fold events into an aggregate; a plain loop, avoiding a per-event protocol check."""
    for event in events:
        aggregate = event.mutate(aggregate)
    return aggregate


def event_hash(event_type: str, fields: dict[str, Any]) -> str:
    content = dict(fields)  # a copy made in C: quicker than filtering key by key
    for name in _CHAIN_FIELDS:
        content.pop(name, None)
    content["type"] = event_type
    return hashlib.sha256(canonical(content)).hexdigest()


# Per event class, the fields it gives a default. An event made without one still stores it,
# so the hash must be taken over it too: filled in before hashing, never left to the class.
_DEFAULTS: dict[type, dict[str, Any]] = {}


def _with_defaults(event_class: type, fields: dict[str, Any]) -> dict[str, Any]:
    defaults = _DEFAULTS.get(event_class)
    if defaults is None:
        defaults = _DEFAULTS[event_class] = {
            f.name: f.default
            for f in dataclasses.fields(event_class)  # type: ignore[arg-type]
            if f.default is not dataclasses.MISSING
        }
    return {**defaults, **fields} if defaults else fields


# Fields that some stored events carry at their class default but were hashed without: a
# Vingt-un dealer's division wrote its HoldAdjusted with ``to_hand`` left to the class, until
# ``_with_defaults``. The fact is the same with the field or without it at that value, so such
# an event's hash is accepted over either; any other value must be hashed as stored.
_HASHED_WITHOUT = {"Round.HoldAdjusted": {"to_hand": ""}}


def hash_matches(event_type: str, fields: dict[str, Any]) -> bool:
    """Whether ``fields["hash"]`` is the hash of the event's content."""
    digest = fields.get("hash")
    if event_hash(event_type, fields) == digest:
        return True
    unhashed = _HASHED_WITHOUT.get(event_type)
    if not unhashed or any(fields.get(k, v) != v for k, v in unhashed.items()):
        return False
    lean = {k: v for k, v in fields.items() if k not in unhashed}
    return event_hash(event_type, lean) == digest


def event_fields(event: Any) -> dict[str, Any]:
    return dict(vars(event))


def verify_chain(
    events: Iterable[Any], prev: str = GENESIS, version: int | None = None
) -> tuple[bool, str | None]:
    """Recompute every hash of one stream in order; return (ok, description of first fault).
    ``prev`` and ``version``: what the first event must follow (a stretch of a stream)."""
    expected_prev = prev
    expected_version = version
    for event in events:
        fields = event_fields(event)
        name = type(event).__qualname__
        where = f"{event.originator_id} v{event.originator_version} {name}"
        if expected_version is not None and event.originator_version != expected_version:
            return False, f"{where}: version gap (expected v{expected_version})"
        if fields.get("prev_hash") != expected_prev:
            return False, f"{where}: prev_hash does not match the preceding event"
        if not hash_matches(name, fields):
            return False, f"{where}: content does not match its hash"
        expected_prev = fields["hash"]
        expected_version = event.originator_version + 1
    return True, None


def snapshot_state(aggregate: Any) -> Any:
    """The aggregate without its memos (values kept to spare recomputing them, not facts), as
    a snapshot of it should hold: what folding its events alone gives."""
    memos = type(aggregate).MEMOS
    if not any(name in aggregate.__dict__ for name in memos):
        return aggregate
    bare = object.__new__(type(aggregate))
    bare.__dict__.update({k: v for k, v in aggregate.__dict__.items() if k not in memos})
    return bare


# Per event class: the getter of its fields' values in the constructor's order, when an event
# of it may be made straight from its fields (``_event``), else None.
_MAKERS: dict[type, tuple[tuple[str, ...], Callable[[dict], tuple]] | None] = {}
_new = object.__new__


def _maker(event_class: type) -> tuple[tuple[str, ...], Callable[[dict], tuple]] | None:
    """None for a class whose constructor does more than set its fields: one with a
    ``__post_init__`` of its own (a check the library's has not) or a field it does not
    take (``init=False``, set by the class itself)."""
    fields = dataclasses.fields(event_class)  # type: ignore[arg-type]
    if event_class.__post_init__ is not DomainEvent.__post_init__ or not all(
        f.init for f in fields
    ):
        return None
    names = tuple(f.name for f in fields)
    return names, itemgetter(*names)


def _event(event_class: type, fields: dict[str, Any]) -> Any:
    """``event_class(**fields)``, the event made straight from its fields when they are
    exactly the class's, set in the constructor's order (the stored JSON keeps that order),
    and its id is a UUID (the library's one check): a frozen dataclass's ``__init__`` only
    sets them one by one through ``object.__setattr__``, a fifth of making an event.
    Anything else goes through the constructor, for its checks and errors."""
    try:
        maker = _MAKERS[event_class]
    except KeyError:
        maker = _MAKERS[event_class] = _maker(event_class)
    if (
        maker is not None
        and len(fields) == len(maker[0])
        and type(fields.get("originator_id")) is UUID
    ):
        names, values = maker
        try:
            ordered = zip(names, values(fields), strict=True)
        except KeyError:  # as many fields, not the same ones
            pass
        else:
            new_event = _new(event_class)
            vars(new_event).update(ordered)
            return new_event
    try:
        return event_class(**fields)
    except TypeError as e:
        raise TypeError(f"Can't construct event {event_class}: {e}") from None


class ChainedAggregate(Aggregate):
    """Aggregate whose events are hash-chained; the last hash is part of its state."""

    # Attributes that are memos, not facts (``snapshot_state``). Not annotated: eventsourcing
    # would take an annotated class attribute for a field of every instance.
    MEMOS = ()

    def __deepcopy__(self, memo: dict) -> ChainedAggregate:
        # State is JSON-shaped (dicts, lists, immutable leaves), so a shallow walk suffices
        # and is several times faster than copy.deepcopy on every command.
        copy = object.__new__(type(self))
        copy.__dict__.update(_clone(self.__dict__))
        return copy

    class Event(Aggregate.Event):
        prev_hash: str
        hash: str

        def mutate(self, aggregate):  # type: ignore[no-untyped-def]
            """eventsourcing's ``mutate``, its checks and steps in its order, with the
            aggregate's version and time set straight rather than through their property
            setters (a tenth of folding an event), and the chain's last hash kept."""
            if aggregate is None:
                raise TypeError(f"{type(self).__qualname__} needs an aggregate to apply to")
            if self.originator_id is not aggregate._id and self.originator_id != aggregate._id:
                raise OriginatorIDError(self.originator_id, aggregate._id)
            next_version = aggregate._version + 1
            if self.originator_version != next_version:
                raise OriginatorVersionError(self.originator_version, next_version)
            self.apply(aggregate)
            aggregate._version = self.originator_version
            aggregate._modified_on = self.timestamp
            aggregate.last_hash = self.hash
            return aggregate

    class Created(Event, Aggregate.Created):
        def mutate(self, aggregate):  # type: ignore[no-untyped-def]
            aggregate = Aggregate.Created.mutate(self, aggregate)
            aggregate.last_hash = self.hash
            return aggregate

    @classmethod
    def _create(cls, event_class, *, id=None, **kwargs):  # type: ignore[no-untyped-def]  # noqa: A002
        if id is None:
            id = cls.create_id()  # noqa: A001
        timestamp = event_class.create_timestamp()
        kwargs = _with_defaults(event_class, kwargs)
        fields = dict(
            kwargs,
            originator_id=id,
            originator_version=cls.INITIAL_VERSION,
            timestamp=timestamp,
            originator_topic=f"{cls.__module__}:{cls.__qualname__}",
            prev_hash=GENESIS,
        )
        digest = event_hash(event_class.__qualname__, fields)
        return super()._create(
            event_class, id=id, timestamp=timestamp, prev_hash=GENESIS, hash=digest, **kwargs
        )

    def trigger_event(self, event_class, **kwargs):  # type: ignore[no-untyped-def]
        """eventsourcing's ``trigger_event`` with the hash added: the event's fields are put
        together once, hashed, and the event is made from them, where calling the library's
        copied them twice more; about a tenth of a simulated round. Its other steps are these,
        in its order, but for its check of an aggregate's explicit ``TOPIC``, which no
        aggregate here has (tests/unit/test_chain.py holds them to that). As the library's,
        it keeps a ``timestamp`` given; one it makes is never before the aggregate's last
        event's. The chain's own fields are never taken from a caller."""
        if not _CHAINED.isdisjoint(kwargs):  # checked without making a set for every event
            given = sorted(_CHAINED.intersection(kwargs))
            raise TypeError(f"Can't construct event {event_class}: {given} are set here")
        fields = dict(
            _with_defaults(event_class, kwargs),
            originator_id=self.id,
            originator_version=self.version + 1,
        )
        if fields.get("timestamp") is None:
            # Never before the stream's last event: servers' clocks may differ by a little,
            # and a stream's times in order are what "as it stood at a moment" bisects.
            now = event_class.create_timestamp()
            fields["timestamp"] = now if now >= self._modified_on else self._modified_on
        fields["prev_hash"] = self.last_hash
        fields["hash"] = event_hash(event_class.__qualname__, fields)
        new_event = _event(event_class, fields)
        new_event.mutate(self)
        self._pending_events.append(new_event)
