"""``GET /audit/rounds/<id>``: the audit of a disputed round as a page a person can read.

The page shows exactly what ``GET /v1/rounds/{id}/audit`` gives the same caller: both call
``api.resources.audit_view.audit_for`` and the page renders that document after the same
``RoundAuditSchema`` dump, so the two can never disagree about who sees which card.

Keys: ``Authorization: Bearer <key>`` as for the API, or, for a person with a browser, the
sign-in form at ``/audit/login`` that keeps the key in an HttpOnly, SameSite=Strict cookie
whose path is ``/audit`` (the JSON API never reads it, so the cookie cannot be used to act).

These are plain Flask routes, not flask-smorest ones: they are not part of the API and stay
out of the OpenAPI document. Everything is in the page itself (inline CSS, cards drawn as
inline SVG) and the Content-Security-Policy forbids loading anything else.
"""

from __future__ import annotations

import sqlite3
from typing import Any
from urllib.parse import urlsplit

from eventsourcing.persistence import PersistenceError
from flask import Blueprint, Response, current_app, redirect, render_template, request, url_for

from api import audit_event_words, audit_name_words, audit_value_words, audit_verdict_words
from api.auth import Caller, bearer_secret, key_cache_seconds
from api.errors import status_for
from api.resources.audit_view import audit_for
from api.resources.rounds import ANY_ROLE
from api.schemas.audit import RoundAuditSchema
from ledger.errors import LedgerError
from ledger.settings import SettingError
from replay.damage import StoreDamaged
from replay.store_file import unreadable_file

bp = Blueprint("audit_page", __name__, url_prefix="/audit")

COOKIE = "audit_key"
COOKIE_PATH = "/audit"
HOME = "/audit/login"  # where a sign-in without (or with a refused) ``next`` lands
_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="twenty-one-ledger"'}
# No script, no remote anything: the page must work on a closed network and must not leak
# the round to a third party through a fetched asset.
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    # same-origin, not no-referrer: the sign-in form's POST then carries this site's Origin
    # (under no-referrer a browser sends "Origin: null", which a sandboxed frame on another
    # site sends too), while no address of a round leaves for another site.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
_TITLES = {
    401: "Sign-in needed",
    403: "Not allowed",
    404: "Not found",
    409: "Conflict",
    500: "Stored events damaged",  # a damaged event; a damaged file names its own title
}


@bp.after_request
def _secure(response: Response) -> Response:
    for name, value in _HEADERS.items():
        response.headers.setdefault(name, value)
    return response


# -- who is asking -----------------------------------------------------------------------


def _presented() -> tuple[str | None, str]:
    """The secret the request carries and where: the header wins over the cookie."""
    secret = bearer_secret()
    if secret:
        return secret, "header"
    cookie = request.cookies.get(COOKIE, "").strip()
    return (cookie, "cookie") if cookie else (None, "")


def _caller(secret: str | None) -> Caller | None:
    """The live key the secret names: the same store and cache as ``api.auth.require``."""
    if not secret:
        return None
    key = current_app.extensions["api_store"].find_key(secret, max_age=key_cache_seconds())
    if key is None or key.revoked:
        return None
    return Caller(id=str(key.id), role=key.role, player_id=key.player_id, label=key.label)


def _admitted(caller: Caller) -> bool:
    """``require(*ANY_ROLE)`` on a read, as the JSON audit view has it: admins and auditors
    always, the other roles when listed (what each may then see is ``audit_for``'s)."""
    return caller.role in ("admin", "auditor") or caller.role in ANY_ROLE


def _is_browser() -> bool:
    """A browser names text/html in Accept; API clients send JSON or ``*/*``."""
    return any(value == "text/html" for value, _ in request.accept_mimetypes)


def safe_next(value: str | None) -> str:
    """``next`` if it is a path of these pages, else :data:`HOME` (no open redirect: no
    scheme, no host, no ``//`` or backslash tricks, no control characters)."""
    if not value or len(value) > 2000 or "\\" in value:
        return HOME
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        return HOME
    parts = urlsplit(value)
    if parts.scheme or parts.netloc or not value.startswith(COOKIE_PATH + "/"):
        return HOME
    return value


def _cross_site() -> bool:
    """Whether a sign-in POST may have come from another site's page (login CSRF): the
    browser says so (``Sec-Fetch-Site``), or its ``Origin`` is another host or opaque
    (``null``: a sandboxed frame, a ``data:`` or ``file:`` page, a redirect from elsewhere).
    No ``Origin`` at all is a client that is not a browser: the key it posts is its proof."""
    if request.headers.get("Sec-Fetch-Site") in ("cross-site", "same-site"):
        return True
    origin = request.headers.get("Origin")
    if origin is None:
        return False
    return origin == "null" or urlsplit(origin).netloc != request.host


COOKIE_SECURE = ("auto", "true", "false")


def cookie_secure_setting(config: Any, environ: Any) -> str:
    """``AUDIT_COOKIE_SECURE`` (app config, else the environment): ``auto`` (the default)
    marks the cookie ``Secure`` when the request came over HTTPS as the server sees it
    (gunicorn trusts ``X-Forwarded-Proto`` from ``FORWARDED_ALLOW_IPS``); ``true`` always,
    for a TLS proxy the server cannot see; ``false`` never."""
    raw = config.get("AUDIT_COOKIE_SECURE")
    if raw is None:
        raw = environ.get("AUDIT_COOKIE_SECURE", "auto")
    value = str(raw).strip().lower() or "auto"
    if value not in COOKIE_SECURE:
        raise SettingError(f"AUDIT_COOKIE_SECURE must be one of auto, true, false; not {raw!r}")
    return value


def _secure_cookie() -> bool:
    setting = current_app.config["AUDIT_COOKIE_SECURE"]
    return request.is_secure if setting == "auto" else setting == "true"


# -- pages -------------------------------------------------------------------------------


def error_page(
    status: int, detail: str, clause: str | None = None, title: str | None = None
) -> Response:
    body = render_template(
        "audit/error.html",
        status=status,
        title=title or _TITLES.get(status, "Error"),
        detail=detail,
        clause=clause,
        sign_in=url_for(".login_form", next=request.path) if status in (401, 403) else None,
    )
    headers = _CHALLENGE if status == 401 else {}
    return Response(body, status=status, mimetype="text/html", headers=headers)


@bp.errorhandler(LedgerError)
def _refused(error: LedgerError) -> Response:
    # The ledger's own refusals (unknown round, a player of another round, a round not yet
    # ended), with the status the JSON API gives them.
    return error_page(status_for(error), error.message, error.clause)


@bp.errorhandler(StoreDamaged)
def _damaged(error: StoreDamaged) -> Response:
    # As the JSON API: a 500 that names the damaged event and says how to check the store.
    current_app.logger.error("%s", error)
    return error_page(500, str(error))


@bp.errorhandler(sqlite3.DatabaseError)
@bp.errorhandler(PersistenceError)
def _store_unreadable(error: Exception) -> Response:
    # A SQLite file SQLite cannot read (cut short, a page overwritten): named, as a damaged
    # event is, on a page, not the API's JSON internal error. Other store errors (a locked
    # file, a lost connection) get a page too.
    unreadable = unreadable_file(error, current_app.config.get("STORE_ENV"))
    if unreadable is None:
        current_app.logger.exception("the store could not be read")
        detail = "The ledger's store could not be read; try again later."
        return error_page(500, detail, title="Store unavailable")
    current_app.logger.error("%s", unreadable)
    return error_page(500, f"{unreadable}.", title="Store damaged")


@bp.get("/rounds/<uuid:round_id>")
def round_page(round_id: Any) -> Response:
    secret, source = _presented()
    caller = _caller(secret)
    if caller is None:
        if source == "header" or not _is_browser():
            return error_page(401, "A valid key is needed: sign in, or send Bearer <key>.")
        response = redirect(url_for(".login_form", next=request.path), 303)
        if source == "cookie":  # a revoked or unknown key: forget it
            response.delete_cookie(COOKIE, path=COOKIE_PATH)
        return response
    if not _admitted(caller):
        return error_page(403, f"A {caller.role} key may not read audits.")
    report = RoundAuditSchema().dump(audit_for(str(round_id), caller))
    body = render_template(
        "audit/round.html",
        report=report,
        value_words=audit_value_words,
        name_words=audit_name_words,
        event_words=audit_event_words,
        verdict_words=audit_verdict_words,
        names=audit_name_words.people(report),
        caller=caller,
        by_cookie=source == "cookie",
    )
    return Response(body, mimetype="text/html")


@bp.get("/rounds/<path:anything>")
def not_a_round(anything: str) -> Response:
    # A malformed id would otherwise get the API's JSON 404 from routing.
    return error_page(404, "That address does not name a round (a round id looks like a UUID).")


@bp.get("/login")
def login_form() -> Response:
    caller = _caller(request.cookies.get(COOKIE))
    body = render_template(
        "audit/login.html", next=safe_next(request.args.get("next")), caller=caller, error=None
    )
    return Response(body, mimetype="text/html")


@bp.post("/login")
def login() -> Response:
    if _cross_site():
        return error_page(403, "Sign in from this site's own form.")
    target = safe_next(request.form.get("next"))
    secret = (request.form.get("key") or "").strip()
    if _caller(secret) is None:
        body = render_template(
            "audit/login.html",
            next=target,
            caller=None,
            error="That key was not accepted: it is unknown or has been revoked.",
        )
        return Response(body, status=401, mimetype="text/html")
    response = redirect(target, 303)
    # A session cookie (gone when the browser closes), never sent to the JSON API.
    response.set_cookie(
        COOKIE,
        secret,
        path=COOKIE_PATH,
        httponly=True,
        samesite="Strict",
        secure=_secure_cookie(),
    )
    return response


@bp.post("/logout")
def logout() -> Response:
    if _cross_site():
        return error_page(403, "Sign out from this site's own pages.")
    response = redirect(url_for(".login_form"), 303)
    response.delete_cookie(
        COOKIE, path=COOKIE_PATH, httponly=True, samesite="Strict", secure=_secure_cookie()
    )
    return response
