"""Tables: opening, seats, the dealer, the deal's sale and the pool."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.common import (
    OptionValue,
    PositionSchema,
    Request,
    StrictInteger,
    Text,
    amount,
)
from ledger.rules import FAMILIES
from ledger.rules.vingt_un import DEALER_CHOICE

FAMILY = validate.OneOf(list(FAMILIES))


class TableCreateSchema(Request):
    family = fields.String(required=True, validate=FAMILY)
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
    table_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    player_id = fields.String(required=True)


class TableSeatSchema(Schema):
    """An occupied seat, as a table lists it."""

    seat = fields.Integer(required=True)
    player_id = fields.String(required=True)


class TableSchema(PositionSchema):
    table_id = fields.String(required=True)
    name = fields.String(required=True)
    family = fields.String(required=True, validate=FAMILY)
    rules = fields.Dict(keys=fields.String(), required=True)
    seats = fields.List(fields.Nested(TableSeatSchema), required=True)
    dealer = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": '"house" at a casino table; null until one is chosen'},
    )
    current_round = fields.String(required=True, allow_none=True)
    rounds = fields.Integer(required=True, metadata={"description": "rounds started so far"})
    round_ids = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "the latest rounds (up to 20), oldest first; all of them: "
                  "GET /v1/tables/{id}/rounds"},
    )  # fmt: skip
    pool = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "the pool's balance in minor units (VU-27/28); null at "
                  "tables of other families"},
    )  # fmt: skip
    closed = fields.Boolean(required=True)
    version = fields.Integer(required=True)


class TableResultSchema(PositionSchema):
    """What a table command returns (the fields its command sets)."""

    table_id = fields.String(required=True)
    dealer = fields.String()
    method = fields.String(
        validate=validate.OneOf(DEALER_CHOICE),
        metadata={"description": "how the dealer was chosen"},
    )
    recipient = fields.String()
    amount = fields.Integer()
    closed = fields.Boolean()
    replayed = fields.Boolean()
