"""What every resource view shares: the ledger, the caller, and the permission checks that
depend on the data (the role checks are ``api.auth.require``'s)."""

from __future__ import annotations

from typing import Any

from flask import current_app, g

from api.auth import actor_for
from ledger.errors import NotPermitted


def ledger() -> Any:
    return current_app.extensions["ledger"]


def table_members() -> Any:
    return current_app.extensions["table_members"]


def command_id() -> str | None:
    """Set by ``api.idempotency.idempotent`` when the request carries an Idempotency-Key."""
    return g.get("command_id")


def actor() -> str:
    return actor_for(g.key)


def is_admin() -> bool:
    return g.key.role == "admin"


def sees_everything() -> bool:
    return g.key.role in ("admin", "auditor")


def is_player(player_id: Any) -> bool:
    return g.key.player_id is not None and g.key.player_id == str(player_id)


def permit(allowed: bool, detail: str) -> None:
    """A 403 (``NotPermitted``) unless ``allowed``."""
    if not allowed:
        raise NotPermitted(detail)


def created(body: dict, location: str) -> tuple[dict, int, dict]:
    return body, 201, {"Location": location}
