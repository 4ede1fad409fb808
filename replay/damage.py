"""Stored events that cannot be read: one readable sentence instead of a library traceback.

A stream whose stored event cannot be decoded (its bytes were damaged) or whose versions skip
one (an event was deleted) cannot be replayed. The replay tools and the audit view report it
as :class:`StoreDamaged`, naming the event, and point at ``python -m replay verify``, which
checks the whole store. Reading a stream, or folding one, so that such an event is named is
``replay.checked_reads``'s. Nothing here writes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from eventsourcing.domain import OriginatorIDError, OriginatorVersionError
from eventsourcing.persistence import MapperDeserialisationError
from eventsourcing.utils import TopicError

from replay.event_shape import foreign_topic, misshapen
from replay.stored_row import row_problem, stream_text, type_name, version_of

# What the library raises when it meets such a stream.
LIBRARY_ERRORS = (MapperDeserialisationError, OriginatorVersionError, OriginatorIDError, TopicError)
ADVICE = "run `python -m replay verify` to check the store"
# What an event that decodes but lost a field, or had one retyped, is said to be.
ALTERED = "its fields are not what was recorded"
# How the library's MapperDeserialisationError names the event it could not read.
_LIBRARY_NAMES = re.compile(
    r"topic '(?P<topic>[^']*)', originator_id '(?P<stream>[^']*)' and "
    r"originator_version (?P<version>\d+)"
)


class StoreDamaged(Exception):
    """A stored event cannot be read, or one is missing from its stream."""

    def __init__(
        self,
        problem: str,
        *,
        stream: Any = None,
        version: int | None = None,
        position: int | None = None,
        event_type: str | None = None,
    ) -> None:
        super().__init__(problem)
        self.problem = problem
        self.stream = None if stream is None else str(stream)
        self.version = version
        self.position = position
        self.event_type = event_type

    def __str__(self) -> str:
        return f"the stored events are damaged: {self.problem}; {ADVICE}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "error": str(self),
            "damaged": {
                "stream": self.stream,
                "version": self.version,
                "position": self.position,
                "type": self.event_type,
            },
        }


def _type_name(topic: str) -> str:
    return topic.rpartition(":")[2] or topic


def _where(stream: Any, version: int | None, position: int | None, topic: str | None) -> str:
    what = f"{_type_name(topic)} " if topic else ""
    where = f"event {what}v{version} of stream {stream}"
    return where + (f" (position {position})" if position is not None else "")


def decode(app: Any, stored: Any) -> Any:
    """The domain event of a stored event or notification, or :class:`StoreDamaged` naming it
    (with its position when it is a notification): its row holds what the ledger never writes
    (``replay.stored_row``), its bytes cannot be decoded, or its fields are not what its
    class records, or its topic not the ledger's for it (``replay.event_shape``)."""
    readable(stored)
    event = decode_with(app.mapper, stored)
    wrong = foreign_topic(stored.topic, event) or misshapen(event)
    if wrong is not None:
        raise altered(stored, wrong)
    return event


def readable(stored: Any) -> None:
    """:class:`StoreDamaged` unless the stored event's row holds a UUID, a version, a topic
    and bytes (``replay.stored_row``)."""
    problem = row_problem(stored)
    if problem is None:
        return
    version = version_of(stored.originator_version)
    what = type_name(stored.topic)
    where = f"event {what + ' ' if what else ''}" + (f"v{version} " if version else "")
    stream = stream_text(stored.originator_id)
    position = getattr(stored, "id", None)
    at = f" (position {position})" if position is not None else ""
    raise StoreDamaged(
        f"{where}of stream {stream}{at} cannot be decoded ({problem})",
        stream=stream,
        version=version,
        position=position,
        event_type=what or None,
    )


def decode_with(mapper: Any, stored: Any) -> Any:
    """:func:`decode` with an application's ``mapper``."""
    try:
        return mapper.to_domain_event(stored)
    except (MapperDeserialisationError, TopicError) as error:
        cause = error.__cause__ if isinstance(error, MapperDeserialisationError) else error
        raise undecodable(stored, cause) from error


def undecodable(stored: Any, cause: BaseException | None) -> StoreDamaged:
    """:class:`StoreDamaged` for a stored event (or notification: its ``id`` is the position)
    whose bytes or topic cannot be read, ``cause`` the error met reading them."""
    position = getattr(stored, "id", None)
    return _undecodable(
        stored.originator_id, stored.originator_version, position, stored.topic, cause
    )


def _undecodable(
    stream: Any, version: int, position: int | None, topic: str, cause: Any
) -> StoreDamaged:
    where = _where(stream, version, position, topic)
    why = f" ({type(cause).__name__}: {cause})" if isinstance(cause, BaseException) else ""
    return StoreDamaged(
        f"{where} cannot be decoded{why}",
        stream=stream,
        version=version,
        position=position,
        event_type=_type_name(topic),
    )


def altered(stored: Any, cause: BaseException | str | None = None) -> StoreDamaged:
    """:class:`StoreDamaged` for a stored event (or notification) that decodes, but whose
    fields are not what was recorded (a field dropped, renamed or retyped: it no longer
    matches its hash, nor its type), ``cause`` the error its reader met or what is wrong."""
    return altered_at(
        stored.originator_id,
        stored.originator_version,
        getattr(stored, "id", None),
        _type_name(stored.topic),
        cause,
    )


def altered_event(event: Any, cause: str) -> StoreDamaged:
    """:class:`StoreDamaged` for a decoded domain event whose fields are not what its class
    records, met where its position in the log is not known."""
    return altered_at(
        event.originator_id, event.originator_version, None, type(event).__qualname__, cause
    )


def altered_at(
    stream: Any,
    version: int,
    position: int | None,
    type_name: str,
    cause: BaseException | str | None,
) -> StoreDamaged:
    """:class:`StoreDamaged` for the event ``version`` of ``stream`` (at ``position`` in the
    log, where known), of type ``type_name``, whose fields are not what was recorded."""
    where = _where(stream, version, position, type_name)
    if isinstance(cause, BaseException):
        cause = f"{type(cause).__name__}: {cause}"
    why = f" ({cause})" if cause else ""
    return StoreDamaged(
        f"{where} was altered: {ALTERED}{why}",
        stream=stream,
        version=version,
        position=position,
        event_type=type_name,
    )


def missing(stream: Any, expected: int, found: int, position: int | None = None) -> StoreDamaged:
    """:class:`StoreDamaged` for a stream that goes on at version ``found`` where ``expected``
    was due (an event, or several, deleted from its middle)."""
    gone = f"v{expected}" if found == expected + 1 else f"v{expected} to v{found - 1}"
    at = f", position {position}" if position is not None else ""
    return StoreDamaged(
        f"event {gone} of stream {stream} is missing (the stream goes on at v{found}{at})",
        stream=stream,
        version=expected,
        position=position,
    )


def explain(error: Exception, stream: Any = None) -> StoreDamaged:
    """A library error met while replaying ``stream`` as :class:`StoreDamaged` (the library's
    messages name the stream only for undecodable events)."""
    if isinstance(error, StoreDamaged):
        return error
    if isinstance(error, OriginatorVersionError) and len(error.args) == 2:
        found, wanted = error.args
        where = f" of stream {stream}" if stream is not None else ""
        return StoreDamaged(
            f"event v{wanted}{where} is missing (the stream goes on at v{found})",
            stream=stream,
            version=wanted,
        )
    if isinstance(error, MapperDeserialisationError):
        # The library names the event only in its message (eventsourcing 9.5's wording).
        named = _LIBRARY_NAMES.search(str(error))
        if named is None:
            return StoreDamaged(str(error), stream=stream)
        return _undecodable(
            named["stream"], int(named["version"]), None, named["topic"], error.__cause__
        )
    where = f"stream {stream}: " if stream is not None else ""
    return StoreDamaged(f"{where}{type(error).__name__}: {error}", stream=stream)


@contextmanager
def reported(stream: Any = None) -> Iterator[None]:
    """Turn the library's errors for a damaged stream into :class:`StoreDamaged`."""
    try:
        yield
    except LIBRARY_ERRORS as error:
        raise explain(error, stream) from error
