"""A forger with write access to a SQLite store: a stream rewritten with every hash
recomputed, so its chain still holds and only the checks beyond the chain can tell.

Kept beside the top-level conftest.py, whose folder pytest puts on ``sys.path``: the tests of
tests/api and of tests/replay import it alike (``from forgery import forge_stream``)."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable
from uuid import UUID

from ledger.application import TwentyOneLedger
from ledger.domain.chain import GENESIS, event_hash


def forge_stream(env: dict, stream: str, change: Callable[[list], list]) -> None:
    """``change(events)`` -> the stream's new events, stored numbered v1, v2 … again with every
    hash recomputed. Version N is written where version N stood (its position in the log
    kept); versions past the stream's old end go at the log's end, and the old versions past
    its new end are deleted."""
    app = TwentyOneLedger(env=env)
    try:
        events = change(list(app.events.get(UUID(stream))))
        stored = [app.mapper.to_stored_event(event) for event in _rechained(events)]
    finally:
        app.close()
    with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
        db.execute(
            "DELETE FROM stored_events WHERE originator_id=? AND originator_version>?",
            (UUID(stream).hex, len(stored)),
        )
        for s in stored:
            updated = db.execute(
                "UPDATE stored_events SET topic=?, state=?"
                " WHERE originator_id=? AND originator_version=?",
                (s.topic, s.state, s.originator_id.hex, s.originator_version),
            ).rowcount
            if not updated:
                db.execute(
                    "INSERT INTO stored_events (originator_id, originator_version, topic, state) "
                    "VALUES (?, ?, ?, ?)",
                    (s.originator_id.hex, s.originator_version, s.topic, s.state),
                )


def _rechained(events: list) -> list:
    prev, out = GENESIS, []
    for version, event in enumerate(events, start=1):
        # A field the class does not declare (set on the event by ``change``) is kept, and
        # hashed, as a forger writing the stored JSON would keep it.
        declared = {f.name for f in dataclasses.fields(event)}
        extra = {k: v for k, v in vars(event).items() if k not in declared}
        event = dataclasses.replace(event, originator_version=version, prev_hash=prev)
        vars(event).update(extra)
        vars(event)["hash"] = event_hash(type(event).__qualname__, dict(vars(event)))
        prev = event.hash
        out.append(event)
    return out
