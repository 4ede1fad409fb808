"""``/v1/players``: registration, deposits, withdrawals and the bankroll."""

from __future__ import annotations

from uuid import UUID

from flask_smorest import Blueprint

from api.auth import require
from api.idempotency import idempotent
from api.resources.common import command_id, created, is_player, ledger, permit, sees_everything
from api.schemas.players import (
    AmountSchema,
    BankrollSchema,
    PlayerCreateSchema,
    PlayerSchema,
)
from ledger import accounts
from ledger.domain.transfers import FundsTransferredBase

blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Players and wallets")


def _may_read(player_id: UUID) -> None:
    permit(sees_everything() or is_player(player_id), "a key reads only its own player")


def _player_body(player_id: str, position: int | None = None) -> dict:
    player = ledger().get_player(player_id)
    body = {"player_id": str(player.id), "name": player.name, "balance": player.balance}
    if position is not None:
        body["position"] = position
    return body


@blp.route("", methods=["POST"])
@require("admin")
@idempotent
@blp.arguments(PlayerCreateSchema)
@blp.response(201, PlayerSchema)
def register(body):
    made = ledger().register_player(body["name"], command_id=command_id())
    pid = made["player_id"]
    return created(_player_body(pid, made.get("position")), f"/v1/players/{pid}")


@blp.route("/<uuid:player_id>")
@require("admin", "auditor", "player", "dealer")
@blp.response(200, PlayerSchema)
def get_player(player_id):
    _may_read(player_id)
    return _player_body(str(player_id))


@blp.route("/<uuid:player_id>/deposits", methods=["POST"])
@require("admin")
@idempotent
@blp.arguments(AmountSchema)
@blp.response(200, PlayerSchema)
def deposit(body, player_id):
    done = ledger().deposit(str(player_id), body["amount"], command_id=command_id())
    return _player_body(str(player_id), done.get("position"))


@blp.route("/<uuid:player_id>/withdrawals", methods=["POST"])
@require("admin")
@idempotent
@blp.arguments(AmountSchema)
@blp.response(200, PlayerSchema)
def withdraw(body, player_id):
    done = ledger().withdraw(str(player_id), body["amount"], command_id=command_id())
    return _player_body(str(player_id), done.get("position"))


@blp.route("/<uuid:player_id>/bankroll")
@require("admin", "auditor", "player", "dealer")
@blp.response(200, BankrollSchema)
def bankroll(player_id):
    """The wallet's balance, what is held in escrow of open rounds, and every transfer
    touching it with the running balance (folded from the player's own stream)."""
    _may_read(player_id)
    app = ledger()
    player = app.get_player(str(player_id))
    wallet = accounts.player(player.id)
    history, running, escrow = [], 0, {}
    for event in app.events.get(player.id):
        if not isinstance(event, FundsTransferredBase):
            continue
        change = (event.amount if event.to_account == wallet else 0) - (
            event.amount if event.from_account == wallet else 0
        )
        running += change
        for account, sign in ((event.to_account, 1), (event.from_account, -1)):
            if account.startswith("escrow:"):
                rid = account.removeprefix("escrow:")
                escrow[rid] = escrow.get(rid, 0) + sign * event.amount
        history.append(
            {
                "version": event.originator_version,
                "timestamp": event.timestamp.isoformat(),
                "from_account": event.from_account,
                "to_account": event.to_account,
                "amount": event.amount,
                "change": change,
                "balance": running,
                "clause": event.clause,
                "memo": event.memo,
                "round_id": event.round_id,
            }
        )
    # What went from the wallet into a round's escrow and has not come back, for rounds still
    # open (an ended round's escrow is settled: what stayed there was lost or paid out).
    held = sum(
        amount for rid, amount in escrow.items() if amount > 0 and not app.get_round(rid).ended
    )
    return {
        "player_id": str(player.id),
        "balance": player.balance,
        "held": held,
        "history": history,
    }
