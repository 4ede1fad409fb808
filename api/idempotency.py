"""``Idempotency-Key`` for POST views: a client may retry a request safely.

Two layers, so a retry never applies a command twice even if the process dies between them:

1. the view passes ``flask.g.get("command_id")`` (``http:<api key id>:<Idempotency-Key>``) to
   the ledger command, whose own command record replays the first result;
2. after the view, a successful (2xx) response is kept in the ApiStore under the header and
   the API key, and a retry with the same method, path and body gets it back verbatim with
   ``Idempotent-Replayed: true``. The same header with another request is a 422 problem.

Only 2xx responses are kept: a refusal writes nothing to the ledger, so repeating the request
simply asks again (and may succeed once, say, the funds are there). Keys are per API key, so
two clients cannot collide, and they live in the store, so they survive restarts.

Twins sent at once (a client retrying before the first answer came) all miss the kept
response, and all reach the ledger, which applies the command once and answers the others
with its record of it, telling this module so (``note_replay``, whatever the view makes of
the result). Each of those waits for the first request's response to be kept and answers with
it; whichever twin keeps its response second answers with the first one kept. So every twin
gets the first response, with ``Idempotent-Replayed: true``. A request the ledger answered
from its record when no response is kept in time (the first request's process died) answers
with its own response, and says ``Idempotent-Replayed: true`` all the same.
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
from collections.abc import Callable
from copy import deepcopy
from typing import Any

from flask import Response, current_app, g, has_request_context, make_response, request
from marshmallow import missing
from werkzeug.exceptions import UnsupportedMediaType

from api.body import MalformedJson, body_bytes, json_body
from api.problems import BAD_IDEMPOTENCY_KEY, IDEMPOTENCY_CONFLICT, problem

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
MAX_LENGTH = 200
# Response headers replayed with the body (the rest are recomputed by Flask).
KEPT_HEADERS = ("Location",)
# How long a twin the ledger answered from its record waits for the first response to be kept.
# Past it (the first request's process died before keeping it), the twin's own answer stands.
FIRST_RESPONSE_WAIT = 2.0


def request_fingerprint() -> str:
    """Method, path (with query) and body; a JSON body is canonicalised so a retry that
    reorders keys or whitespace is still the same request. The body is read as the view reads
    it (api/body.py); one the view will refuse (415, 400) is taken as it came."""
    raw = body_bytes()  # 413 when over the limit
    try:
        parsed = json_body()
    except (MalformedJson, UnsupportedMediaType):
        body = raw
    else:
        # A number with a fraction or an exponent (Decimal) is written as its text: no body
        # holding one is ever accepted (money is a JSON integer), so none is ever replayed.
        canonical = "" if parsed is missing else _canonical(parsed)
        body = canonical.encode()
    digest = hashlib.sha256(body).hexdigest()
    return f"{request.method} {request.full_path.rstrip('?')} {digest}"


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def command_id_for(key_id: str, idem: str) -> str:
    """The ledger command id of a request: ``http:<api key id>:<Idempotency-Key>``, with a
    long header replaced by its SHA-256 so the id stays within the ledger's 200 characters."""
    command_id = f"http:{key_id}:{idem}"
    if len(command_id) > 200:
        command_id = f"http:{key_id}:sha256:{hashlib.sha256(idem.encode()).hexdigest()}"
    return command_id


def _stored_reply(stored: Any) -> Response:
    response = Response(stored.body, status=stored.status, mimetype=stored.mimetype)
    for name, value in stored.headers.items():
        response.headers[name] = value
    response.headers[REPLAYED] = "true"
    return response


def idempotent(view: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a POST view, inside ``require`` (it needs ``flask.g.key``)."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        idem = request.headers.get(HEADER)
        if idem is None:
            return view(*args, **kwargs)
        if not 1 <= len(idem) <= MAX_LENGTH or not idem.isprintable():
            return problem(
                400,
                "Bad Idempotency-Key",
                f"{HEADER} must be 1 to {MAX_LENGTH} printable characters",
                kind=BAD_IDEMPOTENCY_KEY,
            )
        key_id = g.key.id
        store = current_app.extensions["api_store"]
        print_ = request_fingerprint()
        stored = store.get_response(idem, key_id)
        if stored is not None:
            if stored.fingerprint != print_:
                return _conflict(idem)
            return _stored_reply(stored)

        g.command_id = command_id_for(key_id, idem)
        response = make_response(view(*args, **kwargs))
        if 200 <= response.status_code < 300 and not response.is_streamed:
            replayed = g.get("ledger_replayed", False)
            first = replayed and _first_response(store, idem, key_id)
            if first:
                return _conflict(idem) if first.fingerprint != print_ else _stored_reply(first)
            headers = {h: response.headers[h] for h in KEPT_HEADERS if h in response.headers}
            saved = store.save_response(
                idem,
                key_id,
                fingerprint=print_,
                status=response.status_code,
                body=response.get_data(as_text=True),
                mimetype=response.mimetype or "application/json",
                headers=headers,
            )
            if saved is not None:  # a concurrent twin's response was kept first
                return _conflict(idem) if saved.fingerprint != print_ else _stored_reply(saved)
            if replayed:  # kept as the first response now: the one that applied it is lost
                response.headers[REPLAYED] = "true"
        return response

    doc = deepcopy(getattr(view, "_apidoc", {}))
    manual = doc.setdefault("manual_doc", {})
    manual.setdefault("parameters", []).append(
        {
            "name": HEADER,
            "in": "header",
            "required": False,
            "description": "retry-safe request id, 1 to 200 characters, unique per API key",
            "schema": {"type": "string", "minLength": 1, "maxLength": MAX_LENGTH},
        }
    )
    wrapper._apidoc = doc  # type: ignore[attr-defined]
    wrapper._idempotent = True  # type: ignore[attr-defined]  # for api/responses.py
    return wrapper


def note_replay(command_id: str) -> None:
    """The ledger's ``on_replay``: it answered this request's command from its record (another
    request with this key applied it), whatever the view then makes of the result; a view's
    body may describe the state after the command, the same for every twin."""
    if has_request_context() and g.get("command_id") == command_id:
        g.ledger_replayed = True


def _first_response(store: Any, idem: str, key_id: str) -> Any:
    """The first request's response once it is kept, or None if it is not within
    ``FIRST_RESPONSE_WAIT``."""
    deadline = time.monotonic() + FIRST_RESPONSE_WAIT
    pause = 0.005
    while True:
        stored = store.get_response(idem, key_id)
        if stored is not None or time.monotonic() >= deadline:
            return stored
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _conflict(idem: str) -> Response:
    return problem(
        422,
        "Idempotency conflict",
        f"{HEADER} {idem!r} was first used with another request",
        kind=IDEMPOTENCY_CONFLICT,
    )
