"""Who is calling: ``Authorization: Bearer <secret>`` names an API key kept in the ApiStore.

Roles: ``admin`` may do everything; ``auditor`` reads everything and writes nothing; ``player``
keys act as their player; ``dealer`` keys act as the player who deals (or, without a player,
as the casino's house dealer). Views say which roles they accept with :func:`require`; the
key is then at ``flask.g.key`` (a :class:`Caller`: ``id``, ``role``, ``player_id``, ``label``).

Each process keeps the keys it looked up for ``API_KEY_CACHE_SECONDS`` (app config, else the
environment variable; default 2, 0 reads the store on every request; anything but a number of
seconds, 0 or more, stops the app at start). A key revoked through this process is refused at
once; another process (each gunicorn worker is one) refuses it within that many seconds.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

from flask import current_app, g, request

from api.problems import problem
from ledger.given_by import given_by
from ledger.settings import SettingError

ROLES = ("admin", "dealer", "player", "auditor")
HOUSE = "house"  # whom a dealer key without a player acts as (casino tables)
SECURITY_SCHEME = "bearerAuth"
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="twenty-one-ledger"'}
KEY_CACHE_SECONDS = 2.0  # the default of API_KEY_CACHE_SECONDS


@dataclass(frozen=True)
class Caller:
    """The authenticated key, as views see it (never the secret)."""

    id: str
    role: str
    player_id: str | None = None
    label: str = ""

    @property
    def name(self) -> str:
        """The key as the ledger records one that gives a command (``ledger.given_by``): its
        role, id and label; never its secret."""
        return f"{self.role} key {self.id}" + (f" ({self.label})" if self.label else "")


def actor_for(key: Caller) -> str:
    """The ledger actor a key acts as: its player, the house dealer, or admin/auditor."""
    if key.role in ("player", "dealer"):
        return key.player_id or HOUSE
    return key.role


def bearer_secret() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, secret = header.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return None
    return secret.strip()


def authenticate() -> Caller | None:
    """The caller's live key, or None when the header is missing, unknown or revoked."""
    secret = bearer_secret()
    if secret is None:
        return None
    key = current_app.extensions["api_store"].find_key(secret, max_age=key_cache_seconds())
    if key is None or key.revoked:
        return None
    return Caller(id=str(key.id), role=key.role, player_id=key.player_id, label=key.label)


def key_cache_setting(config: Any, environ: Any) -> float:
    """``API_KEY_CACHE_SECONDS`` (app config, else the environment; unset or empty: 2): a
    number of seconds, 0 or more. Anything else stops the app at start, as every other bad
    setting does, rather than quietly keeping keys for the default time."""
    raw = config.get("API_KEY_CACHE_SECONDS")
    if raw is None:
        raw = environ.get("API_KEY_CACHE_SECONDS")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return KEY_CACHE_SECONDS
    try:
        seconds = float(raw.strip() if isinstance(raw, str) else raw)
    except (TypeError, ValueError):
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds >= 0):
        raise SettingError(
            f"API_KEY_CACHE_SECONDS must be a number of seconds, 0 or more; not {raw!r}"
        )
    return seconds


def key_cache_seconds() -> float:
    """How long this process may serve a key it read (``API_KEY_CACHE_SECONDS``, checked by
    :func:`key_cache_setting` when the app was built)."""
    return current_app.config["API_KEY_CACHE_SECONDS"]


def _refuse(status: int, detail: str):
    if status == 401:
        return problem(401, "Unauthorized", detail, headers=_CHALLENGE)
    return problem(403, "Forbidden", detail)


def require(*roles: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a view: 401 without a live key, 403 when its role is not among ``roles``.

    No roles means any authenticated key. ``admin`` always passes; ``auditor`` passes every
    read (GET, HEAD, OPTIONS) and no write, whether listed or not. Put it directly
    under ``@blp.route`` so a stranger gets 401 before the body is validated (422).
    """
    unknown = set(roles) - set(ROLES)
    if unknown:
        raise ValueError(f"unknown roles {sorted(unknown)}; roles are {ROLES}")

    def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(view)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            caller = authenticate()
            if caller is None:
                return _refuse(401, "a valid API key is required: Authorization: Bearer <key>")
            if caller.role == "auditor":
                allowed = request.method in _SAFE_METHODS
            else:
                allowed = caller.role == "admin" or not roles or caller.role in roles
            if not allowed:
                article = "an" if caller.role[0] in "aeiou" else "a"
                return _refuse(403, f"{article} {caller.role} key may not do this")
            g.key = caller
            if caller.role != "admin":
                return view(*args, **kwargs)
            # An admin's commands name "admin" or the player he acts for: each records the
            # key that gave it too (Round.ActedFor, Player.ActedFor, …).
            with given_by(caller.name):
                return view(*args, **kwargs)

        # flask-smorest reads the docs from ``_apidoc``: add the security requirement without
        # touching the wrapped view's own dict. The refusals (401, and 403 where a role can be
        # refused) are documented per operation by api/responses.py, which knows the method.
        doc = deepcopy(getattr(view, "_apidoc", {}))
        doc.setdefault("manual_doc", {}).setdefault("security", [{SECURITY_SCHEME: []}])
        wrapper._apidoc = doc  # type: ignore[attr-defined]
        return wrapper

    return decorator


def register_security(api: Any) -> None:
    """Declare the bearer scheme in the OpenAPI document (once per Api)."""
    schemes = api.spec.components.security_schemes
    if SECURITY_SCHEME not in schemes:
        api.spec.components.security_scheme(
            SECURITY_SCHEME,
            {"type": "http", "scheme": "bearer", "description": "an API key (flask keys create)"},
        )
