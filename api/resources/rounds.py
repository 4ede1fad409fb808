"""``/v1/rounds``: the round as the caller may see it, and every action of every family."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import g
from flask_smorest import Blueprint

from api.auth import require
from api.idempotency import idempotent
from api.resources.common import actor, command_id, is_admin, ledger
from api.resources.feed import round_events
from api.schemas.events import EventSchema
from api.schemas.rounds import (
    DEALER_ACTIONS,
    DEALER_HAND_ACTIONS,
    ActionResultSchema,
    ActionSchema,
    RoundViewSchema,
    action_union_doc,
)
from api.visibility import round_view

blp = Blueprint("rounds", __name__, url_prefix="/v1/rounds", description="Rounds and actions")

ANY_ROLE = ("admin", "auditor", "dealer", "player")


@blp.route("/<uuid:round_id>")
@require(*ANY_ROLE)
@blp.response(200, RoundViewSchema)
def get_round(round_id):
    return round_view(ledger().get_round(str(round_id)), g.key)


def _is_dealer_action(body: dict) -> bool:
    action = body["action"]
    if action in DEALER_ACTIONS or action in DEALER_HAND_ACTIONS:
        return True
    # Очко: the banker values his own aces (no hand, or the dealer's).
    return action == "ace_value" and body.get("hand") in (None, "dealer", "dealer2")


def _actor(load_round: Callable[[], Any], body: dict) -> str:
    """Whom the action is for: a player or dealer key acts as itself; an admin acts as
    ``actor`` when given, else as whoever the action belongs to (the hand's holder, the
    dealer). The round is loaded only for an admin who names no actor."""
    if not is_admin():
        return actor()
    if body.get("actor"):
        return body["actor"]
    rnd = load_round()
    if _is_dealer_action(body):
        return rnd.dealer
    hand = body.get("hand")
    if hand in rnd.hands:
        return rnd.hands[hand]["player"]
    return "admin"  # the ledger refuses it with the clause that applies


@blp.route("/<uuid:round_id>/actions", methods=["POST"])
@require("player", "dealer")
@idempotent
@blp.arguments(ActionSchema)
@blp.doc(requestBody={"content": {"application/json": {"schema": action_union_doc()}}})
@blp.response(200, ActionResultSchema)
def act(body, round_id):
    app = ledger()
    rid = str(round_id)
    who = _actor(lambda: app.get_round(rid), body)
    action = body["action"]
    # The command hands back the round it saved: the view need not read it again.
    if action == "stake":
        result, rnd = app.place_stake(
            rid, who, body["amount"], actor=who, command_id=command_id(), with_round=True
        )
    else:
        result, rnd = app.act(
            rid,
            action,
            actor=who,
            hand=body.get("hand"),
            amount=body.get("amount"),
            index=body.get("index"),
            value=body.get("value"),
            called=body.get("called"),
            card=body.get("card"),
            command_id=command_id(),
            with_round=True,
        )
    position = result.pop("position", None)
    return {
        "result": result,
        "round": round_view(rnd, g.key),
        "position": position,
    }


@blp.route("/<uuid:round_id>/events")
@require(*ANY_ROLE)
@blp.response(200, EventSchema(many=True))
def events(round_id):
    """Every event of the round in order; for players and dealers hidden cards are masked."""
    app = ledger()
    rnd = app.get_round(str(round_id))
    return round_events(app, rnd, g.key)
