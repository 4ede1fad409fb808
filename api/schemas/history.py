"""Bankroll, round history and table results, as read from the projections."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.common import QueryInteger
from api.schemas.tables import FAMILY
from replay.event_schemas import event_classes
from replay.projections.audit_trail import AuditTrail
from replay.projections.history_columns import ROUND_ROLES, ROUND_STATUSES
from replay.projections.queries import TABLE_STATUSES

PROJECTED = {"description": "the position the read models had reached when answering"}


def not_yet_field(until: str) -> fields.String:
    """A time that has not happened yet (a round's end, a table's closing): null until then,
    in every answer that carries one."""
    return fields.String(
        required=True,
        allow_none=True,
        metadata={"description": f"UTC, ISO 8601; null while {until}"},
    )


class ProjectedSchema(Schema):
    """What every read-model answer carries: the position it reflects."""

    projected_to = fields.Integer(required=True, metadata=PROJECTED)


class PageSchema(ProjectedSchema):
    """A page of a read-model list."""

    next = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "pass as `after` for the next page; null after the last"},
    )


class PositionArgsSchema(Schema):
    """A read that answers whole (a round's trail, a table's results): no page to size."""

    position = QueryInteger(
        validate=validate.Range(min=0, max=2**63 - 1),
        metadata={
            "description": "read-your-writes: answer only once the read models have reached "
            "this position (the `position` a write returned); 503 if not in time, 422 "
            "(cursor-beyond-log) beyond the log's last position"
        },
    )


class ReadArgsSchema(PositionArgsSchema):
    limit = QueryInteger(load_default=50, validate=validate.Range(min=1, max=1000))


class MovementArgsSchema(ReadArgsSchema):
    after = QueryInteger(
        load_default=0,
        validate=validate.Range(min=0, max=2**63 - 1),
        metadata={"description": "a movement's seq: the page starts after it"},
    )


class RoundArgsSchema(ReadArgsSchema):
    after = QueryInteger(
        load_default=0,
        validate=validate.Range(min=0, max=2**63 - 1),
        metadata={"description": "a round number: the page starts after it"},
    )


class PlayerRoundArgsSchema(ReadArgsSchema):
    after = QueryInteger(
        load_default=0,
        validate=validate.Range(min=0, max=2**63 - 1),
        metadata={"description": "a round's `joined`: the page starts after it"},
    )


class TableListArgsSchema(ReadArgsSchema):
    status = fields.String(
        validate=validate.OneOf(TABLE_STATUSES),
        metadata={"description": "only open tables (a lobby), or only closed ones"},
    )
    family = fields.String(validate=FAMILY, metadata={"description": "only tables of it"})
    after = fields.UUID(
        metadata={"description": "a table id (a page's `next`): the page starts after it"}
    )


class MovementSchema(Schema):
    seq = fields.Integer(required=True, metadata={"description": "1, 2, 3 … per account"})
    position = fields.Integer(required=True)
    time = fields.String(required=True, metadata={"description": "UTC, ISO 8601"})
    stream = fields.String(required=True)
    version = fields.Integer(required=True)
    from_account = fields.String(required=True)
    to_account = fields.String(required=True)
    amount = fields.Integer(required=True)
    change = fields.Integer(required=True, metadata={"description": "+ in, - out"})
    balance = fields.Integer(required=True, metadata={"description": "running balance after"})
    clause = fields.String(required=True)
    memo = fields.String(required=True)
    round_id = fields.String(required=True)


class AccountSchema(PageSchema):
    account = fields.String(required=True)
    balance = fields.Integer(required=True)
    held = fields.Integer(
        required=True, metadata={"description": "staked into escrow of rounds still open"}
    )
    movements_total = fields.Integer(required=True)
    movements = fields.List(fields.Nested(MovementSchema), required=True)


class BankrollSchema(AccountSchema):
    player_id = fields.String(required=True)


ROUND_NET = {
    "description": "the wallet's change from the round's transfers, once it has ended; null "
    "while it is in play (what he holds in its escrow is not lost)"
}


class RoundPlayerSchema(Schema):
    player_id = fields.String(required=True)
    role = fields.String(required=True, validate=validate.OneOf(ROUND_ROLES))
    hands = fields.Integer(required=True)
    staked = fields.Integer(required=True)
    net = fields.Integer(required=True, allow_none=True, metadata=ROUND_NET)


class RoundSummarySchema(Schema):
    round_id = fields.String(required=True)
    table_id = fields.String(required=True)
    number = fields.Integer(required=True)
    family = fields.String(required=True, validate=FAMILY)
    dealer = fields.String(required=True)
    started_at = fields.String(required=True)
    ended_at = not_yet_field("in play")
    status = fields.String(required=True, validate=validate.OneOf(ROUND_STATUSES))
    hands = fields.Integer(required=True)
    settled = fields.Integer(required=True)
    passes_deal = fields.String(
        required=True,
        metadata={
            "description": "the clause that passed the deal on at this round's end (VU-10 in "
            "Vingt-un, H13-4 in Hoyle); empty when the deal stayed where it was"
        },
    )
    position = fields.Integer(required=True, metadata={"description": "its newest event"})
    players = fields.List(fields.Nested(RoundPlayerSchema), required=True)


class TableRoundsSchema(PageSchema):
    table_id = fields.String(required=True)
    rounds = fields.List(fields.Nested(RoundSummarySchema), required=True)


class PlayerRoundSchema(Schema):
    joined = fields.Integer(
        required=True,
        metadata={"description": "where he joined the round in the log: pass the last one "
                  "as `after` for the next page"},
    )  # fmt: skip
    round_id = fields.String(required=True)
    table_id = fields.String(required=True)
    number = fields.Integer(required=True)
    family = fields.String(required=True, validate=FAMILY)
    status = fields.String(required=True, validate=validate.OneOf(ROUND_STATUSES))
    started_at = fields.String(required=True)
    ended_at = not_yet_field("in play")
    role = fields.String(required=True, validate=validate.OneOf(ROUND_ROLES))
    hands = fields.Integer(required=True)
    staked = fields.Integer(required=True)
    net = fields.Integer(required=True, allow_none=True, metadata=ROUND_NET)


class PlayerRoundsSchema(PageSchema):
    player_id = fields.String(required=True)
    rounds = fields.List(fields.Nested(PlayerRoundSchema), required=True)


class TableListItemSchema(Schema):
    table_id = fields.String(required=True)
    name = fields.String(required=True)
    family = fields.String(required=True, validate=FAMILY)
    opened_at = fields.String(required=True, metadata={"description": "UTC, ISO 8601"})
    closed_at = not_yet_field("open")
    status = fields.String(required=True, validate=validate.OneOf(TABLE_STATUSES))
    rounds = fields.Integer(required=True, metadata={"description": "rounds started"})


class TableListSchema(ProjectedSchema):
    tables = fields.List(fields.Nested(TableListItemSchema), required=True)
    next = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "pass as `after` for the next page; null after the last"},
    )


class TableResultsSchema(ProjectedSchema):
    table_id = fields.String(required=True)
    name = fields.String(required=True)
    family = fields.String(required=True, validate=FAMILY)
    opened_at = fields.String(required=True, metadata={"description": "UTC, ISO 8601"})
    closed_at = not_yet_field("open")
    rounds = fields.Integer(required=True)
    naturals = fields.Integer(required=True)
    busts = fields.Integer(required=True)
    staked = fields.Integer(
        required=True, metadata={"description": "by punters, in the rounds that have ended"}
    )
    punters_net = fields.Integer(
        required=True, metadata={"description": "punters' wallets' change, rounds ended"}
    )
    returned = fields.Integer(required=True, metadata={"description": "staked + punters' net"})
    return_to_player = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "returned / staked, four places; null when nothing was staked"},
    )
    banker_net = fields.Integer(
        required=True, metadata={"description": "private families, rounds ended"}
    )
    house_net = fields.Integer(required=True, metadata={"description": "casino, rounds ended"})
    pool_balance = fields.Integer(required=True, metadata={"description": "VU-27/28"})
    in_play_rounds = fields.Integer(
        required=True, metadata={"description": "rounds started and not yet ended"}
    )
    in_play_staked = fields.Integer(
        required=True, metadata={"description": "by punters, in the rounds in play"}
    )
    held = fields.Integer(
        required=True, metadata={"description": "in escrow of the rounds in play"}
    )


# The events a round's trail holds (``Round.CardDealt``): the round's, and the transfers made
# for it in the wallets' and the table's streams (of the names its projector handles, those
# of events stored: not the library's ``Round.Event`` and ``Round.Created``).
TRAIL_EVENT_TYPES = sorted(set(AuditTrail().handlers()) & set(event_classes()))


class TrailEntrySchema(Schema):
    position = fields.Integer(required=True)
    stream = fields.String(required=True)
    version = fields.Integer(required=True)
    time = fields.String(required=True)
    type = fields.String(required=True, validate=validate.OneOf(TRAIL_EVENT_TYPES))
    actor = fields.String(
        required=True,
        metadata={
            "description": "who did it, as the round's audit names it: the actor the event "
            'records (a player\'s id, the dealer\'s, "house", "admin", "ledger"); "ledger" for '
            "an event the ledger writes by the rules of play, which records none (a phase, a "
            "hand opened, a card burned or shown, a settlement, a transfer, the bank's cover, "
            "a hold, the round's end)"
        },
    )
    hand = fields.String(required=True)
    card = fields.String(required=True)
    amount = fields.Integer(required=True, allow_none=True)
    clauses = fields.String(required=True)
    data = fields.Dict(required=True)
    prev_hash = fields.String(required=True)
    hash = fields.String(required=True)


class TrailSchema(ProjectedSchema):
    round_id = fields.String(required=True)
    entries = fields.List(fields.Nested(TrailEntrySchema), required=True)
