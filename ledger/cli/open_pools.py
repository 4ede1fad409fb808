"""``python -m ledger open-pools``: open, on the configured store, the pool of every Vingt-un
table recorded before tables kept their pools in their own stream, and print ONE JSON object."""

from __future__ import annotations

import json
from typing import Any, TextIO

from ledger.cli.store import Refused, open_existing
from ledger.config import describe


def open_pools(stdout: TextIO, stderr: TextIO, environ: Any = None) -> int:
    try:
        with open_existing("open-pools", stderr, environ) as (app, env):
            opened = app.open_pools()
    except Refused as refused:
        return refused.code
    stdout.write(json.dumps({"opened": opened, "store_description": describe(env)}) + "\n")
    return 0
