"""The log's running digest: one SHA-256 that holds every event up to a position, in order.

Each stream's hash chain shows an event edited, dropped or moved inside that stream, but a
forger who rewrites a whole stream consistently (new hashes, new chain) leaves chains that all
fit. A checkpoint kept outside the ledger (``verify --expect-head``) is only as strong as what
its hash holds: the digest at its position changes if any event at or before it changed, in
any stream, so such a rewrite before a kept checkpoint is named.

    digest(0) = 64 zeros
    digest(n) = SHA-256( digest(n-1) "\\n" position ":" stream ":" version ":" hash )

in lower-case hex, over the log's events in the order of their positions; ``hash`` is the
event's own hash (``ledger.domain.chain``), or, for a stored event that has none or cannot be
decoded, ``raw:`` and the SHA-256 of its stored bytes (of its text's UTF-8 for a state stored
as text, of no bytes for a NULL). Anyone holding an export can recompute it (``export`` keeps
positions, hashes, streams and versions). A row whose stream id or version is not one
(``replay.stored_row``) stands as it is stored, a NULL as ``NULL``.
"""

from __future__ import annotations

import hashlib
from typing import Any

START = "0" * 64


def next_digest(
    previous: str, position: int, stream: str, version: int | None, event_hash: str
) -> str:
    line = f"{previous}\n{position}:{stream}:{'NULL' if version is None else version}:{event_hash}"
    return hashlib.sha256(line.encode()).hexdigest()


def raw_hash(state: Any) -> str:
    """What stands for the hash of a stored event that carries none or cannot be read: its
    stored bytes, whatever the row holds instead of them (text, NULL, a number)."""
    if state is None:
        data = b""
    elif isinstance(state, bytes | bytearray | memoryview):
        data = bytes(state)
    else:
        data = str(state).encode()
    return "raw:" + hashlib.sha256(data).hexdigest()
