"""``/v1/me``: who the calling key is, so a client holding only a key knows its role and
which player's hands, wallet and rounds are its own."""

from __future__ import annotations

from flask import g

from api.auth import ROLES, actor_for, require
from api.body import Blueprint
from api.schemas.me import MeSchema

blp = Blueprint("me", __name__, url_prefix="/v1/me", description="The calling key")


@blp.route("")
@require(*ROLES)
@blp.response(200, MeSchema)
def whoami():
    """The calling key: its id, role and label, the player it acts as and the actor its
    commands record (any key; never the secret)."""
    key = g.key
    return {
        "key_id": key.id,
        "role": key.role,
        "label": key.label,
        "player_id": key.player_id,
        "acts_as": actor_for(key),
    }
