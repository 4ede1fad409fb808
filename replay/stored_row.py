"""What a stored event's row must hold before it can even be decoded: a stream id that is a
UUID, a version that is a whole number from 1 up, a topic that is text and a state that is
bytes. The ledger writes nothing else, but a row edited by hand may hold anything SQLite lets
a column hold (a NULL, text where bytes were: SQL's ``replace()`` turns a blob into text), and
the library's reader then fails with a ``TypeError`` deep inside, or not at all until a sum
or a comparison goes wrong. ``replay.store.notifications`` reads such a row as it is stored;
here it is named, for ``verify`` to report and ``export`` to refuse."""

from __future__ import annotations

from typing import Any
from uuid import UUID


def shown(value: Any) -> str:
    """A stored value as a fault names it: text quoted, NULL as NULL, else its type too."""
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return repr(value) if len(value) <= 80 else repr(value[:77]) + "…"
    if isinstance(value, bytes | bytearray | memoryview):
        return f"{len(value)} bytes"
    return f"{type(value).__name__} {value!r}"


def stream_text(value: Any) -> str:
    """A row's stream id as a fault names the stream: a UUID as its text, else as stored."""
    if isinstance(value, UUID):
        return str(value)
    return value if isinstance(value, str) and value else shown(value)


def type_name(topic: Any) -> str:
    """``Round.CardDealt`` for the topic ``ledger.domain.round:Round.CardDealt``; ``""`` for a
    topic that is no text."""
    if not isinstance(topic, str):
        return ""
    return topic.rpartition(":")[2] or topic


def version_of(value: Any) -> int | None:
    """A row's version when it is one (a whole number from 1 up), else None."""
    return value if type(value) is int and value >= 1 else None


def row_problem(stored: Any) -> str | None:
    """What keeps a stored event (or notification) from being read, or None when its columns
    hold what the ledger writes."""
    stream = stored.originator_id
    if not isinstance(stream, UUID):
        return f"its stream id is {shown(stream)}, not a UUID as the store writes one"
    version = stored.originator_version
    if version_of(version) is None:
        return f"its version is {shown(version)}, not a whole number from 1 up"
    topic = stored.topic
    if not isinstance(topic, str):
        return f"its topic is {shown(topic)}, not text"
    state = stored.state
    if not isinstance(state, bytes):
        kind = "text" if isinstance(state, str) else shown(state)
        return f"its state is {kind}, not the bytes the ledger writes"
    return None
