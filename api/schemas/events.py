"""Events as the feeds serve them."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.common import QueryInteger, QuerySeconds
from api.visibility import CLOSED_EVENT
from ledger.domain.round import Round
from ledger.domain.shoe import Shoe
from ledger.domain.table import Table
from replay.event_schemas import event_classes


def event_types(*aggregates: type) -> list[str]:
    """The type names (``CardDealt``) of every event the streams of ``aggregates`` hold."""
    streams = {aggregate.__name__ for aggregate in aggregates}
    return sorted(
        {cls.__name__ for name, cls in event_classes().items() if name.split(".")[0] in streams}
    )


# A table's events, its rounds' and its shoes' (the feeds, a round's audit), and what a hidden
# hand's closing event reads as for a viewer who may not learn why it closed.
FEED_EVENT_TYPES = sorted({*event_types(Table, Round, Shoe), CLOSED_EVENT})


class EventSchema(Schema):
    type = fields.String(required=True, validate=validate.OneOf(FEED_EVENT_TYPES))
    aggregate_id = fields.String(required=True)
    version = fields.Integer(required=True)
    timestamp = fields.String(required=True)
    position = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "the event's position in the ledger's log, in the round's events as"
            " in the table's feed (a cursor for ?after=)"
        },
    )
    data = fields.Dict(
        keys=fields.String(), required=True, metadata={"description": "masked for players"}
    )


class EventPageSchema(Schema):
    items = fields.List(fields.Nested(EventSchema), required=True)
    next = fields.Integer(required=True, metadata={"description": "pass as ?after= next time"})
    more = fields.Boolean(
        required=True,
        metadata={
            "description": "the log held more after `next` when this page was read (a page"
            " reads at most 20,000 positions): ask again at once; false: nothing new yet"
        },
    )


CURSOR = {"description": "a position in the log (a page's `next`), at most the log's last"}


class EventQuerySchema(Schema):
    after = QueryInteger(
        load_default=0, validate=validate.Range(min=0, max=2**63 - 1), metadata=CURSOR
    )
    limit = QueryInteger(load_default=100, validate=validate.Range(min=1, max=1000))


class StreamQuerySchema(Schema):
    after = QueryInteger(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=0, max=2**63 - 1),
        metadata={
            "description": f"{CURSOR['description']}: where a first connection starts; a "
            "Last-Event-ID header (a reconnect) takes precedence"
        },
    )
    timeout = QuerySeconds(
        load_default=30.0,
        validate=validate.Range(min=0, max=300),
        metadata={
            "description": "seconds before the server ends the stream (0 to 300); an "
            "EventSource then reconnects and resumes from its Last-Event-ID"
        },
    )
