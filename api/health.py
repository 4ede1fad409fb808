"""``GET /health``: is the server up, and which store does it write to."""

from flask import Blueprint, current_app

from ledger.config import store_kind

bp = Blueprint("health", __name__)


@bp.get("/health")
def health():
    ledger = current_app.extensions["ledger"]
    return {
        "status": "ok",
        "store": store_kind(current_app.config["STORE_ENV"]),
        "position": ledger.recorder.max_notification_id() or 0,
    }
