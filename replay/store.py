"""Opening the ledger to read it. The replay tools only ever read events: nothing here (nor
in any module of ``replay/``) calls a command of the application."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from ledger.application import TwentyOneLedger
from ledger.config import store_env


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


def notifications(app: Any, topics: tuple[str, ...] = (), batch: int = 1000) -> Iterator[Any]:
    """Every stored event (or those of ``topics``) in global order, read in pages."""
    start = 1
    while True:
        items = app.recorder.select_notifications(start=start, limit=batch, topics=topics)
        if not items:
            return
        yield from items
        start = items[-1].id + 1
