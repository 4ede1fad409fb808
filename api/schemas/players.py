"""Players, their wallets and their bankroll history."""

from __future__ import annotations

from marshmallow import fields, validate

from api.schemas.common import PositionSchema, Request, Text, amount


class PlayerCreateSchema(Request):
    name = Text(required=True, validate=validate.Length(min=1, max=100))


class AmountSchema(Request):
    amount = amount(required=True, metadata={"description": "minor units"})


class PlayerSchema(PositionSchema):
    player_id = fields.String(required=True)
    name = fields.String(required=True)
    balance = fields.Integer(required=True)
