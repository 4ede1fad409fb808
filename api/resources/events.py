"""``/v1/tables/{id}/events``: the cursor-paged feed of a table, and the same as Server-Sent
Events for live tables."""

from __future__ import annotations

import json
import time
from typing import Any

from flask import Response, g, request, stream_with_context

from api.auth import authenticate, require
from api.body import Blueprint
from api.cursors import log_head, within_the_log
from api.problems import BAD_LAST_EVENT_ID, problem
from api.resources.common import ledger, table_members
from api.resources.feed import table_page
from api.responses import answers
from api.schemas.events import EventPageSchema, EventQuerySchema, StreamQuerySchema

blp = Blueprint("events", __name__, url_prefix="/v1/tables", description="Event feeds")

ANY_ROLE = ("admin", "auditor", "dealer", "player")
POLL_SECONDS = 0.5
BEYOND = "cursor-beyond-log: `after` is beyond the log's last position"


@blp.route("/<uuid:table_id>/events")
@require(*ANY_ROLE)
@answers(422, BEYOND)
@blp.arguments(EventQuerySchema(), location="query")
@blp.response(200, EventPageSchema)
def page(args, table_id):
    """The table's events after position ``after`` (masked for the caller); pass ``next``
    as ``after`` to get the following page. An empty page still advances ``next`` past
    other tables' events; while ``more`` is true, ask again at once."""
    app = ledger()
    head = _within_the_log(app, args["after"])  # the page reads on from this head
    items, cursor, more = table_page(
        app, table_members(), str(table_id), g.key, args["after"], args["limit"], head
    )
    return {"items": items, "next": cursor, "more": more}


def _within_the_log(app: Any, after: int) -> int:
    """The log's head, once ``after`` is checked against it (``api.cursors``)."""
    return within_the_log(app, "after", after, "pass 0 or a page's next")


@blp.route("/<uuid:table_id>/events/stream")
@require(*ANY_ROLE)
@answers(400, "bad-last-event-id: Last-Event-ID is not a position of the log (ASCII digits)")
@answers(422, BEYOND)
@blp.arguments(StreamQuerySchema(), location="query")
@blp.doc(
    responses={
        200: {
            "description": "Server-Sent Events: `id` = position, `event` = type, `data` = event",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        }
    }
)
def stream(args, table_id):
    """The table's events as they happen, from the ``Last-Event-ID`` header when there is
    one (a reconnect), else from ``after``, else from the log's start, polling the store
    every half second until ``timeout`` seconds have passed."""
    app, members, viewer, tid = ledger(), table_members(), g.key, str(table_id)
    # EventSource reconnects to the same URL, ?after= included, and adds Last-Event-ID: the
    # header is where the stream stopped, so it wins, or every reconnect replays from after.
    last = request.headers.get("Last-Event-ID", "")
    if last:
        # ASCII digits only: str.isdigit() also takes "١٢" and "²", which int() reads or not.
        head = log_head(app)
        if not (last.isascii() and last.isdigit()) or int(last) > head:
            return problem(
                400,
                "Bad Last-Event-ID",
                f"Last-Event-ID must be a position the log has reached (0 to {head}), "
                f"in ASCII digits; got {last[:40]!r}",
                kind=BAD_LAST_EVENT_ID,
            )
        after = int(last)
    elif args["after"] is not None:
        after = args["after"]
        _within_the_log(app, after)
    else:
        after = 0
    app.get_table(tid)  # an unknown table is a 404 now, not mid-stream
    deadline = time.monotonic() + args["timeout"]

    def events():
        cursor = after
        yield ": open\n\n"
        while True:
            items, cursor, more = table_page(app, members, tid, viewer, cursor, 100)
            for item in items:
                body = json.dumps(item, separators=(",", ":"))
                yield f"id: {item['position']}\nevent: {item['type']}\ndata: {body}\n\n"
            if more:  # a backlog: read on at once
                continue
            if time.monotonic() >= deadline:
                return
            # The key is checked again between polls (through the same cache as a request's,
            # so within API_KEY_CACHE_SECONDS): a revoked key's stream ends, as its next
            # request would be refused, rather than run on to its timeout.
            caller = authenticate()
            if caller is None or caller.id != viewer.id:
                yield ": the key was revoked\n\n"
                return
            time.sleep(POLL_SECONDS)

    return Response(
        stream_with_context(events()),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
