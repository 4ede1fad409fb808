"""``/v1/rounds``: the round as the caller may see it, and every action of every family."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import g

from api import read_models
from api.allowed import is_dealer_action, round_with_choices
from api.auth import require
from api.body import Blueprint
from api.idempotency import idempotent
from api.resources.audit_view import audit_for
from api.resources.common import actor, command_id, is_admin, ledger, permit
from api.resources.feed import round_events
from api.responses import answers
from api.schemas.audit import RoundAuditSchema
from api.schemas.events import EventSchema
from api.schemas.history import PositionArgsSchema, TrailSchema
from api.schemas.rounds import (
    ActionResultSchema,
    ActionSchema,
    RoundViewSchema,
    action_union_doc,
)
from replay.projections import queries

blp = Blueprint("rounds", __name__, url_prefix="/v1/rounds", description="Rounds and actions")

ANY_ROLE = ("admin", "auditor", "dealer", "player")


@blp.route("/<uuid:round_id>")
@require(*ANY_ROLE)
@blp.response(200, RoundViewSchema)
def get_round(round_id):
    app = ledger()
    rnd = app.get_round(str(round_id))
    return round_with_choices(app, rnd, g.key)


def _check_role(body: dict) -> None:
    """The role table (README, Keys and roles): the dealer's choices take a ``dealer`` key,
    a player's actions a ``player`` key, and only an admin names whom he acts for. A key
    of the wrong role is refused even when its player is the one the action belongs to."""
    if is_admin():
        return
    permit("actor" not in body, "actor is for admin keys only: a key acts as its own player")
    if is_dealer_action(body):
        permit(g.key.role == "dealer", f"{body['action']} is the dealer's: it takes a dealer key")
    else:
        permit(g.key.role == "player", f"{body['action']} is a player's: it takes a player key")


def _actor(load_round: Callable[[], Any], body: dict) -> str:
    """Whom the action is for: a player or dealer key acts as itself; an admin acts as
    ``actor`` when given, else as whoever the action belongs to (the hand's holder, the
    dealer). The round is loaded only for an admin who names no actor."""
    if not is_admin():
        return actor()
    if body.get("actor"):
        return body["actor"]
    rnd = load_round()
    if is_dealer_action(body):
        return rnd.dealer
    hand = body.get("hand")
    if hand in rnd.hands:
        return rnd.hands[hand]["player"]
    return "admin"  # the ledger refuses it with the clause that applies


@blp.route("/<uuid:round_id>/actions", methods=["POST"])
@require("player", "dealer")
@idempotent
@blp.arguments(ActionSchema())
@blp.doc(requestBody={"content": {"application/json": {"schema": action_union_doc()}}})
@blp.response(200, ActionResultSchema)
def act(body, round_id):
    _check_role(body)
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
        "round": round_with_choices(app, rnd, g.key, just_saved=True),
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


@blp.route("/<uuid:round_id>/audit")
@require(*ANY_ROLE)
@answers(403, "not-permitted: a player sees only his own round's audit, once it has ended")
@answers(
    500,
    "stored-events-damaged: a stored event of the round cannot be decoded or is missing; "
    "the detail names it (run `python -m replay verify`)",
)
@blp.response(200, RoundAuditSchema)
def audit(round_id):
    """The audit of a disputed round (replay/audit.py): every event with its UTC time, actor,
    cards and clauses; each hand's stakes, totals and settlement (clause texts, arithmetic);
    the wallets before and after; the shoe check; the hash chain. Auditors and admins see it
    all; the round's own players see, once it has ended, their own hands and balances."""
    return audit_for(str(round_id), g.key)


@blp.route("/<uuid:round_id>/trail")
@require("admin", "auditor")
@blp.arguments(PositionArgsSchema(), location="query")
@blp.response(200, TrailSchema)
def trail(args, round_id):
    """The round's audit trail as projected: every event of the round and every wallet
    transfer made for it, in global order, with their hashes. Hidden cards included, so for
    auditors and admins only."""
    ledger().get_round(str(round_id))
    db, reached = read_models.views(args.get("position"))
    entries = queries.round_trail(db, str(round_id))
    return {"round_id": str(round_id), "entries": entries, "projected_to": reached}
