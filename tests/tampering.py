"""A SQLite store damaged behind the ledger's back, row by row or byte by byte: an event's
bytes overwritten, its JSON altered (its hash left as it was), an event deleted, the file cut
short or its pages overwritten. Unlike ``forgery``, nothing here recomputes a hash.

Kept beside the top-level conftest.py, whose folder pytest puts on ``sys.path``: the tests of
tests/api and of tests/replay import it alike (``from tampering import damage``)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple
from uuid import UUID

# Bytes that are no JSON at all: the mapper cannot decode them.
GARBAGE = b"{garbage"


class Row(NamedTuple):
    position: int
    stream: str
    version: int
    state: bytes


def first_row(path: Path, topic_end: str, stream: str | None = None) -> Row:
    """The first stored event (of ``stream``, when given) whose topic ends with ``topic_end``."""
    where, params = "topic like ?", [f"%{topic_end}"]
    if stream is not None:
        where, params = f"{where} and originator_id=?", [*params, UUID(stream).hex]
    with sqlite3.connect(path) as db:
        position, originator, version, state = db.execute(
            "select rowid, originator_id, originator_version, state from stored_events"
            f" where {where} order by rowid limit 1",
            params,
        ).fetchone()
    return Row(position, str(UUID(originator)), version, state)


def write_state(path: Path, position: int, state: bytes | str) -> None:
    with sqlite3.connect(path) as db:
        db.execute("update stored_events set state=? where rowid=?", (state, position))


def damage(
    path: Path, topic_end: str, state: bytes = GARBAGE, stream: str | None = None
) -> tuple[int, str, int]:
    """Overwrite the bytes of the first stored event of ``topic_end`` (in ``stream``, when
    given) with ``state``; its (position, stream, version)."""
    row = first_row(path, topic_end, stream)
    write_state(path, row.position, state)
    return row.position, row.stream, row.version


def alter(
    path: Path, topic_end: str, change: Callable[[dict], None], stream: str | None = None
) -> tuple[int, str, int]:
    """Rewrite the first stored event of ``topic_end`` (in ``stream``, when given) as valid
    JSON changed in place by ``change`` (its hash left as it was); its (position, stream,
    version)."""
    fields = json.loads(first_row(path, topic_end, stream).state)
    change(fields)
    return damage(path, topic_end, json.dumps(fields).encode(), stream)


def _position(db: sqlite3.Connection, stream: str, version: int) -> int:
    (position,) = db.execute(
        "select rowid from stored_events where originator_id=? and originator_version=?",
        (UUID(stream).hex, version),
    ).fetchone()
    return position


def corrupt_event(path: Path, stream: str, version: int) -> int:
    """Cut the JSON of event ``version`` of ``stream`` short; its position."""
    with sqlite3.connect(path) as db:
        position = _position(db, stream, version)
    write_state(path, position, b'{"ca')
    return position


def delete_event(path: Path, stream: str, version: int) -> int:
    """Delete event ``version`` of ``stream``; the position it had."""
    with sqlite3.connect(path) as db:
        position = _position(db, stream, version)
        db.execute("delete from stored_events where rowid=?", (position,))
    return position


def position_of(path: Path, stream: str, version: int) -> int:
    """The position (rowid) of event ``version`` of ``stream``."""
    with sqlite3.connect(path) as db:
        return _position(db, stream, version)


# What SQLite lets a column hold that the recorder never writes there.
COLUMNS = ("originator_id", "originator_version", "topic", "state")


def set_column(path: Path, position: int, column: str, value, *, as_text: bool = False) -> None:
    """Overwrite one column of the stored event at ``position`` with ``value`` (a NULL, text
    where bytes were, a number …); ``as_text``: ``value`` (bytes) stored as text as it is,
    UTF-8 or not (``CAST(x'…' AS TEXT)``, which Python's driver cannot read back)."""
    assert column in COLUMNS, column
    cast = "CAST(? AS TEXT)" if as_text else "?"
    with sqlite3.connect(path) as db:
        db.execute(f"update stored_events set {column}={cast} where rowid=?", (value, position))


def move_to_end(path: Path, stream: str, version: int) -> int:
    """Move event ``version`` of ``stream`` to the end of the log (a new position after the
    last), as an event recorded late would stand; its new position."""
    with sqlite3.connect(path) as db:
        position = _position(db, stream, version)
        (last,) = db.execute("select max(rowid) from stored_events").fetchone()
        db.execute("update stored_events set rowid=? where rowid=?", (last + 1, position))
    return last + 1


def swap_positions(path: Path, first: int, second: int) -> None:
    """Swap the places in the log of the stored events at two positions."""
    with sqlite3.connect(path) as db:
        db.execute("update stored_events set rowid=-1 where rowid=?", (first,))
        db.execute("update stored_events set rowid=? where rowid=?", (first, second))
        db.execute("update stored_events set rowid=? where rowid=-1", (second,))


def delete_rows(path: Path, where: str, *params) -> None:
    """Delete the stored events ``where`` (an SQL condition) holds."""
    with sqlite3.connect(path) as db:
        db.execute(f"delete from stored_events where {where}", params)


# -- the file itself ---------------------------------------------------------------------------


def cut_short(path: Path, keep: int = 4000) -> None:
    path.write_bytes(path.read_bytes()[:keep])


def overwrite_pages(path: Path, only_the_middle: bool = False) -> None:
    """Overwrite 400 bytes inside every page but the first (SQLite's own schema), or when
    ``only_the_middle`` inside the middle page alone (one of the events' table)."""
    with sqlite3.connect(path) as db:
        (page_size,) = db.execute("pragma page_size").fetchone()
        (pages,) = db.execute("pragma page_count").fetchone()
    with open(path, "r+b") as f:
        for page in [pages // 2] if only_the_middle else range(1, pages):
            f.seek(page * page_size + 100)
            f.write(b"\xff" * 400)
