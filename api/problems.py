"""The one shape of every error the API returns: an RFC 9457 problem document
(``application/problem+json``). Its kinds (the last segment of its ``type`` URI: each ledger
refusal's, each plain HTTP error's, the API's own), its schema as the OpenAPI document shows
it, and how a problem response is made. Which failure becomes which problem is api/errors.py.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

from flask import Response
from marshmallow import Schema, fields, validate
from werkzeug.exceptions import default_exceptions

from api.body import MalformedJson
from api.cursors import CursorBeyondLog, UnknownCursor
from ledger import errors as ledger_errors
from ledger.text import shown

PROBLEM_MEDIA_TYPE = "application/problem+json"
TYPE_BASE = "https://twenty-one-ledger.example/problems/"

# The problem kind of a plain HTTP error, by status; any other status is ``http-<status>``.
HTTP_KINDS = {
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


def http_kind(status: int) -> str:
    """The problem kind of a plain HTTP error with this status."""
    return HTTP_KINDS.get(status) or f"http-{status}"


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


def title_of(kind: str) -> str:
    """The title of a problem of this kind ("not-found": "Not found")."""
    return kind.replace("-", " ").capitalize()


def document_problems(api: Any) -> None:
    """The problem schema in the OpenAPI document, once, so every view can refer to it as
    "Problem". flask-smorest documents its error responses (422, default, …) with its own
    JSON "Error" schema; ours are problem documents, so the shared components say so."""
    if "Problem" not in api.spec.components.schemas:
        api.spec.components.schema("Problem", schema=ProblemSchema)
    problem_content = {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}}
    error_names = {s.name for s in HTTPStatus if s >= 400} | {"DEFAULT_ERROR"}
    for name, response in api.spec.components.responses_lazy.items():
        if name in error_names and "content" in response:
            response["content"] = dict(problem_content)
