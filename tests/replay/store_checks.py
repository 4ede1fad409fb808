"""``replay verify`` and the round's audit on the store ``env`` names, each through a ledger
opened for the call and closed after it: the tests that edit a SQLite file between two checks
read it afresh each time."""

from __future__ import annotations

from ledger.application import TwentyOneLedger
from replay.audit import audit_round
from replay.verify import verify


def played(env: dict, play):
    """``play(app)`` on a ledger opened on ``env`` and closed after it; what it returned."""
    app = TwentyOneLedger(env=env)
    try:
        return play(app)
    finally:
        app.close()


def verified(env: dict, **kwargs):
    """``verify`` of the store (``kwargs`` as ``verify`` takes them, e.g. ``table=``)."""
    app = TwentyOneLedger(env=env)
    try:
        return verify(app, **kwargs)
    finally:
        app.close()


def audited(env: dict, rid: str) -> dict:
    """The audit of round ``rid``."""
    app = TwentyOneLedger(env=env)
    try:
        return audit_round(app, rid)
    finally:
        app.close()
