"""``/v1/tables``: opening and closing tables, seats, the dealer, the pool, and starting
rounds (selling the deal: ``api.resources.deal_sales``)."""

from __future__ import annotations

from typing import Any

from flask import g

from api import read_models
from api.allowed import round_with_choices
from api.auth import require
from api.body import Blueprint
from api.cursors import UnknownCursor
from api.idempotency import idempotent
from api.resources.common import actor, command_id, created, is_admin, is_player, ledger, permit
from api.responses import answers
from api.schemas.history import (
    PositionArgsSchema,
    RoundArgsSchema,
    TableListArgsSchema,
    TableListSchema,
    TableResultsSchema,
    TableRoundsSchema,
)
from api.schemas.rounds import RoundStartSchema, RoundViewSchema
from api.schemas.tables import (
    DealerChoiceSchema,
    PoolPayoutSchema,
    SeatCreateSchema,
    SeatSchema,
    TableCloseSchema,
    TableCreateSchema,
    TableResultSchema,
    TableSchema,
)
from api.visibility import outcome_hidden, sees_all
from ledger.domain.table import Table
from ledger.errors import UnknownSeat
from replay.projections import queries

blp = Blueprint("tables", __name__, url_prefix="/v1/tables", description="Tables and seats")

ANY_ROLE = ("admin", "auditor", "dealer", "player")


LATEST_ROUNDS = 20  # round ids a table's body lists; all of them: GET /v1/tables/{id}/rounds
_PAGE = 100
_MOST_READ = 1000  # events read back for them: a GET costs the same on a table of any age


def latest_round_ids(app: Any, table: Table) -> list[str]:
    """The table's latest rounds, oldest first, read back from the end of its stream."""
    found: list[str] = []
    lte = table.version
    while lte > max(table.version - _MOST_READ, 0) and len(found) < LATEST_ROUNDS:
        page = list(app.events.get(table.id, lte=lte, desc=True, limit=_PAGE))
        found += [str(e.round_id) for e in page if isinstance(e, Table.RoundOpened)]
        lte -= _PAGE
    return found[:LATEST_ROUNDS][::-1]


def table_body(table_id: str, position: int | None = None) -> dict:
    app = ledger()
    table = app.get_table(table_id)
    body = {
        "table_id": str(table.id),
        "name": table.name,
        "family": table.family,
        "rules": table.rules_record,
        "seats": [
            {"seat": int(seat), "player_id": pid}
            for seat, pid in sorted(table.seats.items(), key=lambda sp: int(sp[0]))
        ],
        "dealer": "house" if table.rules.house_banked else table.dealer,
        "current_round": str(table.current_round) if table.current_round else None,
        "rounds": table.rounds,
        "round_ids": latest_round_ids(app, table),
        "pool": table.pool,
        "closed": table.closed,
        "version": table.version,
    }
    if position is not None:
        body["position"] = position
    return body


@blp.route("", methods=["POST"])
@require("admin")
@idempotent
@blp.arguments(TableCreateSchema())
@blp.response(201, TableSchema)
def open_table(body):
    made = ledger().open_table(
        body["family"], body["options"], name=body["name"], command_id=command_id()
    )
    tid = made["table_id"]
    return created(table_body(tid, made.get("position")), f"/v1/tables/{tid}")


@blp.route("", methods=["GET"])
@require(*ANY_ROLE)
@blp.arguments(TableListArgsSchema(), location="query")
@blp.response(200, TableListSchema)
@answers(422, "unknown-cursor: `after` names no table the read models hold")
def list_tables(args):
    """The tables in the order they opened (from the history projection): name, family,
    times, status, rounds started; `?status=open` is a lobby. No money: that is a table's
    `results`, for the roles that read them."""
    db, reached = read_models.views(args.get("position"))
    after = args.get("after")
    page = queries.table_list(
        db, args.get("status"), args.get("family"), after and str(after), args["limit"]
    )
    if page is None:
        raise UnknownCursor(f"after={after} names no table: pass a page's `next` as `after`")
    tables, following = page
    return {"tables": tables, "next": following, "projected_to": reached}


@blp.route("/<uuid:table_id>")
@require(*ANY_ROLE)
@blp.response(200, TableSchema)
def get_table(table_id):
    return table_body(str(table_id))


@blp.route("/<uuid:table_id>/seats", methods=["POST"])
@require("player")
@idempotent
@blp.arguments(SeatCreateSchema())
@blp.response(201, SeatSchema)
def seat(body, table_id):
    permit(is_admin() or is_player(body["player_id"]), "a player seats only himself")
    done = ledger().seat_player(
        str(table_id), str(body["player_id"]), body["seat"], actor=actor(), command_id=command_id()
    )
    return created(
        {**done, "table_id": str(table_id)}, f"/v1/tables/{table_id}/seats/{done['seat']}"
    )


@blp.route("/<uuid:table_id>/seats/<int:seat>", methods=["GET"])
@require(*ANY_ROLE)
@blp.response(200, SeatSchema)
def get_seat(table_id, seat):
    """Who sits in a seat: what ``POST /v1/tables/{table_id}/seats`` names in its
    ``Location``. An empty seat is a 404 (the table lists every occupied seat)."""
    table = ledger().get_table(str(table_id))
    occupant = table.seats.get(str(seat))
    if occupant is None:
        raise UnknownSeat(f"seat {seat} of table {table_id} is empty")
    return {"table_id": str(table.id), "seat": seat, "player_id": occupant}


@blp.route("/<uuid:table_id>/seats/<int:seat>", methods=["DELETE"])
@require("player")
@blp.response(200, SeatSchema)
def unseat(table_id, seat):
    if not is_admin():
        occupant = ledger().get_table(str(table_id)).seats.get(str(seat))
        # An empty seat is the ledger's 404 for any key (a retried leave included).
        permit(occupant is None or is_player(occupant), "a player leaves only his own seat")
    return ledger().unseat_player(str(table_id), seat, actor=actor())


@blp.route("/<uuid:table_id>/dealer", methods=["POST"])
@require("admin")
@idempotent
@blp.arguments(DealerChoiceSchema())
@blp.response(200, TableResultSchema)
def choose_dealer(body, table_id):
    pid = body["player_id"]
    return ledger().choose_dealer(str(table_id), str(pid) if pid else None, command_id=command_id())


@blp.route("/<uuid:table_id>/pool-payouts", methods=["POST"])
@require("admin")
@idempotent
@blp.arguments(PoolPayoutSchema())
@blp.response(200, TableResultSchema)
def pay_from_pool(body, table_id):
    return ledger().pay_from_pool(
        str(table_id),
        str(body["recipient"]),
        body["amount"],
        body["reason"],
        command_id=command_id(),
    )


@blp.route("/<uuid:table_id>/close", methods=["POST"])
@require("admin")
@idempotent
@blp.arguments(TableCloseSchema(), required=False)
@blp.response(200, TableResultSchema)
def close(_body, table_id):
    return ledger().close_table(str(table_id), command_id=command_id())


@blp.route("/<uuid:table_id>/rounds", methods=["POST"])
@require("dealer")
@idempotent
@blp.arguments(RoundStartSchema(), required=False)
@blp.response(201, RoundViewSchema)
def start_round(body, table_id):
    """Start the next round: an admin, or the table's dealer (the house dealer's key, which
    names no player, at a casino table)."""
    app = ledger()
    if not is_admin() and app.table_rules(str(table_id)).house_banked:
        permit(g.key.player_id is None, "the house deals at a casino table")
    made, rnd = app.start_round(
        str(table_id), actor=actor(), cut=body["cut"], command_id=command_id(), with_round=True
    )
    rid = made["round_id"]
    view = {
        **round_with_choices(app, rnd, g.key, just_saved=True),
        "position": made.get("position"),
    }
    return created(view, f"/v1/rounds/{rid}")


@blp.route("/<uuid:table_id>/rounds", methods=["GET"])
@require(*ANY_ROLE)
@blp.arguments(RoundArgsSchema(), location="query")
@blp.response(200, TableRoundsSchema)
def round_history(args, table_id):
    """The table's rounds in order, each with its players' stakes and nets (from the history
    projection; no cards). A player key sees only his own part of each round."""
    ledger().get_table(str(table_id))  # 404 for a table that does not exist
    db, reached = read_models.views(args.get("position"))
    found = queries.table_rounds(db, str(table_id), args["after"], args["limit"])
    following = found[-1]["number"] if len(found) == args["limit"] else None
    if g.key.role == "player":  # who played is public at the table; what he won is his own
        for rnd in found:
            rnd["players"] = [p for p in rnd["players"] if is_player(p["player_id"])]
    return {"table_id": str(table_id), "rounds": found, "next": following, "projected_to": reached}


@blp.route("/<uuid:table_id>/results")
@require("admin", "auditor", "dealer")
@blp.arguments(PositionArgsSchema(), location="query")
@blp.response(200, TableResultsSchema)
def results(args, table_id):
    """Rounds, naturals, busts, what punters staked and got back (return to player), the
    banker's and the house's profit and loss, and the pool (from the history projection)."""
    app = ledger()
    table = app.get_table(str(table_id))
    db, reached = read_models.views(args.get("position"))
    found = queries.table_results(db, str(table_id)) or queries.empty_results(table)
    found["busts"] -= _unsettled_busts_hidden(app, db, table)
    return {**found, "projected_to": reached}


def _unsettled_busts_hidden(app: Any, db: Any, table: Table) -> int:
    """The busts of the round in play the caller may not know of yet: hands over 21 that wait
    for the banker unsettled (Очко, ``punter_bust_pays: false``) and whose cards he cannot see
    (api.visibility). The results count them once they are settled."""
    if sees_all(g.key) or table.current_round is None:
        return 0
    rnd = app.get_round(str(table.current_round))
    return sum(
        1
        for hand in queries.round_hands(db, str(rnd.id))
        if hand["is_bust"]
        and not hand["outcome"]
        and hand["hand"] in rnd.hands
        and outcome_hidden(rnd, hand["hand"], g.key)
    )
