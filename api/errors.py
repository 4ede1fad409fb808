"""Which problem document (api/problems.py) each failure the API meets becomes.

werkzeug's HTTP errors (404, 405, 413, …), webargs' validation errors (422, field ->
messages), malformed JSON (400), every ``LedgerError`` (mapped to a status by its class,
carrying the rule clause that refused it), stored events that cannot be read (500
``stored-events-damaged``, naming the event) and unexpected exceptions (500, logged here,
never shown to the client).
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, current_app, request
from werkzeug.exceptions import HTTPException, NotFound, RequestEntityTooLarge

from api.problems import (
    HTTP_KINDS,
    PROJECTION_SUPERSEDED,
    STORE_FILE_DAMAGED,
    STORED_EVENTS_DAMAGED,
    document_problems,
    problem,
    title_of,
)
from ledger import errors as ledger_errors

# Headers of a werkzeug error worth keeping (405's Allow, 401's WWW-Authenticate, …).
_KEPT_HEADERS = ("Allow", "WWW-Authenticate", "Retry-After")


def status_for(error: ledger_errors.LedgerError) -> int:
    """The HTTP status of a ledger refusal (order matters: NotPermitted is a RuleViolation)."""
    if isinstance(error, ledger_errors.IdempotencyConflict):
        return 422
    if isinstance(error, ledger_errors.InvalidCommand):
        return 422
    if isinstance(error, ledger_errors.NotFound):
        return 404
    if isinstance(error, ledger_errors.NotPermitted):
        return 403
    if isinstance(error, ledger_errors.RuleViolation | ledger_errors.ConcurrentUpdate):
        return 409
    return 400


def handle_ledger_error(error: ledger_errors.LedgerError) -> Response:
    # A refused table option is named as a member too, so a form can mark its field.
    option = error.details.get("option") if isinstance(error, ledger_errors.InvalidRules) else None
    return problem(
        status_for(error),
        title_of(error.kind),
        error.message,
        kind=error.kind,
        clause=error.clause,
        option=option,
    )


def _field_errors(messages: Any) -> dict[str, Any]:
    """webargs nests messages by location (``{"json": {"amount": [...]}}``); clients want the
    field names. Query/path errors keep a location prefix so they cannot clash with body ones."""
    if not isinstance(messages, dict):
        return {"_schema": messages}
    flat: dict[str, Any] = {}
    for location, by_field in messages.items():
        if not isinstance(by_field, dict):
            flat[location] = by_field
            continue
        for name, errs in by_field.items():
            key = name if location in ("json", "form") else f"{location}.{name}"
            flat[key] = errs
    return flat


def handle_http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    headers = {k: v for k, v in error.get_headers() if k in _KEPT_HEADERS}
    headers.update(data.get("headers") or {})
    messages = data.get("messages")
    kind = getattr(error, "kind", None)  # api/body.py's MalformedJson names its own
    if kind is not None:
        title = getattr(error, "title", None) or title_of(kind)
        return problem(status, title, error.description, kind=kind, headers=headers)
    detail = data.get("message") or error.description
    if messages is not None:
        errors = _field_errors(messages)
        return problem(status, "Validation error", "the request is invalid", errors=errors)
    # One title per kind, as the ledger's refusals have ("Not found", not werkzeug's "Not
    # Found"); werkzeug's name only for a status the API has no kind of its own for.
    title = title_of(HTTP_KINDS[status]) if status in HTTP_KINDS else error.name
    return problem(status, title, _plain_detail(detail), headers=headers)


def _plain_detail(detail: str | None) -> str | None:
    """werkzeug's own words for a routing miss and an oversized body speak of "the URL" and
    "the data value": said again in the API's terms."""
    if detail == NotFound.description:
        return f"nothing at {request.path}: check the path (ids are UUIDs) against /docs"
    if detail == RequestEntityTooLarge.description:
        limit = current_app.config.get("MAX_CONTENT_LENGTH") or 0
        return f"the body is too large: a request body is at most {limit // 1024} KiB"
    return detail


def handle_projection_lag(error: Any) -> Response:
    return problem(
        503,
        "Read models behind",
        str(error),
        wanted=error.wanted,
        reached=error.reached,
        lag=error.wanted - error.reached,
        headers={"Retry-After": "1"},
    )


def handle_projection_superseded(error: Any) -> Response:
    # Not this request's fault, nor a lag that waiting cures: this server is older than
    # its read models (a deploy under way) and a newer one should answer.
    current_app.logger.error("%s", error)
    return problem(
        503,
        "Server older than its read models",
        str(error),
        kind=PROJECTION_SUPERSEDED,
        projection=error.name,
    )


def handle_store_damaged(error: Any) -> Response:
    # Not the request's fault and not cured by retrying: a stored event cannot be read or is
    # missing. The operator needs to know which one (the detail names it); clients get a
    # problem they can tell apart from a bug.
    current_app.logger.error("%s", error)
    return problem(
        500,
        "Stored events damaged",
        str(error),
        kind=STORED_EVENTS_DAMAGED,
        stream=error.stream,
        version=error.version,
        position=error.position,
    )


def handle_store_error(error: Exception) -> Response:
    # A SQLite file SQLite cannot read (cut short, a page overwritten) is named as the replay
    # tools and the audit page name it; any other store error is an unexpected one.
    from replay.store_file import unreadable_file

    unreadable = unreadable_file(error, current_app.config.get("STORE_ENV"))
    if unreadable is None:
        return handle_unexpected(error)
    current_app.logger.error("%s", unreadable)
    return problem(500, "Store file damaged", str(unreadable), kind=STORE_FILE_DAMAGED)


def handle_unexpected(error: Exception) -> Response:
    try:
        damaged = _altered_event_behind(error)
    except Exception:  # the search must never turn one failure into another
        damaged = None
    if damaged is not None:
        return handle_store_damaged(damaged)
    current_app.logger.exception("unexpected error while handling a request", exc_info=error)
    return problem(500, "Internal error", "the server failed; the error has been logged")


def _altered_event_behind(error: Exception) -> Any:
    """The ``StoreDamaged`` for a stored event that decoded but lost or retyped a field, when
    ``error`` was raised while such an event was applied to its aggregate (a round, table or
    wallet loaded to answer a request): the library folds without checking shapes, so the
    event is found on the failing frames and held to its class, as the replay tools do."""
    from replay.damage import altered_event
    from replay.event_shape import misshapen

    trace = error.__traceback__
    while trace is not None:
        event = trace.tb_frame.f_locals.get("self")
        if hasattr(event, "originator_version"):
            wrong = misshapen(event)
            if wrong is not None:
                return altered_event(event, wrong)
        trace = trace.tb_next
    return None


def init_app(app: Flask, api: Any) -> None:
    """Install the handlers; they replace flask-smorest's own JSON error handler."""
    api.handle_http_exception = handle_http_exception
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(ledger_errors.LedgerError, handle_ledger_error)
    app.register_error_handler(Exception, handle_unexpected)
    from replay.projections import ProjectionLag, ProjectionSuperseded

    app.register_error_handler(ProjectionLag, handle_projection_lag)
    app.register_error_handler(ProjectionSuperseded, handle_projection_superseded)
    from replay.damage import StoreDamaged

    app.register_error_handler(StoreDamaged, handle_store_damaged)
    import sqlite3

    from eventsourcing.persistence import PersistenceError

    app.register_error_handler(sqlite3.DatabaseError, handle_store_error)
    app.register_error_handler(PersistenceError, handle_store_error)
    document_problems(api)
    from api.auth import register_security

    register_security(api)
