"""Stored events read, and folded, so that a damaged one is named instead of surfacing as a
library traceback: a stream's events checked as they are read (``read_stream``), folded
(``fold``, naming an event whose fields were altered), and every stream followed through a pass
over the whole log (``Versions``). What they meet is ``replay.damage``'s :class:`StoreDamaged`.
Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any
from uuid import UUID

from ledger.domain.chain import event_fields, hash_matches
from replay import log_positions
from replay.damage import altered_at, decode, missing, readable
from replay.event_shape import misshapen


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
                raise altered_at(event.originator_id, version, where(event), name, wrong)
        try:
            aggregate = event.mutate(aggregate)
        except Exception as error:
            name = type(event).__qualname__
            if hash_matches(name, event_fields(event)):
                raise
            version = event.originator_version
            raise altered_at(event.originator_id, version, where(event), name, error) from error
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
