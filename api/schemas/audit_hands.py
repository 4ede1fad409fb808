"""Each hand of an audited round (``replay/audit_hands.py``): its stakes and totals as they
moved, its settlement with the clauses and the arithmetic, its side payments and its net."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.audit_divided import AuditByDealerHandSchema
from api.schemas.audit_events import AuditClauseSchema
from ledger.domain.hands import OUTCOMES


class AuditSettlementSchema(Schema):
    version = fields.Integer(required=True)
    outcome = fields.String(required=True, validate=validate.OneOf(OUTCOMES))
    player_total = fields.Integer(required=True, allow_none=True)
    dealer_total = fields.Integer(required=True, allow_none=True)
    dealer_totals = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        required=True,
        allow_none=True,
        metadata={
            "description": "after the dealer divides (VU-21): each of his hands' totals by "
            "hand (keys sorted; the round's dealer_hands give the order he played them), every "
            "one weighed against this hand "
            "(dealer_total is his first's); null when he held one hand"
        },
    )
    dealer_played = fields.Boolean(
        required=True,
        metadata={
            "description": "false when the hand was settled before the dealer played "
            "(a natural, an over-draw): no dealer total was weighed"
        },
    )
    clauses = fields.List(fields.Nested(AuditClauseSchema), required=True)
    stake = fields.Integer(required=True)
    multiplier = fields.String(
        required=True, metadata={"description": 'the net per unit staked ("3/2", "-2")'}
    )
    raw = fields.String(required=True, metadata={"description": "stake × multiplier, exact"})
    arithmetic = fields.String(required=True)
    rounding = fields.String(
        required=True, metadata={"description": 'as recorded ("none", "down: 615/2 -> 307")'}
    )
    amount = fields.Integer(
        required=True,
        metadata={"description": "the player's net against the banker, in minor units"},
    )
    from_bank_cover = fields.Integer(required=True)
    by_dealer_hand = fields.Nested(
        AuditByDealerHandSchema,
        required=True,
        allow_none=True,
        metadata={
            "description": "after a Vingt-un dealer divides (VU-21): the hand against each of "
            "his hands, derived from the cards and the rules (the event records one net), "
            "summed against the recorded amount; null without a division, and for a hand "
            "settled before he played"
        },
    )


class AuditHandSchema(Schema):
    id = fields.String(required=True)
    player = fields.String(required=True, allow_none=True)
    seat = fields.Integer(required=True, allow_none=True)
    split_from = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "the original hand of the split this hand belongs to, as the round "
            "records it: the original names itself; null for a hand never split"
        },
    )
    split_into = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "the hands this hand's splits (or divisions) opened, in order"},
    )
    stake = fields.Integer(required=True)
    stakes = fields.List(fields.Dict(keys=fields.String()), required=True)
    cards = fields.List(fields.String(), required=True)
    aces = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    totals = fields.List(
        fields.Dict(keys=fields.String()),
        required=True,
        metadata={
            "description": "the hand's total after each card (split, ace choice); a split's "
            "or division's entry names the hand it opened (new_hand)"
        },
    )
    insurance = fields.Dict(keys=fields.String(), required=True, allow_none=True)
    surrendered = fields.Boolean(required=True)
    settlement = fields.Nested(AuditSettlementSchema, required=True, allow_none=True)
    side_payments = fields.List(
        fields.Dict(keys=fields.String()),
        required=True,
        metadata={
            "description": "money paid to (negative) or collected from (positive) another "
            "player's hand outside the settlement (VU-10): version, amount, clause, memo, "
            "to_hand, from_hand"
        },
    )
    side_net = fields.Integer(required=True, metadata={"description": "the side payments' sum"})
    net = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "the hand's net for its player: the settlement's amount plus "
            "side_net (null while neither has happened)"
        },
    )
