"""Reading the read models: JSON-ready answers for the API and the CLI.

Every function takes the views' database and returns plain dicts; none folds events.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from replay.projections.audit_trail import entry
from replay.projections.history_columns import (
    ENDED,
    HAND_COLUMNS,
    PLAYER_COLUMNS,
    ROUND_COLUMNS,
    TABLE_COLUMNS,
)

MOVEMENT_COLUMNS = (
    "seq", "position", "time", "stream", "version", "from_account", "to_account", "amount",
    "change", "balance", "clause", "memo", "round_id",
)  # fmt: skip


def _dicts(columns: tuple[str, ...], rows: list[tuple]) -> list[dict[str, Any]]:
    return [dict(zip(columns, row, strict=True)) for row in rows]


def not_yet(moment: str) -> str | None:
    """A time the views keep as ``''`` until it happens (a round's end, a table's closing),
    answered as null: the one way every answer says "not yet"."""
    return moment or None


def account(db: Any, name: str, after: int = 0, limit: int = 100) -> dict[str, Any] | None:
    """An account's balance, its stakes held in open rounds, and a page of its movements
    (``after`` a movement's ``seq``); None when no transfer ever touched it."""
    found = db.read("SELECT balance, movements FROM view_accounts WHERE account = ?", (name,))
    if not found:
        return None
    balance, count = found[0]
    held = db.read(
        "SELECT COALESCE(SUM(amount), 0) FROM view_holds WHERE account = ? AND amount > 0",
        (name,),
    )[0][0]
    rows = db.read(
        f"SELECT {', '.join(MOVEMENT_COLUMNS)} FROM view_movements"
        " WHERE account = ? AND seq > ? ORDER BY seq LIMIT ?",
        (name, after, limit),
    )
    movements = _dicts(MOVEMENT_COLUMNS, rows)
    last = movements[-1]["seq"] if movements else after
    return {
        "account": name,
        "balance": int(balance),
        "held": int(held),
        "movements_total": int(count),
        "movements": movements,
        "next": last if last < count else None,
    }


def empty_account(name: str) -> dict[str, Any]:
    """An account no transfer has touched yet (a new wallet): zero, nothing held."""
    return {"account": name, "balance": 0, "held": 0, "movements_total": 0, "movements": [],
            "next": None}  # fmt: skip


def player_rounds(db: Any, player_id: str, after: int = 0, limit: int = 50) -> list[dict]:
    """The rounds a player played or banked, in the order he joined them; ``after`` is the
    ``joined`` position of the last round of the previous page."""
    columns = ("round_id", "player_id") + PLAYER_COLUMNS
    rows = db.read(
        f"SELECT p.{', p.'.join(columns)}, r.family, r.status, r.ended_at"
        " FROM view_round_players p JOIN view_rounds r ON r.round_id = p.round_id"
        " WHERE p.player_id = ? AND p.joined > ? ORDER BY p.joined LIMIT ?",
        (player_id, after, limit),
    )
    found = _dicts(columns + ("family", "status", "ended_at"), rows)
    for row in found:
        row["net"] = settled_net(row["net"], row["status"])
        row["ended_at"] = not_yet(row["ended_at"])
    return found


def table_rounds(db: Any, table_id: str, after: int = 0, limit: int = 50) -> list[dict]:
    """A table's rounds in order (``after`` a round number), each with its players."""
    rows = db.read(
        f"SELECT round_id, {', '.join(ROUND_COLUMNS)} FROM view_rounds"
        " WHERE table_id = ? AND number > ? ORDER BY number LIMIT ?",
        (table_id, after, limit),
    )
    rounds = _dicts(("round_id",) + ROUND_COLUMNS, rows)
    if not rounds:
        return rounds
    for rnd in rounds:
        rnd["ended_at"] = not_yet(rnd["ended_at"])
    marks = ", ".join("?" * len(rounds))
    ids = [r["round_id"] for r in rounds]
    players: dict[str, list[dict]] = {rid: [] for rid in ids}
    for row in db.read(
        f"SELECT round_id, player_id, role, hands, staked, net FROM view_round_players"
        f" WHERE round_id IN ({marks}) ORDER BY round_id, player_id",
        ids,
    ):
        players[row[0]].append(dict(zip(("player_id", "role", "hands", "staked", "net"), row[1:])))
    for rnd in rounds:
        rnd["players"] = players[rnd["round_id"]]
        for part in rnd["players"]:
            part["net"] = settled_net(part["net"], rnd["status"])
    return rounds


def settled_net(net: int, status: str) -> int | None:
    """A player's net in a round, once it has ended; None while it is in play, when his
    wallet's change so far would count what he holds in its escrow as lost."""
    return net if status == ENDED else None


def round_hands(db: Any, round_id: str) -> list[dict]:
    rows = db.read(
        f"SELECT hand, {', '.join(HAND_COLUMNS)} FROM view_round_hands WHERE round_id = ?"
        " ORDER BY hand",
        (round_id,),
    )
    return _dicts(("hand",) + HAND_COLUMNS, rows)


def table_results(db: Any, table_id: str) -> dict[str, Any] | None:
    rows = db.read(
        f"SELECT {', '.join(TABLE_COLUMNS)} FROM view_tables WHERE table_id = ?", (table_id,)
    )
    if not rows:
        return None
    result: dict[str, Any] = {"table_id": table_id, **dict(zip(TABLE_COLUMNS, rows[0]))}
    result["closed_at"] = not_yet(result["closed_at"])
    staked = result["staked"]
    returned = staked + result["punters_net"]
    result["returned"] = returned
    result["return_to_player"] = None if staked == 0 else ratio(returned, staked)
    return result


TABLE_STATUSES = ("open", "closed")  # a listed table's status: closed once Table.Closed
TABLE_LIST_COLUMNS = ("table_id", "name", "family", "opened_at", "closed_at", "rounds")


def table_list(
    db: Any,
    status: str | None = None,
    family: str | None = None,
    after: str | None = None,
    limit: int = 50,
) -> tuple[list[dict], str | None] | None:
    """A page of tables in the order they opened (``opened_at``, then id for tables opened
    in the same microsecond), of one ``status`` and ``family`` when given, and the id to pass
    as ``after`` for the next page (None after the last). ``after`` is a table id: the page
    starts after it, whatever the filters; None when the view holds no such table.

    No money: a table's figures are its ``results``. The view holds no opening position, so
    the order is by the opening's time: a page never repeats or skips a table it has passed,
    but a table committed after a page was read, timed before that page's last table (two
    processes opening tables at once), is not on a later page."""
    where, params = [], []
    if after is not None:
        found = db.read("SELECT opened_at FROM view_tables WHERE table_id = ?", (after,))
        if not found:
            return None
        where.append("(opened_at > ? OR (opened_at = ? AND table_id > ?))")
        params += [found[0][0], found[0][0], after]
    if status is not None:
        where.append("closed_at = ''" if status == "open" else "closed_at <> ''")
    if family is not None:
        where.append("family = ?")
        params.append(family)
    rows = db.read(
        f"SELECT {', '.join(TABLE_LIST_COLUMNS)} FROM view_tables"
        f"{' WHERE ' + ' AND '.join(where) if where else ''}"
        " ORDER BY opened_at, table_id LIMIT ?",
        (*params, limit + 1),  # one more than the page: whether a next page exists
    )
    tables = _dicts(TABLE_LIST_COLUMNS, rows[:limit])
    for table in tables:
        table["closed_at"] = not_yet(table["closed_at"])
        table["status"] = TABLE_STATUSES[table["closed_at"] is not None]
    return tables, tables[-1]["table_id"] if len(rows) > limit else None


def ratio(numerator: int, denominator: int, places: int = 4) -> str:
    """``numerator / denominator`` as a decimal string, rounded half up, without floats."""
    scaled = Fraction(numerator * 10**places, denominator)
    units = int(scaled + Fraction(1, 2)) if scaled >= 0 else -int(-scaled + Fraction(1, 2))
    sign = "-" if units < 0 else ""
    whole, part = divmod(abs(units), 10**places)
    return f"{sign}{whole}.{part:0{places}d}"


def empty_results(table: Any) -> dict[str, Any]:
    """A table the projection has not seen yet (read without a position, mid-fold): its
    opening time is the aggregate's, as the projection will write it; its closing, if any,
    is left to the projection (``closed_at`` null), which has not reached it either."""
    zeros = dict.fromkeys(TABLE_COLUMNS, 0)
    return {**zeros, "table_id": str(table.id), "name": table.name, "family": table.family,
            "opened_at": table.created_on.isoformat(), "closed_at": None, "returned": 0,
            "return_to_player": None}  # fmt: skip


def round_trail(db: Any, round_id: str) -> list[dict]:
    """Every entry of the round's trail, in global order (empty for a round not projected)."""
    rows = db.read("SELECT entries FROM view_audit_trail WHERE round_id = ?", (round_id,))
    if not rows:
        return []
    # split("\n"), not splitlines(): canonical JSON keeps U+2028 and the like unescaped.
    return [entry(line) for line in rows[0][0].split("\n") if line]
