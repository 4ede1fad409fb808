"""The read models behind the API's history endpoints, and read-your-writes.

A write answers with the position of its last event. A read given ``?position=N`` answers
only once every projection has reached N: in ``inline`` mode (the default) the request folds
the missing events itself; in ``external`` mode it waits for ``python -m replay project``.
Either way it waits at most ``LEDGER_PROJECTION_WAIT_MS`` and then answers 503 with the lag.
A position beyond the log's last one is refused at once (422 ``cursor-beyond-log``, the feed's
rule: ``api.cursors``): no write answered it, and no wait would reach it.
Without a position an inline read first folds whatever is new (never waiting on another
projector), so it is as fresh as the store.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

from flask import Flask, current_app

from api.cursors import within_the_log
from ledger.settings import env_choice, env_int

MODES = ("inline", "external")


def projection_settings(source: Mapping[str, str]) -> tuple[str, int]:
    """``LEDGER_PROJECTIONS`` and ``LEDGER_PROJECTION_WAIT_MS``; a bad one raises
    ``SettingError`` naming it."""
    mode = env_choice("LEDGER_PROJECTIONS", "inline", MODES, source)
    return mode, env_int("LEDGER_PROJECTION_WAIT_MS", 2000, source, minimum=0)


def init_app(app: Flask, ledger: Any, env: dict[str, str]) -> None:
    """Open the read models for ``ledger`` (their settings read by ``api.app_settings``)."""
    from replay.projections import open_projections

    projections = open_projections(ledger, env)
    app.extensions["projections"] = projections
    # Close the read models' connection with the app, not at interpreter exit.
    weakref.finalize(app, projections.close)


def views(position: int | None) -> tuple[Any, int]:
    """The read models' database once they have reached ``position``, and where they stand.
    Raises ``CursorBeyondLog`` (a 422) for a position beyond the log, ``ProjectionLag`` (a
    503) when they do not get there in time, and ``StoreDamaged`` (a 500 naming the event)
    when the projectors stop at a stored event they cannot read."""
    projections = current_app.extensions["projections"]
    if position is not None:
        within_the_log(projections.app, "position", position, "pass a position a write answered")
    reached = projections.ensure(
        position,
        current_app.config["LEDGER_PROJECTION_WAIT_MS"] / 1000,
        inline=current_app.config["LEDGER_PROJECTIONS"] == "inline",
    )
    return projections.views, reached
