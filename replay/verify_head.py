"""``replay verify``: the log's head, its running digest, and a checkpoint kept from an earlier
run (``--expect-head``).

The digest at a position (``replay.log_digest``) is made of every stored hash up to it, so a
checkpoint that still holds proves no event up to it changed in any stream.
"""

from __future__ import annotations

from typing import Any

from replay.log_digest import START, next_digest, raw_hash
from replay.verify_report import Fault, Where


def parse_head(text: str) -> tuple[int, str]:
    """``POSITION:DIGEST`` (as the report prints the log's head) to (position, digest); an
    older checkpoint's ``POSITION:HASH`` (the event's own hash) reads the same."""
    position, sep, digest = text.strip().partition(":")
    if not sep or not position.isdigit() or int(position) < 1 or len(digest) != 64:
        raise ValueError(f"a checkpoint is POSITION:DIGEST (a 64-digit SHA-256), got {text!r}")
    try:
        int(digest, 16)
    except ValueError:
        raise ValueError(f"{digest!r} is not a SHA-256 in hex") from None
    return int(position), digest.lower()


class LogHead:
    """Fed every event of the one pass (``add``); ``check`` then holds the log to ``expect``,
    a checkpoint (position, digest) it must still reach."""

    def __init__(self, expect: tuple[int, str] | None) -> None:
        self.expect = expect
        self.expected_found: Where | None = None
        self.expected_hash: str | None = None
        self.expected_digest: str | None = None
        self.digest = START  # the log's running digest (replay.log_digest)
        self.note = ""
        self.head: Where | None = None
        self.head_hash: str | None = None  # the hash the last event carries (None: unread)

    def add(self, notification: Any, where: Where, event_hash: str | None) -> None:
        self.head = where
        self.head_hash = event_hash if isinstance(event_hash, str) else None
        if not isinstance(event_hash, str):
            event_hash = raw_hash(notification.state)
        self.digest = next_digest(
            self.digest, where.position, where.stream, where.version, event_hash
        )
        if self.expect is not None and where.position == self.expect[0]:
            self.expected_found, self.expected_hash = where, event_hash
            self.expected_digest = self.digest

    def check(self, faults: list[Fault]) -> None:
        """Add to ``faults`` (those of every other check, read here) the checkpoint's."""
        if self.expect is None:
            return
        position, expected = self.expect
        found = self.expected_found
        if found is None:
            at = self.head or Where(0, "", 0, "")
            problem = (
                f"the checkpoint {position}:{expected} is gone: the log ends at position "
                f"{at.position}"
                if at.position < position
                else f"the checkpoint {position}:{expected} is gone: no event at position "
                f"{position}"
            )
            faults.append(Fault(max(position, at.position), "", 0, "", "head", problem))
        elif expected == self.expected_hash and expected != self.expected_digest:
            # A checkpoint kept before the log had a digest: it holds the one event.
            self.note = (
                "an event's own hash, which holds that event but not the log before it; "
                "keep this run's log head instead"
            )
        elif expected != self.expected_digest:
            faults.append(
                Fault.at(
                    found,
                    "head",
                    f"the checkpoint {position}:{expected} does not hold: the log's digest "
                    f"there is {self.expected_digest}, so an event at or before position "
                    f"{position} was changed, added or removed",
                )
            )
        # The digest is made of the stored hashes: an event edited without its hash keeps it,
        # and its own check (chain, decode) names it. The checkpoint does not hold over it.
        altered = next(
            (
                f
                for f in sorted(faults, key=lambda f: f.position)
                if f.check in ("chain", "decode") and f.position <= position
            ),
            None,
        )
        head_faulted = any(f.check == "head" for f in faults)
        if found is not None and altered is not None and not head_faulted:
            self.note = ""
            faults.append(
                Fault.at(
                    found,
                    "head",
                    f"the checkpoint {position}:{expected} does not hold: its digest is made "
                    f"of the stored hashes, and the event at position {altered.position}, "
                    f"before it, no longer fits its own ({altered.problem})",
                )
            )
