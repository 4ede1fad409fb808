"""``/v1/players``: registration, deposits, withdrawals and the bankroll."""

from __future__ import annotations

from uuid import UUID

from api import read_models
from api.auth import require
from api.body import Blueprint
from api.idempotency import idempotent
from api.resources.common import command_id, created, is_player, ledger, permit, sees_everything
from api.responses import answers
from api.schemas.history import (
    BankrollSchema,
    MovementArgsSchema,
    PlayerRoundArgsSchema,
    PlayerRoundsSchema,
)
from api.schemas.players import AmountSchema, PlayerCreateSchema, PlayerSchema
from ledger import accounts
from replay.projections import queries
from replay.projections.queries import empty_account

blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Players and wallets")


OWN_ONLY = "not-permitted: a player or dealer key reads only its own player"


def _may_read(player_id: UUID) -> None:
    permit(sees_everything() or is_player(player_id), "a key reads only its own player")


def _player_body(player_id: str, position: int | None = None) -> dict:
    player = ledger().get_player(player_id)
    body = {"player_id": str(player.id), "name": player.name, "balance": player.balance}
    if position is not None:
        body["position"] = position
    return body


def _cash_body(player_id: str, done: dict) -> dict:
    """After a deposit or withdrawal: the balance it left, as the ledger's record of the command
    keeps it, so a retry answered from that record says the same, however the wallet moved
    since."""
    return {**_player_body(player_id, done.get("position")), "balance": done["balance"]}


@blp.route("", methods=["POST"])
@require("admin")
@idempotent
@blp.arguments(PlayerCreateSchema())
@blp.response(201, PlayerSchema)
def register(body):
    made = ledger().register_player(body["name"], command_id=command_id())
    pid = made["player_id"]
    return created(_player_body(pid, made.get("position")), f"/v1/players/{pid}")


@blp.route("/<uuid:player_id>")
@require("admin", "auditor", "player", "dealer")
@answers(403, OWN_ONLY)
@blp.response(200, PlayerSchema)
def get_player(player_id):
    _may_read(player_id)
    return _player_body(str(player_id))


@blp.route("/<uuid:player_id>/deposits", methods=["POST"])
@require("admin")
@idempotent
@blp.arguments(AmountSchema())
@blp.response(200, PlayerSchema)
def deposit(body, player_id):
    done = ledger().deposit(str(player_id), body["amount"], command_id=command_id())
    return _cash_body(str(player_id), done)


@blp.route("/<uuid:player_id>/withdrawals", methods=["POST"])
@require("admin")
@idempotent
@blp.arguments(AmountSchema())
@blp.response(200, PlayerSchema)
def withdraw(body, player_id):
    done = ledger().withdraw(str(player_id), body["amount"], command_id=command_id())
    return _cash_body(str(player_id), done)


@blp.route("/<uuid:player_id>/bankroll")
@require("admin", "auditor", "player", "dealer")
@answers(403, OWN_ONLY)
@blp.arguments(MovementArgsSchema(), location="query")
@blp.response(200, BankrollSchema)
def bankroll(args, player_id):
    """The wallet's balance, what it has staked in rounds still open, and its movements with
    the running balance and cause, a page at a time (from the bankroll projection)."""
    _may_read(player_id)
    ledger().get_player(str(player_id))  # 404 for a player who does not exist
    db, reached = read_models.views(args.get("position"))
    wallet = accounts.player(player_id)
    found = queries.account(db, wallet, args["after"], args["limit"]) or empty_account(wallet)
    return {**found, "player_id": str(player_id), "projected_to": reached}


@blp.route("/<uuid:player_id>/rounds")
@require("admin", "auditor", "player", "dealer")
@answers(403, OWN_ONLY)
@blp.arguments(PlayerRoundArgsSchema(), location="query")
@blp.response(200, PlayerRoundsSchema)
def rounds(args, player_id):
    """Every round the player played or banked, oldest first, with his stake and net."""
    _may_read(player_id)
    ledger().get_player(str(player_id))
    db, reached = read_models.views(args.get("position"))
    found = queries.player_rounds(db, str(player_id), args["after"], args["limit"])
    following = found[-1]["joined"] if len(found) == args["limit"] else None
    return {
        "player_id": str(player_id),
        "rounds": found,
        "next": following,
        "projected_to": reached,
    }
