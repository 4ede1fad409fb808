"""Events as the feeds serve them."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.common import QueryInteger, QuerySeconds


class EventSchema(Schema):
    type = fields.String(required=True)
    aggregate_id = fields.String(required=True)
    version = fields.Integer(required=True)
    timestamp = fields.String()
    position = fields.Integer(
        allow_none=True,
        metadata={
            "description": "the event's position in the ledger's log, in the round's events as"
            " in the table's feed (a cursor for ?after=)"
        },
    )
    data = fields.Dict(keys=fields.String(), metadata={"description": "masked for players"})


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
