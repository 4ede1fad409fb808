"""Positions of the ledger's log that a client passes back: a feed's cursor (``after``) and a
read's ``?position=`` (read your writes). Both name a place the log has reached (every
``next`` and every write's ``position`` is one), so one rule refuses a position beyond the
log's last one, at once, with one problem (422 ``cursor-beyond-log``): handed back as a
cursor it would skip every event written up to it, and waited for it would never come."""

from __future__ import annotations

from typing import Any

from werkzeug.exceptions import UnprocessableEntity

BEYOND_LOG = "cursor-beyond-log: a position beyond the log's last position"


class CursorBeyondLog(UnprocessableEntity):
    """422 ``cursor-beyond-log``: the request is well formed, the log is not there yet."""

    kind = "cursor-beyond-log"
    title = "Cursor beyond the log"


def log_head(app: Any) -> int:
    """The log's last position (0: empty)."""
    return app.recorder.max_notification_id() or 0


def within_the_log(app: Any, name: str, position: int, hint: str) -> int:
    """The log's head, once ``position`` (the query parameter ``name``) is checked against
    it: :class:`CursorBeyondLog` when it is beyond, saying what to pass instead (``hint``)."""
    head = log_head(app)
    if position > head:
        raise CursorBeyondLog(
            f"{name}={position} is beyond the log's last position ({head}): {hint}"
        )
    return head


class UnknownCursor(UnprocessableEntity):
    """422 ``unknown-cursor``: an ``after`` that is well formed but names nothing the list
    holds (the tables list pages by table id): a ``next`` the list never answered."""

    kind = "unknown-cursor"
    title = "Unknown cursor"
