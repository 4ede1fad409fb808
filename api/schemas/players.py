"""Players, their wallets and their bankroll history."""

from __future__ import annotations

from marshmallow import fields, validate

from api.schemas.common import PositionSchema, Request, amount


class PlayerCreateSchema(Request):
    name = fields.String(required=True, validate=validate.Length(min=1, max=100))


class AmountSchema(Request):
    amount = amount(required=True, metadata={"description": "minor units"})


class PlayerSchema(PositionSchema):
    player_id = fields.String(required=True)
    name = fields.String()
    balance = fields.Integer(required=True)


class TransferSchema(PositionSchema):
    version = fields.Integer()
    timestamp = fields.String()
    from_account = fields.String()
    to_account = fields.String()
    amount = fields.Integer()
    change = fields.Integer(metadata={"description": "the wallet's change (+ in, - out)"})
    balance = fields.Integer(metadata={"description": "running balance after the transfer"})
    clause = fields.String()
    memo = fields.String()
    round_id = fields.String()


class BankrollSchema(PositionSchema):
    player_id = fields.String(required=True)
    balance = fields.Integer(required=True)
    held = fields.Integer(
        required=True, metadata={"description": "staked into escrow of rounds still open"}
    )
    history = fields.List(fields.Nested(TransferSchema), required=True)
