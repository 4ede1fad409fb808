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
an int here, as JSON tells them apart)."""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any, NamedTuple

from replay.event_schemas import data_fields

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
    required, typed = wanted
    if not fields.keys() >= required:  # no set built from the fields: the usual answer is yes
        return "no " + ", ".join(sorted(required.difference(fields)))
    for name, hint in typed:
        if name in fields and type(fields[name]) is not hint:
            return f"{name} is {type(fields[name]).__name__}, not {hint.__name__}"
    return None


def misshapen(event: Any) -> str | None:
    """What is wrong with ``event``'s fields for its class, or ``None`` when nothing is."""
    wanted = shape(type(event))
    return None if wanted is None else misfit(wanted, vars(event))
