"""Who caused a shoe's reveal, for the audit's ``recorded.revealed``.

``Shoe.Revealed`` records why the shoe was retired (``reason``) but no actor: the reveal is
never a command of its own, it is written in the same save as the command that retired the
shoe. When that command was closing the table, the table's ``Table.Closed`` (the table's last
event, or the one before a ``Table.ActedFor`` naming the admin key that closed it) names who
closed it. Every other reason is the rules' own doing, whoever's command
it happened in: a shoe spent when a round starts, used up in the middle of one (VU-29), or a
shoe cut for the deal (VU-2); those are the ledger's (automatic).
"""

from __future__ import annotations

from typing import Any

from ledger.domain.shoe import Shoe
from ledger.domain.table import Table
from ledger.shoes import RETIRED_TABLE_CLOSED
from replay import log_positions
from replay.damage import decode
from replay.stretch import Stretch

# The reason ``close_table`` (ledger/use_cases/tables.py) gives the reveal.
TABLE_CLOSED = RETIRED_TABLE_CLOSED
AUTOMATIC = "ledger"


def reveal_cause(
    app: Any, events: list[Any], table: Stretch | None = None
) -> dict[str, Any] | None:
    """For a shoe's ``events``: who caused its reveal (``actor``) and through which event
    (``caused_by``: type, stream, version and position; null for the rules' own doing); None
    when the shoe is not revealed. ``table``: the shoe's table's stream as the audit already
    read it back from its end, if it did (its last event is not read again)."""
    revealed = next((e for e in events if isinstance(e, Shoe.Revealed)), None)
    if revealed is None:
        return None
    if revealed.reason == TABLE_CLOSED:
        closed, position = _last_event(app, events[0].table_id, table)
        if isinstance(closed, Table.Closed):
            return {
                "actor": closed.actor,
                "caused_by": {
                    "type": "Table.Closed",
                    "stream": str(closed.originator_id),
                    "version": closed.originator_version,
                    "position": position,
                },
            }
    return {"actor": AUTOMATIC, "caused_by": None}


def _last_event(app: Any, table_id: Any, read: Stretch | None) -> tuple[Any, int | None]:
    """The table's closing event and its position in the log: its last event, or the one
    before when the last is the ``ActedFor`` that closes the command's events."""
    if read is not None and read.events and read.events[-1].originator_id == table_id:
        last = read.events[-1]
        if isinstance(last, Table.ActedFor) and len(read.events) > 1:
            last = read.events[-2]
        return last, read.positions.get(last.originator_version)
    for stored in log_positions.select(app.recorder, table_id, desc=True, limit=2):
        event = decode(app, stored)
        if not isinstance(event, Table.ActedFor):
            return event, stored.id
    return None, None
