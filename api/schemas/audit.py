"""The audit of a round (``replay/audit.py``), as ``GET /v1/rounds/{id}/audit`` and the audit
page give it."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.audit_divided import AuditByDealerHandSchema, AuditDividedSettlementsSchema
from api.schemas.events import FEED_EVENT_TYPES
from api.schemas.tables import FAMILY
from ledger.domain.round import OUTCOMES, PHASES
from replay.audit import AUDIT_SCOPES, CHAIN_KINDS


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
            "log), time, from_account, to_account, amount, change, clause, memo"
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


class AuditChainStreamSchema(Schema):
    kind = fields.String(
        required=True,
        validate=validate.OneOf(CHAIN_KINDS),
        metadata={"description": "round, wallet, table (its pool) or shoe"},
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
    chain = fields.Nested(AuditChainSchema, required=True)
    rederived = fields.Nested(
        AuditRederivedSchema,
        required=True,
        metadata={
            "description": "the round replayed through today's rules engine (`python -m "
            "replay rederive`): do its settlements follow from its cards?"
        },
    )
