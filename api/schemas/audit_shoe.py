"""The shoes of an audited round (``replay/audit_shoe.py``): the commitment, cut and seed
checked against every card, where and by whom each was recorded, and whether the shuffle was
fixed before the round's first card."""

from __future__ import annotations

from marshmallow import Schema, fields

from api.schemas.audit_events import AuditEventSchema


class AuditCausedBySchema(Schema):
    """The event, recorded in the same save, that made a reveal happen."""

    type = fields.String(required=True, metadata={"description": "Table.Closed"})
    stream = fields.String(required=True)
    version = fields.Integer(required=True)
    position = fields.Integer(
        required=True, allow_none=True, metadata={"description": "in the log"}
    )


class AuditRecordSchema(Schema):
    """Where one of a shoe's events was recorded."""

    version = fields.Integer(required=True, metadata={"description": "in the shoe's stream"})
    time = fields.String(required=True, metadata={"description": "UTC, ISO 8601"})
    position = fields.Integer(
        required=True, allow_none=True, metadata={"description": "in the log"}
    )
    actor = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "who committed the shoe, or cut it; for a reveal, who caused it "
            "(a `Shoe.Revealed` records no actor): who closed the table, from its "
            "`Table.Closed` (caused_by), or `ledger` when the rules retired the shoe"
        },
    )


class AuditCutRecordSchema(AuditRecordSchema):
    """Where a shoe's cut was recorded, and who chose its place."""

    chosen_by = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "who chose its place: the actor who gave it with his "
            "command (an admin, the dealer), `ledger` when it was drawn at random, `fixed` "
            "for a test shoe's; null on cuts recorded before this was kept (`actor` is the "
            "player whose cut it is by the rules, whoever chose it)"
        },
    )


class AuditRevealRecordSchema(AuditRecordSchema):
    """Where a shoe's reveal was recorded, why, and who caused it."""

    reason = fields.String(required=True, metadata={"description": "why the shoe was retired"})
    caused_by = fields.Nested(
        AuditCausedBySchema,
        required=True,
        allow_none=True,
        metadata={"description": "the event that named its actor; null: the rules"},
    )


class AuditShoeRecordedSchema(Schema):
    committed = fields.Nested(AuditRecordSchema, allow_none=True, required=True)
    cut = fields.Nested(AuditCutRecordSchema, allow_none=True, required=True)
    revealed = fields.Nested(AuditRevealRecordSchema, allow_none=True, required=True)


class AuditFirstCardSchema(Schema):
    version = fields.Integer(required=True, metadata={"description": "in the round's stream"})
    type = fields.String(required=True, metadata={"description": "CardDealt or CardBurned"})
    position = fields.Integer(required=True)
    time = fields.String(required=True)
    shoe_index = fields.Integer(required=True)


class AuditCommittedFirstSchema(Schema):
    """Whether a shoe's commitment and cut were recorded before the round's first card from
    it."""

    ok = fields.Boolean(
        required=True,
        allow_none=True,
        metadata={
            "description": "true: the commitment's and the cut's positions in the log are "
            "before the first card's; false: one is after it, or the shoe has no cut (a "
            "fault: the shuffle was not fixed before the deal); null: the round drew no card "
            "from this shoe"
        },
    )
    commitment_position = fields.Integer(required=True, allow_none=True)
    cut_position = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "the cut's position; null: no cut recorded"},
    )
    first_card = fields.Nested(AuditFirstCardSchema, allow_none=True, required=True)
    fact = fields.String(required=True, metadata={"description": "the same in words"})


class AuditShoeSchema(Schema):
    shoe_id = fields.String(required=True)
    commitment = fields.String(required=True)
    client_seed = fields.String(required=True)
    nonce = fields.Integer(required=True)
    packs = fields.Integer(required=True)
    stock = fields.List(
        fields.String(),
        required=True,
        allow_none=True,
        metadata={
            "description": "a shoe of the used cards a round ran out into (VU-29): the cards "
            "shuffled, in the unshuffled shoe's order; null for a whole shoe"
        },
    )
    algorithm = fields.String(required=True)
    fixed = fields.Boolean(required=True)
    cut = fields.Integer(required=True, allow_none=True)
    revealed = fields.Boolean(required=True)
    server_seed = fields.String(required=True, allow_none=True)
    cards_of_this_round = fields.Integer(required=True)
    check = fields.Dict(
        required=True,
        keys=fields.String(),
        metadata={"description": 'status "ok", "failed" or "not yet revealed"; every card'},
    )
    recorded = fields.Nested(AuditShoeRecordedSchema, required=True)
    committed_before_deal = fields.Nested(AuditCommittedFirstSchema, required=True)
    events = fields.List(
        fields.Nested(AuditEventSchema),
        required=True,
        metadata={
            "description": "the shoe's own events (Committed, Cut, Revealed) with their "
            "positions; a seed or order withheld from you is null"
        },
    )


class AuditCommittedBeforeDealSchema(Schema):
    ok = fields.Boolean(
        required=True,
        allow_none=True,
        metadata={
            "description": "false when a shoe's commitment was recorded after the round's "
            "first card from it; null when no shoe's order could be weighed"
        },
    )
    fault = fields.String(
        required=True, allow_none=True, metadata={"description": "the first shoe at fault"}
    )
