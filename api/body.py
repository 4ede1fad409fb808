"""A request's JSON body, read one way for every view and for the idempotency fingerprint, so
a command is validated on exactly what its retry is compared on.

webargs' own reader takes any body it cannot parse for a missing one or lets Python's parser
fail with a 500; this one answers every bad body with its own status, before any schema:

* 413 ``payload-too-large``: over ``MAX_CONTENT_LENGTH``, by its Content-Length or, sent
  chunked, once it reaches the limit;
* 415 ``unsupported-media-type``: a body not declared ``application/json`` (or ``+json``), or
  declared in a ``charset`` other than UTF-8 (JSON text is UTF-8, RFC 8259);
* 400 ``malformed-json``: not JSON text in UTF-8, a byte order mark before it (RFC 8259 lets a
  parser refuse one; a BOM ahead of a signed request's body is more likely a mistake to show
  than one to hide), ``NaN`` or ``Infinity``, a member named twice, nesting deeper than
  ``MAX_DEPTH``, an integer of more than ``MAX_DIGITS`` digits.

Numbers written with a fraction or an exponent (``100.0``, ``1e2``) are read as ``Decimal``,
never as a float: an integer field sees what the client wrote and refuses it (422), where a
float would have turned ``100.00000000000000001`` into 100. Money is a JSON integer.
"""

from __future__ import annotations

import codecs
import json
from decimal import Decimal
from typing import Any

import flask_smorest
from flask import request
from marshmallow import missing
from webargs.core import is_json
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge, UnsupportedMediaType

MAX_DEPTH = 32  # nested objects and arrays; a command's body needs three
MAX_DIGITS = 1000  # an integer's; anything past 13 is beyond every bound already
_UNREAD = object()
_KEY = "twenty_one_ledger.json_body"


class MalformedJson(BadRequest):
    """400 ``malformed-json``: the description says what is wrong with the body."""

    kind = "malformed-json"
    title = "Malformed JSON"


def body_bytes() -> bytes:
    """The raw body, refused (413) when over the limit. A body with a Content-Length over it
    is refused by werkzeug before it is read; a chunked one is cut at the limit, so reaching
    the limit means it was longer."""
    data = request.get_data(cache=True)
    limit = request.max_content_length
    if request.content_length is None and limit is not None and len(data) >= limit:
        raise RequestEntityTooLarge(f"a request body must be under {limit} bytes")
    return data


def json_body() -> Any:
    """The request's JSON body, parsed once per request; ``marshmallow.missing`` if empty."""
    # Kept in the request's environ, not in ``g``: an app context (and its ``g``) may outlive
    # one request, in tests.
    cached = request.environ.get(_KEY, _UNREAD)
    if cached is _UNREAD:
        cached = request.environ[_KEY] = _parse(body_bytes())
    return cached


def _parse(data: bytes) -> Any:
    if not data:
        return missing
    if not is_json(request.mimetype):
        declared = request.mimetype or "no Content-Type"
        raise UnsupportedMediaType(
            f"the body must be JSON, sent as Content-Type: application/json (got {declared})"
        )
    charset = request.mimetype_params.get("charset")
    if charset is not None and charset.lower() not in ("utf-8", "utf8"):
        raise UnsupportedMediaType(
            f"the body must be UTF-8 JSON: charset {charset[:40]!r} is not accepted "
            "(send charset=utf-8, or no charset)"
        )
    if data.startswith(codecs.BOM_UTF8):
        raise MalformedJson(
            "the body starts with a byte order mark (U+FEFF), which JSON text may not: "
            "send the JSON without it"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise MalformedJson(f"the body is not UTF-8 text (byte {error.start})") from None
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as error:
        raise MalformedJson(
            f"the body is not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        ) from None
    except RecursionError:
        raise MalformedJson(f"the body nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as error:  # from the hooks below
        raise MalformedJson(f"the body is not valid JSON: {error}") from None
    if _too_deep(value):
        raise MalformedJson(f"the body nests deeper than {MAX_DEPTH} levels")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits")
    return int(text)


def _members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        names = [name for name, _ in pairs]
        twice = next(name for name in names if names.count(name) > 1)
        raise ValueError(f"member {twice!r} appears twice in one object")
    return found


_DECODER = json.JSONDecoder(
    parse_float=Decimal, parse_int=_integer, parse_constant=_no_constant, object_pairs_hook=_members
)


def _too_deep(value: Any) -> bool:
    """Whether ``value`` nests deeper than ``MAX_DEPTH`` (without recursion: it may be deep)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > MAX_DEPTH:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


class JsonBodyParser(FlaskParser):
    """webargs' Flask parser, reading JSON bodies with :func:`json_body`."""

    def _raw_load_json(self, req: Any) -> Any:
        return json_body()


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's blueprint with this module's body parser: every resource uses it."""

    ARGUMENTS_PARSER = JsonBodyParser()
