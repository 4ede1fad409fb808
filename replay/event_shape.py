"""Whether a decoded event has the fields its type records, each of the plain type declared.

eventsourcing decodes an event by setting its stored fields on a bare object, without calling
its constructor: JSON that still parses but lost a field (or had one renamed, or a number
turned into text) decodes without complaint and fails later, deep in whatever reads it. The
replay tools check every event they decode against its class (a set comparison and a type
check per field, a microsecond or so), so such an event is named as damaged where it is read.
A field with a default may be absent (events stored before it existed read the class's
default); only ``str``, ``int`` and ``bool`` fields are type-checked, exactly (a bool is not
an int here, as JSON tells them apart)."""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

from replay.event_schemas import data_fields

_PLAIN = (str, int, bool)
# The chain's own fields, on every event (data_fields leaves the envelope out).
_CHAIN = {"prev_hash": str, "hash": str}


@cache
def _shape(cls: type) -> tuple[frozenset[str], tuple[tuple[str, type], ...]]:
    """The fields an event of ``cls`` must carry, and the plain-typed ones with their type."""
    optional = {
        f.name
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
    }
    declared = {**_CHAIN, **data_fields(cls)}
    required = frozenset(name for name in declared if name not in optional)
    typed = tuple((name, hint) for name, hint in declared.items() if hint in _PLAIN)
    return required, typed


def misshapen(event: Any) -> str | None:
    """What is wrong with ``event``'s fields for its class, or ``None`` when nothing is."""
    cls = type(event)
    if not dataclasses.is_dataclass(cls) or not cls.__module__.startswith("ledger."):
        return None  # not one of the ledger's own events: nothing declared to check
    required, typed = _shape(cls)
    fields = vars(event)
    if not required.issubset(fields):
        return "no " + ", ".join(sorted(required.difference(fields)))
    for name, hint in typed:
        if name in fields and type(fields[name]) is not hint:
            return f"{name} is {type(fields[name]).__name__}, not {hint.__name__}"
    return None
