"""``/v1/tables/{id}/deal-offer`` and ``/deal-sales``: selling the deal for an agreed price
(VU-31). The dealer offers the deal to a seated player with his dealer key; that player
accepts it with his own key, naming the price; the seller withdraws or the buyer declines an
open offer; an admin may record a sale the two agreed elsewhere in one step."""

from __future__ import annotations

from flask import g

from api.auth import require
from api.body import Blueprint
from api.idempotency import idempotent
from api.resources.common import actor, command_id, created, is_admin, ledger, permit
from api.responses import answers
from api.schemas.deal_sales import (
    DealAcceptanceSchema,
    DealOfferSchema,
    DealOfferViewSchema,
    DealOfferWithdrawnSchema,
    DealSoldSchema,
)
from api.schemas.tables import DealSaleSchema
from ledger import deal_sales

NONE_OPEN = f"not-found: {deal_sales.NONE_OPEN} ({deal_sales.CLAUSE})"

blp = Blueprint(
    "deal_sales", __name__, url_prefix="/v1/tables", description="Selling the deal (VU-31)"
)

ANY_ROLE = ("admin", "auditor", "dealer", "player")


@blp.route("/<uuid:table_id>/deal-offer")
@require(*ANY_ROLE)
@answers(404, NONE_OPEN)
@blp.response(200, DealOfferViewSchema)
def get_offer(table_id):
    """The open offer of the deal (seller, buyer, price); 404 when none is open."""
    return deal_sales.offer_view(ledger().get_table(str(table_id)))


@blp.route("/<uuid:table_id>/deal-offer", methods=["POST"])
@require("dealer")
@idempotent
@blp.arguments(DealOfferSchema())
@blp.response(201, DealOfferViewSchema)
def offer(body, table_id):
    """The dealer offers his deal to a seated player at a price (VU-31), with his dealer key
    (an admin: for ``seller``, by default the table's dealer). Nothing moves until the buyer
    accepts; a new offer replaces the open one; a round's start or the deal changing hands
    ends it."""
    if is_admin():
        seller = body["seller"]  # None: the table's dealer, read by the command itself
    else:
        permit(body["seller"] is None, "seller is for admin keys only: one offers his own deal")
        permit(
            g.key.player_id is not None,
            "the house's dealer key holds no deal to sell: the player holding the deal offers "
            "it with his own dealer key",
        )
        seller = g.key.player_id
    made = ledger().offer_deal(
        str(table_id),
        seller,
        str(body["buyer"]),
        body["price"],
        actor=actor(),
        command_id=command_id(),
    )
    return created(made, f"/v1/tables/{table_id}/deal-offer")


@blp.route("/<uuid:table_id>/deal-offer/acceptance", methods=["POST"])
@require("player")
@idempotent
@blp.arguments(DealAcceptanceSchema())
@blp.response(200, DealSoldSchema)
def accept(body, table_id):
    """The buyer accepts the offer made to him, with his own player key, naming the price he
    agrees to: it moves from his wallet to the seller's, and he deals (VU-31)."""
    if is_admin():
        buyer = body["buyer"]  # None: the buyer offered, read by the command itself
    else:
        permit(body["buyer"] is None, "buyer is for admin keys only: one accepts for himself")
        buyer = g.key.player_id
    return ledger().accept_deal(
        str(table_id), buyer, body["price"], actor=actor(), command_id=command_id()
    )


@blp.route("/<uuid:table_id>/deal-offer", methods=["DELETE"])
@require("dealer", "player")
@answers(404, NONE_OPEN)
@blp.response(200, DealOfferWithdrawnSchema)
def withdraw(table_id):
    """The seller withdraws the open offer (his dealer key), or the buyer declines it (his
    player key); 404 when none is open, as reading it answers."""
    app = ledger()
    if not is_admin():
        made = deal_sales.existing_offer(app.get_table(str(table_id)))
        party = made["seller"] if g.key.role == "dealer" else made["buyer"]
        permit(
            g.key.player_id == party,
            "the seller withdraws an offer with his dealer key, the buyer declines it with his "
            "player key",
        )
    return app.withdraw_deal_offer(str(table_id), actor=actor())


@blp.route("/<uuid:table_id>/deal-sales", methods=["POST"])
@require("admin")
@idempotent
@blp.arguments(DealSaleSchema())
@blp.response(200, DealSoldSchema)
def sell(body, table_id):
    """An admin records a sale of the deal the two players agreed elsewhere, in one step
    (``seller`` by default the table's dealer). Players sell by offer and acceptance."""
    return ledger().sell_deal(
        str(table_id),
        body["seller"],  # None: the table's dealer, read by the command itself
        str(body["buyer"]),
        body["price"],
        actor=actor(),
        command_id=command_id(),
    )
