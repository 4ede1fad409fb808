"""Stored events that cannot be read: one readable sentence instead of a library traceback.

A stream whose stored event cannot be decoded (its bytes were damaged) or whose versions skip
one (an event was deleted) cannot be replayed. The replay tools and the audit view report it
as :class:`StoreDamaged`, naming the event, and point at ``python -m replay verify``, which
checks the whole store. Nothing here writes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

from eventsourcing.domain import OriginatorIDError, OriginatorVersionError
from eventsourcing.persistence import MapperDeserialisationError
from eventsourcing.utils import TopicError

from ledger.domain.chain import event_fields, hash_matches
from replay import log_positions
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
    return _altered(
        stored.originator_id,
        stored.originator_version,
        getattr(stored, "id", None),
        _type_name(stored.topic),
        cause,
    )


def altered_event(event: Any, cause: str) -> StoreDamaged:
    """:class:`StoreDamaged` for a decoded domain event whose fields are not what its class
    records, met where its position in the log is not known."""
    return _altered(
        event.originator_id, event.originator_version, None, type(event).__qualname__, cause
    )


def _altered(
    stream: Any,
    version: int,
    position: int | None,
    type_name: str,
    cause: BaseException | str | None,
) -> StoreDamaged:
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


def fold(
    events: Iterable[Any],
    aggregate: Any = None,
    *,
    checked: bool = False,
    locate: Callable[[Any, int], int | None] | None = None,
) -> Any:
    """``project(aggregate, events)``, naming an event that cannot be folded because its
    fields were altered (it no longer matches its hash) as :class:`StoreDamaged`, with its
    position when ``events`` were read ``positioned`` (or as ``locate(stream, version)`` finds
    it). Checked only when an event fails, so a sound stream is folded at ``project``'s cost;
    an intact event that fails is the code's fault and is raised as it is. ``checked``: first
    hold each event to its class (``replay.event_shape``), for events the repository decoded
    (they were not read through :func:`decode`): a field lost or retyped may fold without
    failing, into a wrong state."""
    positions = getattr(events, "positions", {})

    def where(event: Any) -> int | None:
        version = event.originator_version
        found = positions.get(version)
        if found is None and locate is not None:
            found = locate(event.originator_id, version)
        return found

    for event in events:
        if checked:
            wrong = misshapen(event)
            if wrong is not None:
                name = type(event).__qualname__
                version = event.originator_version
                raise _altered(event.originator_id, version, where(event), name, wrong)
        try:
            aggregate = event.mutate(aggregate)
        except Exception as error:
            name = type(event).__qualname__
            if hash_matches(name, event_fields(event)):
                raise
            version = event.originator_version
            raise _altered(event.originator_id, version, where(event), name, error) from error
    return aggregate


def locator(app: Any) -> Callable[[Any, int], int | None]:
    """``locate`` for :func:`fold`: the position of a stream's event in ``app``'s log (one
    query, made only to name a damaged event), or ``None`` where the store keeps none."""

    def locate(stream: Any, version: int) -> int | None:
        found = log_positions.select(
            app.recorder, UUID(str(stream)), lte=version, desc=True, limit=1
        )
        if not found or found[0].originator_version != version:
            return None
        return found[0].id or None  # 0: a store that keeps no positions

    return locate


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


class StreamEvents(list):
    """A stream's events as :func:`read_stream` read them, with the position in the
    notification log of each (``positions``: version to position) when read ``positioned``."""

    positions: dict[int, int]

    def __init__(self, events: Iterable[Any] = (), positions: dict[int, int] | None = None):
        super().__init__(events)
        self.positions = positions if positions is not None else {}


def read_stream(
    app: Any,
    stream: UUID,
    upto: int | None = None,
    *,
    until: Callable[[Any], bool] | None = None,
    positioned: bool = False,
) -> StreamEvents:
    """A stream's events (up to version ``upto``, and before the first for which ``until``
    holds), decoded and checked as they are read: :class:`StoreDamaged` at the first that is
    missing or cannot be decoded; ``[]`` for no such stream. Callers fold or list what it
    read rather than reading the stream again. ``positioned``: with each event's position in
    the log, read in the same query (``replay.log_positions``; a damaged event is then named
    with its position too)."""
    events = StreamEvents()
    if positioned:
        rows: Any = log_positions.select(app.recorder, stream, lte=upto)
    else:
        rows = app.recorder.select_events(stream, lte=upto)
    for stored in rows:
        if stored.originator_version != len(events) + 1:
            found = stored.originator_version
            raise missing(stream, len(events) + 1, found, getattr(stored, "id", None))
        event = decode(app, stored)
        if until is not None and until(event):
            break
        events.append(event)
        if positioned:
            events.positions[stored.originator_version] = stored.id
    return events


def latest_version(app: Any, stream: UUID) -> int:
    """The version of a stream's last stored event (0: no such stream), without decoding."""
    latest = app.recorder.select_events(stream, desc=True, limit=1)
    return latest[0].originator_version if latest else 0


class Versions:
    """Follows every stream through a pass over the log in global order, where a stream's
    events come in version order: names the first event missing from the middle of one (a
    stream's last events dropped leave no gap here; ``python -m replay verify`` compares
    streams with one another and with a checkpoint for that)."""

    def __init__(self) -> None:
        self._next: dict[Any, int] = {}

    def check(self, stored: Any) -> None:
        """Raise :class:`StoreDamaged` unless ``stored`` (a notification) is its stream's next
        (and its row can be read: ``readable``)."""
        readable(stored)
        stream, version = stored.originator_id, stored.originator_version
        expected = self._next.get(stream, 1)
        if version != expected:
            raise missing(stream, expected, version, getattr(stored, "id", None))
        self._next[stream] = version + 1


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
