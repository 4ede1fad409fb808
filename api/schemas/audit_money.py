"""The money of an audited round (``replay/audit_money.py``, ``replay/audit_reconcile.py``):
each wallet before and after, and whether its transfers are what the round's events say."""

from __future__ import annotations

from marshmallow import Schema, fields


class AuditReconciledSchema(Schema):
    """Whether a wallet's transfers for the round are what the round's events say moved it."""

    ok = fields.Boolean(
        required=True,
        allow_none=True,
        metadata={
            "description": "true: they match; false: they do not (a transfer dropped, added or "
            "altered: `python -m replay verify` names it); null: the round's money could not "
            "be derived from its events"
        },
    )
    said = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "the wallet's change as the round's events say it (the player's "
            "hands' nets, insurance, antes and penalties into a pool; a private dealer's side "
            "of every hand), in minor units"
        },
    )
    moved = fields.Integer(
        required=True,
        metadata={"description": "the sum of the wallet's round_movements, in minor units"},
    )
    fact = fields.String(required=True, metadata={"description": "the same in words"})


class AuditMoneySchema(Schema):
    """Over every wallet shown: does the round's money add up?"""

    ok = fields.Boolean(
        required=True,
        allow_none=True,
        metadata={
            "description": "true when every wallet shown reconciles, false when one does not, "
            "null when none could be weighed"
        },
    )
    wallets = fields.Integer(required=True, metadata={"description": "the wallets weighed"})
    fault = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "the first wallet that does not reconcile"},
    )


class AuditBalanceSchema(Schema):
    player = fields.String(required=True)
    account = fields.String(required=True)
    before = fields.Integer(
        required=True, metadata={"description": "before the round's first event"}
    )
    after = fields.Integer(required=True, metadata={"description": "after the round's last event"})
    change = fields.Integer(required=True)
    round_movements = fields.List(
        fields.Dict(keys=fields.String()),
        required=True,
        metadata={
            "description": "the wallet's transfers for the round: version, position (in the "
            "log), time, from_account, to_account, amount, change, clause, memo, and actor "
            '(who made it, as for the audit\'s events: "ledger", since a transfer records '
            "none)"
        },
    )
    parts = fields.Dict(
        required=True,
        keys=fields.String(),
        values=fields.Integer(),
        metadata={
            "description": "what makes up change: hands (the player's hands' nets), "
            "insurance, pool (antes and penalties paid into the pool) and banking (a private "
            "dealer's side of the hands)"
        },
    )
    reconciled = fields.Nested(AuditReconciledSchema, required=True)
