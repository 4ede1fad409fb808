"""Selling the deal (VU-31): the dealer's offer, the buyer's acceptance, a withdrawal."""

from __future__ import annotations

from marshmallow import Schema, fields

from api.schemas.common import PositionSchema, Request, amount


class DealOfferSchema(Request):
    buyer = fields.UUID(required=True, metadata={"description": "a player seated at the table"})
    price = amount(required=True, metadata={"description": "minor units"})
    seller = fields.UUID(
        load_default=None, metadata={"description": "admin only; default the table's dealer"}
    )


class DealAcceptanceSchema(Request):
    price = amount(
        required=True,
        metadata={"description": "the price the buyer agrees to: it must be the price offered"},
    )
    buyer = fields.UUID(
        load_default=None, metadata={"description": "admin only; default the buyer offered"}
    )


class DealOfferViewSchema(PositionSchema):
    """The open offer of the deal at a table."""

    table_id = fields.String(required=True)
    seller = fields.String(required=True)
    buyer = fields.String(required=True)
    price = fields.Integer(required=True)
    replayed = fields.Boolean()


class DealTermsSchema(Schema):
    seller = fields.String(required=True)
    buyer = fields.String(required=True)
    price = fields.Integer(required=True)


class DealOfferWithdrawnSchema(PositionSchema):
    table_id = fields.String(required=True)
    withdrawn = fields.Nested(
        DealTermsSchema, required=True, metadata={"description": "the offer that ended"}
    )
    actor = fields.String(
        required=True, metadata={"description": "the seller withdrew, or the buyer declined"}
    )
    replayed = fields.Boolean()


class DealSoldSchema(PositionSchema):
    table_id = fields.String(required=True)
    dealer = fields.String(
        required=True, metadata={"description": "the buyer, who deals from now on"}
    )
    seller = fields.String(required=True)
    price = fields.Integer(required=True)
    replayed = fields.Boolean()
