"""A SQLite file that SQLite itself cannot read: one sentence naming the file, instead of the
library's traceback.

Damage to the events' *contents* is :class:`replay.damage.StoreDamaged` (an event that cannot
be decoded, or one missing). Damage to the *file* (cut short, or bytes overwritten inside one
of its pages) is met deeper, by SQLite, whose own words are "database disk image is
malformed" (a damaged file) or "file is not a database" (not SQLite at all). Such an error
surfaces raw from ``sqlite3`` when the store is opened and wrapped in eventsourcing's
``DatabaseError`` when events are read; :func:`unreadable_file` recognises both. Nothing here
writes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from typing import Any

from eventsourcing.persistence import PersistenceError

# What the libraries raise for a file SQLite cannot read (and for other store errors, which
# :func:`unreadable_file` leaves alone).
DATABASE_ERRORS = (sqlite3.DatabaseError, PersistenceError)
# SQLite's primary result codes (the low byte of an extended code).
SQLITE_CORRUPT = 11
SQLITE_NOTADB = 26
_WORDS = {SQLITE_CORRUPT: "malformed", SQLITE_NOTADB: "not a database"}


class UnreadableFile(Exception):
    """The store's SQLite file is damaged (``not_sqlite`` False) or is not SQLite at all."""

    def __init__(self, path: str | None, reason: str, not_sqlite: bool) -> None:
        self.path = path
        self.reason = reason
        self.not_sqlite = not_sqlite
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"the SQLite file {self.path}" if self.path else "the SQLite file"
        if self.not_sqlite:
            return f"{where} is not a SQLite database ({self.reason})"
        return (
            f"{where} is damaged: SQLite cannot read it ({self.reason}); restore it from a "
            "backup, or import an export into a new store"
        )

    @property
    def exit_code(self) -> int:
        """2 for a file that is not SQLite (a bad setting, as the other store settings), 1
        for a damaged one (as damaged events)."""
        return 2 if self.not_sqlite else 1

    def as_dict(self) -> dict[str, Any]:
        return {"error": str(self), "damaged_file": self.path}


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


# Python's own words for bytes overwritten inside a row's text: SQLite hands them over, but
# they are not the UTF-8 any row was written in, so the file is damaged as surely.
_NOT_UTF8 = "Could not decode to UTF-8 column"


def _code(error: BaseException) -> int | None:
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF
    text = str(error)
    if _NOT_UTF8 in text:
        return SQLITE_CORRUPT
    return next((c for c, words in _WORDS.items() if words in text), None)


def unreadable_file(
    error: BaseException, env: Mapping[str, str] | None = None
) -> UnreadableFile | None:
    """``error`` (or what caused it) as :class:`UnreadableFile` when SQLite says the file is
    malformed or not a database, naming the file ``env`` (an eventsourcing environment)
    points at; None for any other error (a locked database, a lost connection …)."""
    for link in _chain(error):
        if not isinstance(link, DATABASE_ERRORS):
            continue
        code = _code(link)
        if code in _WORDS:
            path = sqlite_path(env)
            return UnreadableFile(path, str(link), not_sqlite=code == SQLITE_NOTADB)
    return None


def sqlite_path(env: Mapping[str, str] | None) -> str | None:
    """The SQLite file an eventsourcing environment names (``SQLITE_DBNAME``, perhaps under
    an application's prefix), if any."""
    if not env:
        return None
    for key, value in env.items():
        if key == "SQLITE_DBNAME" or key.endswith("_SQLITE_DBNAME"):
            return value
    return None
