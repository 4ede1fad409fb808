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
    """An event as the audit lists it; ``actor``, ``player``, ``hand``, ``card`` and
    ``amount`` are copied from ``data`` when the event has them."""

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
    actor = fields.Raw(allow_none=True)
    player = fields.Raw(allow_none=True)
    hand = fields.Raw(allow_none=True)
    card = fields.Raw(allow_none=True, metadata={"description": '"??" when hidden from you'})
    amount = fields.Raw(allow_none=True)
    clauses = fields.List(fields.Nested(AuditClauseSchema), required=True)
    data = fields.Dict(keys=fields.String(), required=True)
