"""A Vingt-un settlement weighed against each of the dealer's divided hands (VU-21), as the
audit derives it (``replay/audit_divided.py``), and the verdict over the hands shown."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.audit_events import AuditClauseSchema


class AuditDealerPartSchema(Schema):
    """The hand against one of the dealer's hands."""

    dealer_hand = fields.String(
        required=True, metadata={"description": "dealer, dealer2, dealer3 or dealer4"}
    )
    player_total = fields.Integer(required=True, metadata={"description": "from its cards"})
    dealer_total = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "that dealer hand's, from its cards; null: not shown to you"},
    )
    outcome = fields.String(required=True, validate=validate.OneOf(("won", "lost")))
    tie = fields.Boolean(
        required=True, metadata={"description": "a tie, which the dealer wins (VU-14, VU-27 c)"}
    )
    multiplier = fields.String(
        required=True, metadata={"description": 'the net per unit staked ("2", "-1")'}
    )
    amount = fields.Integer(
        required=True, metadata={"description": "stake × multiplier, in minor units"}
    )
    clauses = fields.List(fields.Nested(AuditClauseSchema), required=True)


class AuditByDealerHandSchema(Schema):
    """Derived, not recorded: ``HandSettled`` records one net against all his hands."""

    derived = fields.Boolean(
        required=True,
        metadata={"description": "true: the parts are derived from the cards and the rules"},
    )
    basis = fields.String(required=True, metadata={"description": "how, in one sentence"})
    parts = fields.List(
        fields.Nested(AuditDealerPartSchema),
        required=True,
        metadata={"description": "one for each dealer hand, in the order he played them"},
    )
    sum = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "the parts' amounts summed; null: no part could be derived"},
    )
    recorded = fields.Integer(
        required=True, metadata={"description": "the settlement's amount as recorded"}
    )
    ok = fields.Boolean(
        required=True,
        metadata={
            "description": "false: the parts do not sum to the recorded net, or the "
            "settlement records a total its cards do not make (a fault)"
        },
    )
    fault = fields.String(required=True, allow_none=True)


class AuditDividedSettlementsSchema(Schema):
    ok = fields.Boolean(
        required=True,
        allow_none=True,
        metadata={
            "description": "every settlement weighed against the dealer's divided hands sums "
            "to its recorded net; null: none was (no division, or none settled yet)"
        },
    )
    hands = fields.Integer(required=True, metadata={"description": "how many were weighed"})
    fault = fields.String(
        required=True, allow_none=True, metadata={"description": "the first hand at fault"}
    )
