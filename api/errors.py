"""Every error the API returns is an RFC 9457 problem document (``application/problem+json``).

One shape for all failures: werkzeug's HTTP errors (404, 405, 413, …), webargs' validation
errors (422, field -> messages), malformed JSON (400), every ``LedgerError`` (mapped to a status
by its class, carrying the rule clause that refused it), stored events that cannot be read
(500 ``stored-events-damaged``, naming the event) and unexpected exceptions (500, logged here,
never shown to the client).
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

from flask import Flask, Response, current_app, request
from marshmallow import Schema, fields, validate
from werkzeug.exceptions import (
    HTTPException,
    NotFound,
    RequestEntityTooLarge,
    default_exceptions,
)

from api.body import MalformedJson
from api.cursors import CursorBeyondLog, UnknownCursor
from ledger import errors as ledger_errors
from ledger.text import shown

PROBLEM_MEDIA_TYPE = "application/problem+json"
TYPE_BASE = "https://twenty-one-ledger.example/problems/"

# The problem kind of a plain HTTP error, by status; any other status is ``http-<status>``.
_HTTP_KINDS = {
    400: "bad-request",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    409: "conflict",
    413: "payload-too-large",
    415: "unsupported-media-type",
    422: "validation-error",
    500: "internal-error",
    503: "projection-lag",
}
# The kinds the API's own checks name, besides the ledger's refusals (each ``LedgerError``'s
# ``kind``), the plain HTTP errors' and the HTTP errors that name their own (api/body.py,
# api/cursors.py).
BAD_IDEMPOTENCY_KEY = "bad-idempotency-key"
IDEMPOTENCY_CONFLICT = ledger_errors.IdempotencyConflict.kind
BAD_LAST_EVENT_ID = "bad-last-event-id"
PROJECTION_SUPERSEDED = "projection-superseded"
STORED_EVENTS_DAMAGED = "stored-events-damaged"
STORE_FILE_DAMAGED = "store-file-damaged"
_API_KINDS = (
    BAD_IDEMPOTENCY_KEY,
    BAD_LAST_EVENT_ID,
    PROJECTION_SUPERSEDED,
    STORED_EVENTS_DAMAGED,
    STORE_FILE_DAMAGED,
)
# Headers of a werkzeug error worth keeping (405's Allow, 401's WWW-Authenticate, …).
_KEPT_HEADERS = ("Allow", "WWW-Authenticate", "Retry-After")


def http_kind(status: int) -> str:
    """The problem kind of a plain HTTP error with this status."""
    return _HTTP_KINDS.get(status) or f"http-{status}"


def _refusals(cls: type[ledger_errors.LedgerError]) -> list[type[ledger_errors.LedgerError]]:
    return [cls, *(sub for child in cls.__subclasses__() for sub in _refusals(child))]


def problem_kinds() -> list[str]:
    """Every kind a problem document may name, sorted: each ledger refusal's, each HTTP
    error's (every status werkzeug raises), and the API's own."""
    kinds = {cls.kind for cls in _refusals(ledger_errors.LedgerError)}
    kinds |= {http_kind(status) for status in default_exceptions}
    kinds |= {MalformedJson.kind, CursorBeyondLog.kind, UnknownCursor.kind, *_API_KINDS}
    return sorted(kinds)


class ProblemSchema(Schema):
    """RFC 9457 problem details, as the OpenAPI document shows them."""

    type = fields.String(
        required=True,
        validate=validate.OneOf([TYPE_BASE + kind for kind in problem_kinds()]),
        metadata={"description": "URI naming the problem kind"},
    )
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String()
    clause = fields.String(metadata={"description": "RULES.md clause that refused the command"})
    lag = fields.Integer(
        metadata={"description": "503 only: events the read models still have to fold"}
    )
    wanted = fields.Integer(metadata={"description": "503 only: the position asked for"})
    reached = fields.Integer(metadata={"description": "503 only: the position reached"})
    projection = fields.String(
        metadata={
            "description": "503 projection-superseded only: the read model newer code rebuilt"
        }
    )
    stream = fields.String(
        metadata={"description": "stored-events-damaged only: the stream of the damaged event"}
    )
    version = fields.Integer(
        metadata={"description": "stored-events-damaged only: the damaged event's version"}
    )
    option = fields.String(
        metadata={"description": "invalid-rules only: the table option refused (or family)"}
    )
    position = fields.Integer(
        metadata={
            "description": "stored-events-damaged only: the damaged event's position in the "
            "log, when known (the read models name it; the round audit reads streams)"
        }
    )
    errors = fields.Dict(
        keys=fields.String(),
        values=fields.Raw(),
        metadata={"description": "invalid field -> messages (validation errors only)"},
    )


def problem(status: int, title: str, detail: str | None = None, **extra: Any) -> Response:
    """A problem response. ``kind`` (in ``extra``) names the type URI's last segment;
    ``headers`` (in ``extra``) are added to the response; other keys become members."""
    kind = extra.pop("kind", None) or http_kind(status)
    headers = extra.pop("headers", None) or {}
    body: dict[str, Any] = {"type": TYPE_BASE + kind, "title": title, "status": status}
    if detail:
        body["detail"] = detail
    body.update({k: v for k, v in extra.items() if v is not None})
    text = json.dumps(_printable(body), default=str)
    response = Response(text, status=status, mimetype=PROBLEM_MEDIA_TYPE)
    for name, value in headers.items():
        response.headers[name] = value
    return response


def _printable(value: Any) -> Any:
    """``value`` with every lone surrogate (a refused field's name or text, echoed back)
    written as ``\\udXXX``: a strict JSON parser refuses ``"\\ud800"``, and a problem
    document must parse everywhere."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, dict):
        return {_printable(k): _printable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_printable(v) for v in value]
    return value


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


def _title(kind: str) -> str:
    return kind.replace("-", " ").capitalize()


def handle_ledger_error(error: ledger_errors.LedgerError) -> Response:
    # A refused table option is named as a member too, so a form can mark its field.
    option = error.details.get("option") if isinstance(error, ledger_errors.InvalidRules) else None
    return problem(
        status_for(error),
        _title(error.kind),
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
        title = getattr(error, "title", None) or _title(kind)
        return problem(status, title, error.description, kind=kind, headers=headers)
    detail = data.get("message") or error.description
    if messages is not None:
        errors = _field_errors(messages)
        return problem(status, "Validation error", "the request is invalid", errors=errors)
    # One title per kind, as the ledger's refusals have ("Not found", not werkzeug's "Not
    # Found"); werkzeug's name only for a status the API has no kind of its own for.
    title = _title(_HTTP_KINDS[status]) if status in _HTTP_KINDS else error.name
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


def _document_problems(api: Any) -> None:
    """flask-smorest documents its error responses (422, default, …) with its own JSON
    "Error" schema; ours are problem documents, so the shared components say so."""
    problem_content = {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}}
    error_names = {s.name for s in HTTPStatus if s >= 400} | {"DEFAULT_ERROR"}
    for name, response in api.spec.components.responses_lazy.items():
        if name in error_names and "content" in response:
            response["content"] = dict(problem_content)


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
    # Documented once so every view can refer to it as "Problem".
    if "Problem" not in api.spec.components.schemas:
        api.spec.components.schema("Problem", schema=ProblemSchema)
    _document_problems(api)
    from api.auth import register_security

    register_security(api)
