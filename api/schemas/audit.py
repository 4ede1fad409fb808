"""The audit of a round (``replay/audit.py``), as ``GET /v1/rounds/{id}/audit`` and the audit
page give it: the whole document, and the hash chains of the streams it reads. Its parts are
beside it: audit_events, audit_hands, audit_money, audit_shoe, audit_rederived and
audit_divided."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.audit_divided import AuditDividedSettlementsSchema
from api.schemas.audit_events import AuditEventSchema
from api.schemas.audit_hands import AuditHandSchema
from api.schemas.audit_money import AuditBalanceSchema, AuditMoneySchema
from api.schemas.audit_rederived import AuditRederivedSchema
from api.schemas.audit_shoe import AuditCommittedBeforeDealSchema, AuditShoeSchema
from api.schemas.tables import FAMILY
from ledger.domain.hands import PHASES
from replay.audit import AUDIT_SCOPES, CHAIN_KINDS


class AuditChainStreamSchema(Schema):
    kind = fields.String(
        required=True,
        validate=validate.OneOf(CHAIN_KINDS),
        metadata={
            "description": "round, wallet, table (its record of the round and a "
            "Vingt-un pool's transfers) or shoe"
        },
    )
    stream = fields.String(required=True)
    events = fields.Integer(required=True)
    ok = fields.Boolean(required=True)
    fault = fields.String(required=True, allow_none=True)


class AuditChainSchema(Schema):
    """The hash chains of every stream the audit reads, each from its first event to its
    last. A chain does not show a stream's last events dropped (``replay verify`` does)."""

    ok = fields.Boolean(required=True)
    fault = fields.String(
        required=True, allow_none=True, metadata={"description": "the first stream at fault"}
    )
    events = fields.Integer(required=True, metadata={"description": "the round's own events"})
    events_checked = fields.Integer(
        required=True, metadata={"description": "events of all streams checked"}
    )
    streams = fields.List(fields.Nested(AuditChainStreamSchema), required=True)


class AuditRecordedAtSchema(Schema):
    """Where an event the audit weighs is recorded."""

    type = fields.String(required=True, metadata={"description": "e.g. Table.RoundClosed"})
    stream = fields.String(required=True)
    version = fields.Integer(required=True)
    position = fields.Integer(
        required=True, allow_none=True, metadata={"description": "in the ledger's log"}
    )


class AuditTableRecordSchema(Schema):
    """The table's record of the round against the round's own stream: a round is opened
    and closed in its table's stream in the writes that start and end it, so a round its
    table closed without a ``Round.Ended`` lost its last events (and a round that ended
    without its table's closing, the table its record of it)."""

    ok = fields.Boolean(required=True)
    fact = fields.String(required=True, metadata={"description": "one sentence"})
    opened = fields.Nested(
        AuditRecordedAtSchema,
        required=True,
        allow_none=True,
        metadata={"description": "the table's Table.RoundOpened of the round"},
    )
    closed = fields.Nested(
        AuditRecordedAtSchema,
        required=True,
        allow_none=True,
        metadata={"description": "the table's Table.RoundClosed of the round; null in play"},
    )
    ended = fields.Nested(
        AuditRecordedAtSchema,
        required=True,
        allow_none=True,
        metadata={"description": "the round's Round.Ended; null in play"},
    )


class RoundAuditSchema(Schema):
    """The audit of one round; a player sees only his own hands and balance, masked events."""

    round_id = fields.String(required=True)
    scope = fields.String(
        required=True,
        validate=validate.OneOf(AUDIT_SCOPES),
        metadata={"description": '"full" (auditor, admin) or "player"'},
    )
    table_id = fields.String(required=True)
    number = fields.Integer(required=True)
    family = fields.String(required=True, validate=FAMILY)
    rules = fields.Dict(keys=fields.String(), required=True)
    dealer = fields.String(required=True)
    phase = fields.String(required=True, validate=validate.OneOf(PHASES))
    ended = fields.Boolean(required=True)
    started_at = fields.String(required=True)
    last_event_at = fields.String(required=True)
    events = fields.List(fields.Nested(AuditEventSchema), required=True)
    hands = fields.List(fields.Nested(AuditHandSchema), required=True)
    dealer_hands = fields.List(fields.Nested(AuditHandSchema), required=True)
    round_transfers = fields.List(fields.Nested(AuditEventSchema), required=True)
    balances = fields.List(fields.Nested(AuditBalanceSchema), required=True)
    shoe = fields.Nested(AuditShoeSchema, required=True)
    shoes = fields.List(fields.Nested(AuditShoeSchema), required=True)
    committed_before_deal = fields.Nested(
        AuditCommittedBeforeDealSchema,
        required=True,
        metadata={"description": "every shoe's commitment before the round's first card from it"},
    )
    money_reconciles = fields.Nested(
        AuditMoneySchema,
        required=True,
        metadata={
            "description": "each wallet's transfers for the round against what the round's "
            "events say moved it (balances[].reconciled); a player sees his own only"
        },
    )
    divided_settlements = fields.Nested(
        AuditDividedSettlementsSchema,
        required=True,
        metadata={
            "description": "over the hands shown, whether each settlement weighed against the "
            "dealer's divided hands (VU-21, hands[].settlement.by_dealer_hand) sums to its "
            "recorded net; a player sees his own only"
        },
    )
    table_record = fields.Nested(
        AuditTableRecordSchema,
        required=True,
        metadata={
            "description": "does the table's record of the round (opened, closed) agree with "
            "the round's own stream (ended)?"
        },
    )
    chain = fields.Nested(AuditChainSchema, required=True)
    rederived = fields.Nested(
        AuditRederivedSchema,
        required=True,
        metadata={
            "description": "the round replayed through today's rules engine (`python -m "
            "replay rederive`): do its settlements follow from its cards?"
        },
    )
