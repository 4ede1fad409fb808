"""Opening the ledger to read it. The replay tools only ever read events: nothing here (nor
in any module of ``replay/``) calls a command of the application."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from uuid import UUID

from ledger.application import TwentyOneLedger
from ledger.balances import notifications
from ledger.config import store_env

__all__ = ["ledger", "not_a", "notifications", "open_ledger", "stream_kind"]


def open_ledger(env: Mapping[str, str] | None = None) -> TwentyOneLedger:
    """The application on the store the environment names (``LEDGER_STORE`` …), or on
    ``env`` when given (an eventsourcing environment, as ``ledger.config.store_env`` makes)."""
    return TwentyOneLedger(env=dict(env) if env is not None else store_env())


@contextmanager
def ledger(env: Mapping[str, str] | None = None) -> Iterator[TwentyOneLedger]:
    app = open_ledger(env)
    try:
        yield app
    finally:
        app.close()


def first_event_type(app: TwentyOneLedger, stream: UUID) -> str | None:
    """The type (``Table.Opened``, ``Round.Started`` …) of a stream's first event, told by
    its stored topic without decoding it; None for a stream the log does not hold."""
    first = app.recorder.select_events(stream, lte=1)
    return first[0].topic.rsplit(":", 1)[-1] if first else None


def stream_kind(app: TwentyOneLedger, stream: UUID) -> str | None:
    """What a stream is (``Table``, ``Round``, ``Player``, ``Shoe`` …), told by its first
    stored event's topic without decoding it; None for a stream the log does not hold."""
    first = first_event_type(app, stream)
    return None if first is None else first.partition(".")[0]


def not_a(kind: str | None, stream: Any, wanted: str) -> str:
    """Why ``stream`` (of ``kind``, as :func:`stream_kind` tells it) is not a ``wanted``."""
    if kind is None:
        return f"no {wanted} {stream} in this log"
    return f"{stream} is a {kind}, not a {wanted}"
