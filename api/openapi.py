"""The OpenAPI 3.1 document: flask-smorest's, generated from the marshmallow schemas, completed
with what it cannot see (the plain-Flask service routes, each operation's roles, summaries).

``python -m api.openapi`` writes it to ``schemas/openapi.json`` (sorted keys, indent 2, so a
regenerated file only differs where the API did); ``--check`` exits 1 when that file is stale.
``GET /openapi.json`` serves the same document and ``GET /docs`` renders it (api/docs.py).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from pathlib import Path
from typing import Any

from flask import Flask

from api import auth, responses
from api.auth import ROLES

COMMITTED = Path(__file__).resolve().parent.parent / "schemas" / "openapi.json"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
_SAFE = ("get", "head", "options")

DESCRIPTION = """\
Every command and view of the Twenty-One Ledger over HTTP.

* **Authentication**: `Authorization: Bearer <key>`. Keys are created with
  `flask --app api keys create --role ROLE [--player ID]`. Roles: `admin` (everything),
  `dealer` (runs rounds and the dealer's own choices), `player` (acts only for its player),
  `auditor` (reads everything, writes nothing). Each operation lists the roles it admits
  in `x-roles`.
* **Errors** are RFC 9457 problem documents (`application/problem+json`): `type`, `title`,
  `status`, `detail`, plus `clause` (the rule that refused) and `errors` (field -> messages).
  Each operation lists the statuses it can answer and why: 400 a body that is not JSON, a bad
  `Idempotency-Key` or `Last-Event-ID`; 401 no or bad key; 403 a role or player that may not;
  404 an unknown resource; 409 a rule, turn, phase or concurrency refusal; 413 a body of 64 KiB
  or more; 415 a body not sent as `application/json`; 422 a body or query that fails its
  schema, a command the ledger refuses as given, a reused `Idempotency-Key`; 503 read models
  behind or newer than this server. A refused request writes nothing.
* **Input**: bodies are JSON objects in UTF-8 and refuse unknown members. Numbers are JSON
  integers written without a fraction or an exponent (`200`, never `200.0` or `2e2`: money
  is never rounded). Text holds no control characters or lone surrogates, and a name shows
  at least one visible character (the `pattern`s say so).
* **Retries**: every POST accepts an `Idempotency-Key` header; a retry with the same key and
  body returns the first response and writes nothing.
* **Paging**: `GET /v1/tables/{table_id}/events?after=CURSOR&limit=N` returns `items` and
  `next`; pass `next` as `after` to continue.
"""

# One line per operation for the docs' table of contents; an operation missing here falls
# back to its view's docstring (flask-smorest's summary) or its view's name.
SUMMARIES = {
    "post /v1/players": "Register a player",
    "get /v1/players/{player_id}": "A player and his balance",
    "post /v1/players/{player_id}/deposits": "Deposit into a player's wallet",
    "post /v1/players/{player_id}/withdrawals": "Withdraw from a player's wallet",
    "get /v1/players/{player_id}/bankroll": "Balance, held stakes and transfer history",
    "post /v1/tables": "Open a table",
    "get /v1/tables/{table_id}": "A table: rules, seats, dealer, rounds",
    "post /v1/tables/{table_id}/seats": "Seat a player",
    "get /v1/tables/{table_id}/seats/{seat}": "Who sits in a seat",
    "delete /v1/tables/{table_id}/seats/{seat}": "Leave a seat",
    "post /v1/tables/{table_id}/dealer": "Choose the dealer",
    "get /v1/tables/{table_id}/deal-offer": "The open offer of the deal (VU-31)",
    "post /v1/tables/{table_id}/deal-offer": "Offer the deal for a price (VU-31)",
    "post /v1/tables/{table_id}/deal-offer/acceptance": "Accept the deal at its price (VU-31)",
    "delete /v1/tables/{table_id}/deal-offer": "Withdraw or decline the offer (VU-31)",
    "post /v1/tables/{table_id}/deal-sales": "Record an agreed sale of the deal (VU-31)",
    "post /v1/tables/{table_id}/pool-payouts": "Pay from the table's pool",
    "post /v1/tables/{table_id}/close": "Close a table",
    "post /v1/tables/{table_id}/rounds": "Start a round",
    "get /v1/rounds/{round_id}": "A round as the caller may see it",
    "post /v1/rounds/{round_id}/actions": "Take an action (tagged union on `action`)",
    "get /v1/rounds/{round_id}/events": "A round's events",
    "get /v1/tables/{table_id}/events": "A table's events, cursor-paged",
    "get /v1/tables/{table_id}/events/stream": "A table's events as Server-Sent Events",
}

# The routes outside flask-smorest's blueprints, documented by hand.
SERVICE_PATHS: dict[str, dict[str, Any]] = {
    "/health": {
        "get": {
            "summary": "Is the server up, and which store does it write to",
            "tags": ["service"],
            "security": [],
            "responses": {
                "200": {
                    "description": "OK",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Health"}}
                    },
                }
            },
        }
    },
    "/openapi.json": {
        "get": {
            "summary": "This OpenAPI document",
            "tags": ["service"],
            "security": [],
            "responses": {
                "200": {
                    "description": "OpenAPI 3.1",
                    "content": {"application/json": {"schema": {"type": "object"}}},
                }
            },
        }
    },
    "/docs": {
        "get": {
            "summary": "This document as a self-contained HTML page",
            "tags": ["service"],
            "security": [],
            "responses": {
                "200": {
                    "description": "HTML",
                    "content": {"text/html": {"schema": {"type": "string"}}},
                }
            },
        }
    },
}
HEALTH_SCHEMA = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "const": "ok"},
        "store": {"type": "string", "description": "memory, sqlite or postgres"},
        "position": {"type": "integer", "description": "the store's last notification"},
    },
    "required": ["status", "store", "position"],
}


def spec_path(rule: str) -> str:
    """A werkzeug rule as an OpenAPI path: ``/a/<uuid:id>`` -> ``/a/{id}``."""
    return re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule)


def _require_roles(view: Any) -> tuple[str, ...] | None:
    """The roles given to ``api.auth.require`` around ``view`` (read from its closure, so the
    document cannot disagree with what the view enforces), or None for a public view."""
    fn = view
    while fn is not None:
        code = getattr(fn, "__code__", None)
        # ``functools.wraps`` copies the module and name; the code object stays require's own.
        if code is not None and code.co_filename == auth.__file__ and "roles" in code.co_freevars:
            cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
            return tuple(cells["roles"].cell_contents)
        fn = getattr(fn, "__wrapped__", None)
    return None


def effective_roles(roles: tuple[str, ...], method: str) -> list[str]:
    """``require``'s policy: admin always, auditor on reads only, no roles = any key."""
    admitted = set(roles or ROLES) | {"admin"}
    if method in _SAFE:
        admitted.add("auditor")
    else:
        admitted.discard("auditor")
    return [role for role in ROLES if role in admitted]


def _roles_by_operation(app: Flask) -> dict[tuple[str, str], list[str]]:
    found = {}
    for rule in app.url_map.iter_rules():
        roles = _require_roles(app.view_functions.get(rule.endpoint))
        if roles is None:
            continue
        for method in rule.methods or ():
            found[(spec_path(rule.rule), method.lower())] = effective_roles(roles, method.lower())
    return found


def _views_by_operation(app: Flask) -> dict[tuple[str, str], Any]:
    return {
        (spec_path(rule.rule), method.lower()): app.view_functions[rule.endpoint]
        for rule in app.url_map.iter_rules()
        for method in rule.methods or ()
    }


def build_spec(app: Flask) -> dict[str, Any]:
    """The app's OpenAPI document (a fresh dict; callers may change it)."""
    doc = copy.deepcopy(app.extensions["api"].spec.to_dict())
    doc.setdefault("info", {})["description"] = DESCRIPTION
    paths = doc.setdefault("paths", {})
    for path, item in SERVICE_PATHS.items():
        paths.setdefault(path, copy.deepcopy(item))
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault("Health", copy.deepcopy(HEALTH_SCHEMA))
    tags = doc.setdefault("tags", [])
    if not any(tag.get("name") == "service" for tag in tags):
        tags.append({"name": "service", "description": "Health, this document and its docs"})
    roles = _roles_by_operation(app)
    views = _views_by_operation(app)
    for path, item in paths.items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            key = f"{method} {path}"
            operation.setdefault("operationId", re.sub(r"[^A-Za-z0-9]+", "_", key).strip("_"))
            if key in SUMMARIES:
                operation["summary"] = SUMMARIES[key]
            if (path, method) in roles:
                operation["x-roles"] = roles[(path, method)]
            view = views.get((path, method))
            responses.document(operation, view, method, path, roles.get((path, method)), ROLES)
    _drop_unused(doc, ("Error", "PaginationMetadata"))
    _drop_unused_responses(doc)
    return doc


def _drop_unused(doc: dict[str, Any], names: tuple[str, ...]) -> None:
    """flask-smorest always adds its own error and pagination schemas; ours replace them."""
    schemas = doc["components"]["schemas"]
    for name in names:
        text = json.dumps(doc)
        if name in schemas and f'"#/components/schemas/{name}"' not in text:
            del schemas[name]


def _drop_unused_responses(doc: dict[str, Any]) -> None:
    """flask-smorest's shared error responses (422, default) are replaced per operation."""
    shared = doc["components"].get("responses", {})
    text = json.dumps(doc["paths"])
    for name in list(shared):
        if f'"#/components/responses/{name}"' not in text:
            del shared[name]
    if not shared:
        doc["components"].pop("responses", None)


def render(doc: dict[str, Any]) -> str:
    """The committed text: deterministic, so staleness is a plain string comparison."""
    return json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def generate() -> str:
    """The document of an app on the in-memory store (the schemas do not depend on it)."""
    from api import create_app
    from ledger.config import store_env

    app = create_app({"STORE_ENV": store_env("memory", environ={})})
    return render(build_spec(app))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m api.openapi", description=__doc__)
    parser.add_argument("--output", type=Path, default=COMMITTED, help="default: %(default)s")
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = generate()
    current = args.output.read_text(encoding="utf-8") if args.output.exists() else None
    if args.check:
        if current != text:
            print(f"{args.output} is stale: run `python -m api.openapi`", file=sys.stderr)
            return 1
        return 0
    if current != text:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    else:
        print(f"{args.output} is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
