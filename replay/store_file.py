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

import contextlib
import os
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
    points at; None for any other error (a locked database, a lost connection …), and for
    any error of a store that is not SQLite (a PostgreSQL message may hold the same words)."""
    if env is not None and env.get("PERSISTENCE_MODULE") not in (None, "eventsourcing.sqlite"):
        return None
    for link in _chain(error):
        if not isinstance(link, DATABASE_ERRORS):
            continue
        code = _code(link)
        if code in _WORDS:
            path = damaged_file(sqlite_path(env))
            return UnreadableFile(path, str(link), not_sqlite=code == SQLITE_NOTADB)
    return None


# The files that live beside the ledger's (``ledger.config.sibling_store_env``): an error
# does not say which file it came from, and the API reads all three.
SIBLINGS = ("vault", "api")


def damaged_file(path: str | None) -> str | None:
    """Of the ledger's SQLite file and the files beside it, the first that SQLite finds
    damaged (``PRAGMA quick_check``, read-only; asked only once an error says one is), else
    ``path`` itself."""
    if path is None or path.startswith(":memory:") or path.startswith("file:"):
        return path
    for candidate in (path, *(f"{path}.{name}" for name in SIBLINGS)):
        if not os.path.exists(candidate):
            continue
        try:
            with contextlib.closing(sqlite3.connect(f"file:{candidate}?mode=ro", uri=True)) as db:
                (verdict,) = db.execute("PRAGMA quick_check").fetchone()
        except sqlite3.DatabaseError:
            return candidate
        if verdict != "ok":
            return candidate
    return path


def sqlite_path(env: Mapping[str, str] | None) -> str | None:
    """The SQLite file an eventsourcing environment names (``SQLITE_DBNAME``, perhaps under
    an application's prefix), if any."""
    if not env:
        return None
    for key, value in env.items():
        if key == "SQLITE_DBNAME" or key.endswith("_SQLITE_DBNAME"):
            return value
    return None
