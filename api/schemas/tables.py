"""Tables: opening, seats, the dealer, the deal's sale and the pool."""

from __future__ import annotations

from marshmallow import fields, validate

from api.schemas.common import (
    OptionValue,
    PositionSchema,
    Request,
    StrictInteger,
    Text,
    amount,
)

FAMILIES = ("vingt-un", "hoyle-1913", "ochko", "casino")


class TableCreateSchema(Request):
    family = fields.String(required=True, validate=validate.OneOf(FAMILIES))
    options = fields.Dict(
        keys=fields.String(),  # an unknown name is the rule set's to refuse (invalid-rules)
        values=OptionValue(),
        load_default=dict,
        metadata={"description": "the family's rule options (min_stake, max_stake, credit, …)"},
    )
    name = Text(load_default="", validate=validate.Length(max=100))


class SeatCreateSchema(Request):
    player_id = fields.UUID(required=True)
    seat = StrictInteger(
        required=True,
        validate=validate.Range(min=1, max=12),
        metadata={"description": "1 to the table's max_players (no table has more than 12)"},
    )


class DealerChoiceSchema(Request):
    player_id = fields.UUID(
        load_default=None, metadata={"description": "omit to let the table's rule choose"}
    )


class DealSaleSchema(Request):
    buyer = fields.UUID(required=True)
    price = amount(required=True)
    seller = fields.UUID(
        load_default=None, metadata={"description": "admin only; default the table's dealer"}
    )


class PoolPayoutSchema(Request):
    recipient = fields.UUID(required=True)
    amount = amount(required=True)
    reason = Text(required=True, validate=validate.Length(min=1, max=200))


class TableCloseSchema(Request):
    """Closing takes no fields: send ``{}`` or no body at all (any field is refused, 422)."""


class SeatSchema(PositionSchema):
    table_id = fields.String()
    seat = fields.Integer()
    player_id = fields.String()


class TableSchema(PositionSchema):
    table_id = fields.String(required=True)
    name = fields.String()
    family = fields.String()
    rules = fields.Dict(keys=fields.String())
    seats = fields.List(fields.Nested(SeatSchema))
    dealer = fields.String(allow_none=True)
    current_round = fields.String(allow_none=True)
    rounds = fields.Integer(metadata={"description": "rounds started so far"})
    round_ids = fields.List(
        fields.String(),
        metadata={"description": "the latest rounds (up to 20), oldest first; all of them: "
                  "GET /v1/tables/{id}/rounds"},
    )  # fmt: skip
    pool = fields.Integer(
        allow_none=True,
        metadata={"description": "the pool's balance in minor units (VU-27/28); null at "
                  "tables of other families"},
    )  # fmt: skip
    closed = fields.Boolean()
    version = fields.Integer()


class TableResultSchema(PositionSchema):
    """What a table command returns (the fields its command sets)."""

    table_id = fields.String(required=True)
    dealer = fields.String()
    method = fields.String()
    recipient = fields.String()
    amount = fields.Integer()
    closed = fields.Boolean()
    replayed = fields.Boolean()
