"""The audit's rederivation verdict (``replay/audit_rederived.py``): the round replayed
through today's rules engine, its settlements and money compared with the record."""

from __future__ import annotations

from marshmallow import Schema, fields


class AuditRederivedSettlementSchema(Schema):
    """A hand whose settlement differs: as recorded and as today's rules settle it."""

    hand = fields.String(required=True)
    recorded = fields.Dict(
        keys=fields.String(),
        required=True,
        allow_none=True,
        metadata={
            "description": "outcome, amount, multiplier, rounding, clauses, stake as the "
            "HandSettled recorded them; null: the record settles nothing"
        },
    )
    rederived = fields.Dict(
        keys=fields.String(),
        required=True,
        allow_none=True,
        metadata={"description": "the same as today's rules settle it; null: nothing"},
    )


class AuditRederivedSchema(Schema):
    """Whether the round, replayed through today's rules engine from its recorded rules,
    cards and decisions, comes out as recorded (``python -m replay rederive``)."""

    ok = fields.Boolean(
        required=True,
        allow_none=True,
        metadata={
            "description": "true: every settlement, and every amount staked, held, covered or "
            "paid on insurance, comes out as recorded; false: one does not, or today's rules "
            "part from the record (a settlement rewritten to contradict its cards, its "
            "transfers made to match and its hashes recomputed, fails here only); null: "
            "nothing to weigh (the round is still in play, or cannot be replayed: fact says "
            "why)"
        },
    )
    fact = fields.String(required=True, metadata={"description": "the same in one sentence"})
    differences = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": "the differences that count, as `replay rederive` prints them: "
            "settlements first, then money-bearing fields of other events; a player sees "
            "those of his own hands only"
        },
    )
    by_hand = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.String()),
        required=True,
        metadata={
            "description": "the same by the hand each touches (the bank's cover: the "
            "dealer's hand); a player sees his own hands only"
        },
    )
    settlements = fields.List(
        fields.Nested(AuditRederivedSettlementSchema),
        required=True,
        metadata={"description": "each hand whose settlement differs"},
    )
    event_differences = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": "differences that do not count: no money moves, or the ledger's "
            "older records are known to show them (README, rederive); none for a player"
        },
    )
    diverged = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "where today's rules part from the record (it may name a card: "
            "null for a player)"
        },
    )
