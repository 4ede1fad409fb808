"""Opening the ledger to read it. The replay tools only ever read events: nothing here (nor
in any module of ``replay/``) calls a command of the application."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from uuid import UUID

from ledger.application import TwentyOneLedger
from ledger.balances import notifications
from ledger.config import store_env

__all__ = ["ledger", "notifications", "open_ledger"]


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
