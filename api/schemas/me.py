"""The calling key, as ``GET /v1/me`` describes it."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.auth import ROLES


class MeSchema(Schema):
    key_id = fields.String(
        required=True, metadata={"description": "the key's id (never its secret)"}
    )
    role = fields.String(required=True, validate=validate.OneOf(ROLES))
    label = fields.String(required=True, metadata={"description": "empty when the key has none"})
    player_id = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "the player a player or dealer key acts as (its hands are those "
            "whose `player` is this id); null for admin, auditor and the house dealer"
        },
    )
    acts_as = fields.String(
        required=True,
        metadata={
            "description": "the actor the ledger records for this key's commands: its player, "
            "`house` (a dealer key without a player), `admin` or `auditor`"
        },
    )
