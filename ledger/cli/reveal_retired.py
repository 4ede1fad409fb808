"""``python -m ledger reveal-retired``: reveal, on the configured store, every shoe a table
retired without a reveal (a cut for the deal before 7ce9108), and print ONE JSON object."""

from __future__ import annotations

import json
from typing import Any, TextIO

from ledger.cli.store import Refused, open_existing
from ledger.config import describe


def reveal_retired(stdout: TextIO, stderr: TextIO, environ: Any = None) -> int:
    command = "reveal-retired"
    try:
        with open_existing(command, stderr, environ) as (app, env):
            done = app.reveal_retired()
    except Refused as refused:
        return refused.code
    for shoe_id in done["seed_missing"]:
        print(
            f"python -m ledger {command}: shoe {shoe_id} was retired without a reveal, and the "
            "shoe vault does not hold its seed: it cannot be revealed",
            file=stderr,
        )
    out = {"count": len(done["revealed"]), **done, "store_description": describe(env)}
    stdout.write(json.dumps(out) + "\n")
    return 1 if done["seed_missing"] else 0
