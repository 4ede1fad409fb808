"""An event as a round's audit lists it (``replay/audit_events.py``), with the clauses it
cites and their texts: the round's own events, its transfers and each shoe's own events."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.events import FEED_EVENT_TYPES


class AuditClauseSchema(Schema):
    id = fields.String(required=True)
    text = fields.String(
        required=True, allow_none=True, metadata={"description": "from RULES.md / README"}
    )


class AuditEventSchema(Schema):
    """An event as the audit lists it; ``player``, ``hand``, ``card`` and ``amount`` are
    copied from ``data`` when the event has them, and ``actor`` names who did it on every
    event."""

    position = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "the event's position in the ledger's notification log: the global "
            "order of `python -m replay export` and `verify` and of the round's `/trail` "
            "(the order in which events were committed)"
        },
    )
    stream = fields.String(
        required=True,
        metadata={"description": "the aggregate whose stream records the event (the round's, "
                  "or a table's for a transfer into its pool)"}
    )  # fmt: skip
    version = fields.Integer(required=True, metadata={"description": "in its stream"})
    type = fields.String(required=True, validate=validate.OneOf(FEED_EVENT_TYPES))
    time = fields.String(required=True, metadata={"description": "UTC, ISO 8601"})
    actor = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "who did it: the actor the event records (a player's id, the "
            'dealer\'s, "house", "admin", "ledger"); a shoe\'s cut: the player whose cut it '
            "is (`by`); a shoe's reveal: who retired the shoe (who closed the table, or "
            '"ledger"); "ledger" for an event the ledger writes by the rules of play, which '
            "records none (a phase, a hand opened, a card burned or shown, a settlement, a "
            "transfer, the bank's cover, a hold, the round's end). Null only where a player's "
            "view hides it (who stood on a hand he cannot see, a hand's close)"
        },
    )
    player = fields.Raw(allow_none=True)
    hand = fields.Raw(allow_none=True)
    card = fields.Raw(allow_none=True, metadata={"description": '"??" when hidden from you'})
    amount = fields.Raw(allow_none=True)
    clauses = fields.List(fields.Nested(AuditClauseSchema), required=True)
    data = fields.Dict(keys=fields.String(), required=True)
