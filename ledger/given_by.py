"""Who gives the commands run in the current context, when not their actor himself: set by
the HTTP API for an administrator's key around each request, or by a script with
``TwentyOneLedger.given_by``. Each command then records it (``ledger.domain.acted_for``).

A context variable, not an attribute of the application: one application serves the
requests of many threads, each given by its own key."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ledger.use_cases.inputs import giver

_GIVER: ContextVar[str | None] = ContextVar("given_by", default=None)


@contextmanager
def given_by(by: str | None) -> Iterator[None]:
    """Commands run inside are recorded as given by ``by`` (1 to 400 characters; None: by
    their actors themselves)."""
    token = _GIVER.set(giver(by))
    try:
        yield
    finally:
        _GIVER.reset(token)


def current_giver() -> str | None:
    return _GIVER.get()
