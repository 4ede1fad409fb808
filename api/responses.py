"""What each operation can answer, for the OpenAPI document: every status and header, derived
from what the view is made of, so the document says what the server does and cannot drift
from it. ``api.openapi.build_spec`` applies :func:`document` to every operation.

What is derived, and from what:

* 400 ``malformed-json``, 413 and 415: the operation takes a JSON body (api/body.py);
  400 ``bad-idempotency-key``: it is ``idempotent``;
* 401 (with ``WWW-Authenticate``): it is behind ``require``;
* 403: ``require`` admits only some roles for this method (a write never admits an auditor),
  or the ledger may refuse the actor (every write), or the view says so with :func:`answers`
  (a read that checks the caller against the data: another player's wallet);
* 404: the path names a resource;
* 409: a write to a resource the path names (a rule, turn, phase or concurrency refusal);
* 422: the view has a schema for its body or query, or is ``idempotent`` (a key reused);
* 503 (with ``Retry-After``), 422 ``cursor-beyond-log`` and 500 ``stored-events-damaged``:
  its query is a ``PositionArgsSchema``, so it reads the read models (``?position=``, projectors
  that stop at a damaged event);
* ``Location`` on a 201, ``Idempotent-Replayed`` on the successes of an ``idempotent`` view;
* anything else a view answers, it declares with ``@answers(status, reason)``.

``default`` stays for what no operation should answer: a 500 internal-error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from api.idempotency import HEADER as IDEMPOTENCY_HEADER
from api.idempotency import MAX_LENGTH, REPLAYED
from api.schemas.history import PositionArgsSchema

PROBLEM_CONTENT = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
DEFAULT = {
    "description": "internal-error: the server failed (logged; never expected)",
    "content": PROBLEM_CONTENT,
}
_SAFE = ("get", "head", "options")
_STATUS_TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    409: "Conflict",
    413: "Content too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    503: "Service unavailable",
}
_HEADERS: dict[int, dict[str, Any]] = {
    401: {
        "WWW-Authenticate": {
            "description": "the scheme to authenticate with: Bearer",
            "required": True,
            "schema": {"type": "string"},
        }
    },
    503: {
        "Retry-After": {
            "description": "projection-lag only: seconds to wait before asking again",
            "required": False,
            "schema": {"type": "string"},
        }
    },
}
LOCATION = {
    "description": "the URL of what was created (readable with GET)",
    "required": True,
    "schema": {"type": "string"},
}
IDEMPOTENT_REPLAYED = {
    "description": f"`true` when an earlier request with the same {IDEMPOTENCY_HEADER} "
    "applied the command: this is its answer replayed, or, when none was kept (a crash), an "
    "answer from the ledger's record of the command (nothing was written again)",
    "required": False,
    "schema": {"type": "string", "const": "true"},
}


def answers(status: int, reason: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a status a view answers that its decorators do not show (``reason`` starts
    with the problem kind). Place it anywhere among the view's decorators."""

    def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
        view.__dict__.setdefault("_answers", []).append((status, reason))
        return view

    return decorator


def _chain(view: Any) -> Iterator[Any]:
    """The view and every function it wraps (``functools.wraps`` links them)."""
    while view is not None:
        yield view
        view = getattr(view, "__wrapped__", None)


def _declared(view: Any) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for fn in _chain(view):
        for pair in fn.__dict__.get("_answers", ()):
            if pair not in found:
                found.append(pair)
    return found


def _arguments(view: Any) -> list[dict[str, Any]]:
    doc = getattr(view, "_apidoc", {}) or {}
    return list(doc.get("arguments", {}).get("parameters", []))


def is_idempotent(view: Any) -> bool:
    return any(fn.__dict__.get("_idempotent") for fn in _chain(view))


MALFORMED = (
    "malformed-json: the body is not JSON this API reads (syntax, not UTF-8, NaN, a member "
    "named twice, nesting deeper than 32)"
)
TOO_LARGE = "payload-too-large: a body of 64 KiB or more"
NOT_JSON = "unsupported-media-type: a body not sent as application/json"
BAD_KEY = f"bad-idempotency-key: {IDEMPOTENCY_HEADER} is not 1 to {MAX_LENGTH} printable characters"
NO_KEY = "unauthorized: no valid API key"
NOT_THIS_ACTOR = (
    "not-permitted: the ledger refuses this actor (another player's hand or seat, not the dealer)"
)
UNKNOWN = (
    "not-found (unknown-table, unknown-round, unknown-player, unknown-seat, …): a resource "
    "the request names does not exist"
)
REFUSED = (
    "a rule, turn or phase refusal citing its clause (rule-violation, out-of-turn, "
    "wrong-phase, insufficient-funds, …), or concurrent-update: reload and retry"
)
INVALID = "validation-error: the body or query fails its schema (errors: field -> messages)"
INVALID_COMMAND = "invalid-command or invalid-rules: the ledger refuses the command as given"
KEY_REUSED = f"idempotency-conflict: the {IDEMPOTENCY_HEADER} was first used with another request"
BEYOND_LOG = "cursor-beyond-log: ?position= is beyond the log's last position"
DAMAGED = (
    "stored-events-damaged: the read models stop at a stored event that cannot be decoded; "
    "the problem names it (stream, version, position; run `python -m replay verify`)"
)
NOT_PROJECTED = (
    "projection-lag: the read models have not reached ?position= in time (Retry-After); "
    "projection-superseded: this server is older than its read models (a deploy under way)"
)


def problem_statuses(
    view: Any, method: str, path: str, roles: list[str] | None, all_roles: tuple[str, ...]
) -> dict[int, list[str]]:
    """Status -> the reasons it can be answered, for one operation."""
    out: dict[int, list[str]] = {}

    def add(status: int, reason: str) -> None:
        reasons = out.setdefault(status, [])
        if reason not in reasons:
            reasons.append(reason)

    writes = method not in _SAFE
    arguments = _arguments(view)
    body = any(a["in"] == "json" for a in arguments)
    idempotent = is_idempotent(view)
    names_a_resource = "{" in path
    if body:
        add(400, MALFORMED)
        add(413, TOO_LARGE)
        add(415, NOT_JSON)
    if idempotent:
        add(400, BAD_KEY)
    if roles is not None:
        add(401, NO_KEY)
        if set(roles) != set(all_roles):
            add(403, f"forbidden: only {', '.join(roles)} keys may do this")
        if writes:
            add(403, NOT_THIS_ACTOR)
    if names_a_resource:
        add(404, UNKNOWN)
    if writes and names_a_resource:
        add(409, REFUSED)
    if arguments:
        add(422, INVALID)
    if body and writes:
        add(422, INVALID_COMMAND)
    if idempotent:
        add(422, KEY_REUSED)
    if any(isinstance(a.get("schema"), PositionArgsSchema) for a in arguments):
        add(422, BEYOND_LOG)
        add(500, DAMAGED)
        add(503, NOT_PROJECTED)
    for status, reason in _declared(view):
        add(status, reason)
    return dict(sorted(out.items()))


def document(
    operation: dict[str, Any],
    view: Any,
    method: str,
    path: str,
    roles: list[str] | None,
    all_roles: tuple[str, ...],
) -> None:
    """Rewrite ``operation["responses"]``: its successes (with their headers) as
    flask-smorest wrote them, then every problem status it can answer, then ``default``."""
    responses = {
        code: response
        for code, response in operation.get("responses", {}).items()
        if code != "default" and str(code).startswith("2")
    }
    idempotent = view is not None and is_idempotent(view)
    for code, response in responses.items():
        headers = response.setdefault("headers", {})
        if str(code) == "201":
            headers["Location"] = dict(LOCATION)
        if idempotent:
            headers[REPLAYED] = dict(IDEMPOTENT_REPLAYED)
        if not headers:
            del response["headers"]
    if view is not None:
        for status, reasons in problem_statuses(view, method, path, roles, all_roles).items():
            response = {
                "description": f"{_STATUS_TITLES.get(status, status)}: " + "; ".join(reasons),
                "content": dict(PROBLEM_CONTENT),
            }
            if status in _HEADERS:
                response["headers"] = {k: dict(v) for k, v in _HEADERS[status].items()}
            responses[str(status)] = response
    responses["default"] = dict(DEFAULT)
    operation["responses"] = responses
