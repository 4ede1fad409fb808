"""The table's record of an audited round (``table_record``): its ``Table.RoundOpened`` and
``Table.RoundClosed`` against the round's own stream.

A round is opened in its table's stream in the same write that starts it, and closed there in
the same write that ends it (``Round.Ended``). A stream's last events dropped leave its own
hash chain whole; the other stream, written at the same time, still says what was there. So
a round its table closed but whose stream has no ``Round.Ended`` lost its last events, and a
round that ended but whose table never closed it is a table that lost its record of the end.
The table's stream is the one the audit already reads back to the round's opening
(``replay.audit_money.table_stretch``): nothing is read again."""

from __future__ import annotations

from typing import Any

from ledger.domain.round import Round
from ledger.domain.table import Table
from replay.stretch import Stretch


def table_record(
    rnd: Any, events: list[Any], positions: dict[int, int], table: Stretch
) -> dict[str, Any]:
    """``ok`` true when the table's record of the round and the round's own stream agree
    (opened; closed once the round ended, and only then), false when they do not, with
    ``fact`` one sentence; ``opened``, ``closed`` (the table's events) and ``ended`` (the
    round's ``Round.Ended``), each its stream, version and position, or null when absent."""
    opened = table.anchor
    if not (isinstance(opened, Table.RoundOpened) and opened.round_id == rnd.id):
        opened = None
    closed = next(
        (e for e in table.newer if isinstance(e, Table.RoundClosed) and e.round_id == rnd.id),
        None,
    )
    ended = next((e for e in events if isinstance(e, Round.Ended)), None)
    out = {
        "opened": _at(opened, table.positions),
        "closed": _at(closed, table.positions),
        "ended": _at(ended, positions),
    }
    ok, fact = _verdict(rnd, events, opened, closed, ended, positions, table.positions)
    return {"ok": ok, "fact": fact, **out}


def _verdict(
    rnd: Any,
    events: list[Any],
    opened: Any,
    closed: Any,
    ended: Any,
    positions: dict[int, int],
    table_positions: dict[int, int],
) -> tuple[bool, str]:
    last = events[-1]
    end = f"{type(last).__qualname__} v{last.originator_version}"
    if opened is None:
        return False, (
            f"the table {rnd.table_id} has no Table.RoundOpened for this round: a round is "
            "opened in its table's stream in the write that starts it, so the table's record "
            "of it is missing"
        )
    if closed is not None and ended is None:
        return False, (
            f"the table closed the round ({_name(closed, table_positions)}), but the round's "
            f"stream has no Round.Ended (it ends at {end}): a round ends in the write that "
            "closes it at its table, so the round's last events are missing"
        )
    if ended is not None and closed is None:
        return False, (
            f"the round ended ({_name(ended, positions)}), but its table {rnd.table_id} has no "
            "Table.RoundClosed for it: a round is closed at its table in the write that ends "
            "it, so the table's record of the end is missing"
        )
    if ended is not None:
        return True, (
            f"the round ended ({_name(ended, positions)}) and its table closed it "
            f"({_name(closed, table_positions)})"
        )
    return True, (
        f"the round is still in play (it ends at {end} so far), and its table has not closed it"
    )


def _at(event: Any, positions: dict[int, int]) -> dict[str, Any] | None:
    if event is None:
        return None
    return {
        "type": type(event).__qualname__,
        "stream": str(event.originator_id),
        "version": event.originator_version,
        "position": positions.get(event.originator_version),
    }


def _name(event: Any, positions: dict[int, int]) -> str:
    where = positions.get(event.originator_version)
    at = "" if where is None else f", position {where}"
    return f"{type(event).__qualname__} v{event.originator_version}{at}"
