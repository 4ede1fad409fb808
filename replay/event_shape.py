"""Whether a decoded event has the fields its type records, each of the plain type declared.

eventsourcing decodes an event by setting its stored fields on a bare object, without calling
its constructor: JSON that still parses but lost a field (or had one renamed, or a number
turned into text) decodes without complaint and fails later, deep in whatever reads it. The
replay tools check every event they decode against its class (a set comparison and a type
check per field, a microsecond or so), so such an event is named as damaged where it is read;
the projectors, which read most events as their stored JSON rather than decode them, hold
those fields to the class the same way (:func:`misfit`).
A field with a default may be absent (events stored before it existed read the class's
default); only ``str``, ``int`` and ``bool`` fields are type-checked, exactly (a bool is not
an int here, as JSON tells them apart).

A decoded event (:func:`misshapen`) is held to all the export's schema asks of a line
(``replay.event_schemas``), so that what the replay tools read, ``import`` takes: no field its
class does not record, every field of the type declared (a UUID, a list of text, an int or
null …), and its time an aware time in UTC, as the ledger writes it. Its topic must be the one
the ledger writes for its class (:func:`foreign_topic`)."""

from __future__ import annotations

import dataclasses
import types
import typing
from datetime import datetime, timedelta
from functools import cache
from typing import Any, NamedTuple
from uuid import UUID

from replay.event_schemas import ENVELOPE_FIELDS, data_fields, event_classes, event_topics

_PLAIN = (str, int, bool)
# The chain's own fields, on every event (data_fields leaves the envelope out).
_CHAIN = {"prev_hash": str, "hash": str}


class Shape(NamedTuple):
    """The fields an event of a class must carry, and the plain-typed ones with their type."""

    required: frozenset[str]
    typed: tuple[tuple[str, type], ...]


@cache
def shape(cls: type) -> Shape | None:
    """What an event of ``cls`` must hold; ``None`` when ``cls`` is not one of the ledger's own
    events (nothing declared to check)."""
    if not dataclasses.is_dataclass(cls) or not cls.__module__.startswith("ledger."):
        return None
    optional = {
        f.name
        for f in dataclasses.fields(cls)
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
    }
    declared = {**_CHAIN, **data_fields(cls)}
    required = frozenset(name for name in declared if name not in optional)
    typed = tuple((name, hint) for name, hint in declared.items() if hint in _PLAIN)
    return Shape(required, typed)


def misfit(wanted: Shape, fields: dict[str, Any]) -> str | None:
    """What is wrong with an event's ``fields`` for ``wanted``, or ``None`` when nothing is.
    The fields may be the decoded event's or its stored JSON's: a ``str``, ``int`` or ``bool``
    is the same value either way."""
    required, typed = wanted.required, wanted.typed
    if not fields.keys() >= required:  # no set built from the fields: the usual answer is yes
        return "no " + ", ".join(sorted(required.difference(fields)))
    for name, hint in typed:
        if name in fields and type(fields[name]) is not hint:
            return f"{name} is {type(fields[name]).__name__}, not {hint.__name__}"
    return None


def misshapen(event: Any) -> str | None:
    """What is wrong with ``event``'s fields for its class, or ``None`` when nothing is."""
    cls = type(event)
    wanted = shape(cls)
    if wanted is None:
        return None
    fields = vars(event)
    return misfit(wanted, fields) or _beyond(cls, fields)


_ZERO = timedelta(0)


def _beyond(cls: type, fields: dict[str, Any]) -> str | None:
    """What the export's schema would refuse in a decoded event that :func:`misfit` passed:
    a field its class does not record, a value not of its declared type, a time not in UTC."""
    allowed, hinted = _declared(cls)
    if not fields.keys() <= allowed:
        extra = sorted(fields.keys() - allowed)
        return (
            ", ".join(extra)
            + f" {'is no field' if len(extra) == 1 else 'are no fields'} of {cls.__qualname__}"
        )
    for name, hint in hinted:
        if name in fields and not fits(fields[name], hint):
            return f"{name} is {_kind(fields[name])}, not {_hint_name(hint)}"
    moment = fields.get("timestamp")
    if not isinstance(moment, datetime):
        return f"its time is {_kind(moment)}, not a time"
    if moment.tzinfo is None or moment.utcoffset() is None:
        return f"its time {moment.isoformat()} has no time zone: the ledger records UTC"
    if moment.utcoffset() != _ZERO:
        return f"its time {moment.isoformat()} is not in UTC, as the ledger records it"
    return None


@cache
def _declared(cls: type) -> tuple[frozenset[str], tuple[tuple[str, Any], ...]]:
    """The fields an event of ``cls`` may carry, and those of a type :func:`misfit` does not
    check, with their type hint."""
    fields = data_fields(cls)
    allowed = frozenset(fields) | ENVELOPE_FIELDS
    hinted = tuple((name, hint) for name, hint in fields.items() if hint not in _PLAIN)
    return allowed, hinted


def fits(value: Any, hint: Any) -> bool:
    """Whether ``value`` (as decoded) is of the type ``hint`` declares, as the export's schema
    holds it (``replay.event_schemas.json_type``): a UUID field holds a UUID, a list a list."""
    if hint is Any:
        return True
    if hint in _PLAIN:
        return type(value) is hint
    if hint is UUID:
        return type(value) is UUID
    if hint is float:
        return type(value) in (int, float)
    if hint is datetime:
        return isinstance(value, datetime)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(value is None if a is type(None) else fits(value, a) for a in args)
    if origin in (list, tuple):
        item = args[0] if args else Any
        return type(value) is list and all(fits(v, item) for v in value)
    if origin is dict or hint is dict:
        item = args[1] if len(args) == 2 else Any
        return type(value) is dict and all(
            type(k) is str and fits(v, item) for k, v in value.items()
        )
    return True  # a type the schema does not describe: nothing to hold it to


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _hint_name(hint: Any) -> str:
    if isinstance(hint, type) and not typing.get_args(hint):
        return hint.__name__
    return str(hint).replace("typing.", "")


def foreign_topic(topic: str, event: Any) -> str | None:
    """What is wrong with a decoded event's stored ``topic``, or None: it must be the topic
    the ledger writes for one of its own event classes (``import`` takes no other)."""
    name = type(event).__qualname__
    if event_classes().get(name) is not type(event):
        return f"its topic {topic!r} names no event of the ledger"
    wanted = event_topics()[name]
    if topic != wanted:
        return f"its topic {topic!r} is not the one the ledger writes for {name} ({wanted!r})"
    return None
