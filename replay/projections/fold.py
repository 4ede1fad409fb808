"""Folding one page of the log into the projectors: each event goes to the handlers that read
its type, decoded only when one of them needs more than the stored event, and a handler's
failure on a stored event that no longer fits its hash is told apart from a fault of the code.

The runner (``runner.py``) chooses the page and commits what it folds.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ledger.domain.chain import hash_matches
from replay.damage import StoreDamaged, altered
from replay.projections.facts import FactDecoder
from replay.projections.projector import Handler, Projector, event_name


class Folder:
    """The projectors' handlers by event name, and the folding of a page through them."""

    def __init__(self, projectors: Sequence[Projector], decode: FactDecoder) -> None:
        self.projectors = projectors
        self.decode = decode
        self._routes: dict[str, list[tuple[str, Handler]]] = {}
        for projector in projectors:
            for name, handler in projector.handlers().items():
                self._routes.setdefault(name, []).append((projector.name, handler))
        # _routes by full topic (see route): found once per topic, not per event
        self._by_topic: dict[str, tuple[list[tuple[str, Handler]], tuple[Handler, ...], bool]] = {}

    def fold(
        self, page: Sequence[Any], positions: dict[str, int]
    ) -> tuple[int, StoreDamaged | None]:
        """Fold ``page``; how many events were folded and, when one of them cannot be read or
        is not of its class's shape, the error naming it: the events before it are folded,
        none after it."""
        decode = self.decode
        damaged = None
        routes = self._by_topic
        lagging = min(positions.values()) != max(positions.values())
        pairs: list[tuple[Any, Any]] = []
        handlers: list[tuple[Handler, ...]] = []
        for n in page:
            found = routes.get(n.topic)
            if found is None:
                found = routes[n.topic] = self.route(n.topic)
            route, route_handlers, needs_event = found
            if not route:
                continue
            if lagging:  # after a rebuild of some projections only: the others skip ahead
                route_handlers = tuple(h for name, h in route if positions[name] < n.id)
                if not route_handlers:
                    continue
                needs_event = _needs_event(route_handlers)
            try:
                if needs_event:
                    event = decode(n)
                else:
                    decode.check(n)  # a handler reads its stored JSON (the audit trail)
                    event = None
            except StoreDamaged as error:
                damaged = error
                break
            pairs.append((event, n))
            handlers.append(route_handlers)
        for projector in self.projectors:
            projector.prefetch(pairs)
        for (event, n), route_handlers in zip(pairs, handlers):
            try:
                for handler in route_handlers:
                    handler(event, n)
            except Exception as error:
                misread = self.misread(n, error)
                if misread is None:
                    raise
                raise Misread(misread) from error
        return len(pairs), damaged

    def misread(self, stored: Any, error: Exception | None = None) -> StoreDamaged | None:
        """Whether a stored event is one the projectors stop at: its bytes cannot be decoded,
        its fields are not of its class's shape, or JSON that decodes has fields not as
        recorded (a value changed by hand: it no longer matches its own hash). The hash is
        checked only after a handler failed on the event (``error``), so a healthy rebuild
        pays nothing for it: a failure on an intact event is a fault of the code and is
        raised as it is."""
        try:
            fields = vars(self.decode(stored))
        except StoreDamaged as damaged:
            return damaged
        if hash_matches(event_name(stored.topic), fields):
            return None
        return altered(stored, error)

    def route(self, topic: str) -> tuple[list[tuple[str, Handler]], tuple[Handler, ...], bool]:
        """The (projection, handler) pairs an event of ``topic`` goes to (maybe none), the
        handlers alone, and whether any of them reads the decoded event."""
        route = self._routes.get(event_name(topic), [])
        alone = tuple(h for _, h in route)
        return route, alone, _needs_event(alone)


class Misread(Exception):
    """A handler failed on an event whose content no longer matches its hash."""

    def __init__(self, damaged: StoreDamaged) -> None:
        super().__init__(str(damaged))
        self.damaged = damaged


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a batch folds. A batch allocates tens of
    thousands of objects, each round of them starting a collection, and the oldest
    generation's scans walk every cached row: on a million events, a fifth of the time.
    The batch makes no cycles worth collecting early; the collector resumes after it
    (for every thread of the process: the pause lasts one batch)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _needs_event(handlers: Iterable[Handler]) -> bool:
    return not all(getattr(h, "stored_only", False) for h in handlers)
