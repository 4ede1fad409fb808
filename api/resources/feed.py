"""Reading events for the feeds: one round's stream, and a table's page of notifications
(the table's own stream, its rounds' and its shoes'), masked for the caller.

A page scans the store's notification log from the cursor and keeps the events of the
table's aggregates, so the cursor is a notification position any poller can resume from.
One request scans at most ``SCAN`` positions: a quiet table on a busy ledger answers an empty
page whose cursor has moved past other tables' events, rather than reading the whole log in
one request."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from api.cursors import log_head
from api.shoe_secrets import burns_shown, mask_shoe_event, withheld_shoes
from api.table_members import TableMembers
from api.visibility import CHAIN_FIELDS, burn_shoes, event_record, event_views, sees_all
from replay.checked_reads import read_stream
from replay.event_rows import page_reader

BATCH = 500
SCAN = 20_000  # positions one page request reads at most


def round_events(
    app: Any,
    rnd: Any,
    viewer: Any,
    withheld: set[UUID] | None = None,
) -> list[dict]:
    """The round's events up to ``rnd``'s version, each with its position in the log (read
    in the query that reads the events, ``replay.log_positions``), masked for ``viewer``;
    ``withheld``: the table's withheld shoes (``api.shoe_secrets.withheld_shoes``) when the
    caller has them already."""
    stream = read_stream(app, rnd.id, rnd.version, positioned=True)
    records = [event_record(e, stream.positions.get(e.originator_version)) for e in stream]
    shown = burns_shown(app, rnd, viewer, burn_shoes(records), withheld)
    return event_views(rnd, records, viewer, shown)


def table_page(
    app: Any,
    members: TableMembers,
    table_id: str,
    viewer: Any,
    after: int,
    limit: int,
    head: int | None = None,
) -> tuple[list[dict], int, bool]:
    """Up to ``limit`` events of the table after position ``after``, the next cursor (at
    most ``after + SCAN``), and whether the log held more after it when the page was read
    (then read on at once; else the table has nothing new yet). ``head`` is the log's last
    position when the caller has just read it (read here otherwise)."""
    if head is None:
        head = log_head(app)
    stop = min(head, after + SCAN)
    # Everything read after the head: a round's or a shoe's events up to it were written
    # together with the table's event naming that round or shoe, so the table's stream
    # names them all now, and the table's current round masks its shoes (``_masked``).
    table = app.get_table(table_id)  # 404 for an unknown table
    known = members.of(app, table)
    wanted, rounds = known.streams, known.rounds
    read = page_reader(app.recorder)
    found: list[tuple[int, Any]] = []
    cursor = after
    while cursor < stop and len(found) < limit:
        rows = read(cursor + 1, BATCH, stop)
        for row in rows:
            cursor = row.id
            if row.originator_id in wanted:
                stored = row._replace(originator_id=UUID(row.originator_id))
                found.append((row.id, app.mapper.to_domain_event(stored)))
                if len(found) == limit:
                    break
        if len(rows) < BATCH and len(found) < limit:
            cursor = stop  # nothing more up to ``stop`` (positions may have gaps)
    return _masked(app, table, found, rounds, viewer), cursor, cursor < head


def _masked(app: Any, table: Any, found: list, rounds: set[UUID], viewer: Any) -> list[dict]:
    if sees_all(viewer):
        return [event_record(event, pos) for pos, event in found]
    # A round's events are masked with the whole round in view (a CardsShown names cards
    # dealt earlier), so mask each round's stream once and pick the page's events from it.
    views: dict[UUID, dict[int, dict]] = {}
    secret_shoes = withheld_shoes(app, table, viewer)
    out = []
    for pos, event in found:
        rid = event.originator_id
        if rid in rounds:
            if rid not in views:
                rnd = app.get_round(str(rid))
                masked = round_events(app, rnd, viewer, withheld=secret_shoes)
                views[rid] = {e["version"]: e for e in masked}
            record = {**views[rid][event.originator_version], "position": pos}
        else:
            record = event_record(event, pos)
            data = {k: v for k, v in record["data"].items() if k not in CHAIN_FIELDS}
            if rid in secret_shoes:
                # A shoe of the round in play: its seed and order (once retired), or the
                # used cards it holds, would give away face-down cards of that round; they
                # are shown once the round has ended.
                data = mask_shoe_event(type(event).__name__, data)
            record["data"] = data
        out.append(record)
    return out
