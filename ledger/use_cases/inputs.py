"""What a command checks of its input before it loads anything, and who acts by default."""

from __future__ import annotations

from typing import Any

from ledger.accounts import MAX_AMOUNT
from ledger.errors import InvalidCommand

# The actor of a command that names none: the operator, through the CLI or an admin key.
ADMIN = "admin"


def positive_amount(amount: Any, what: str) -> int:
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= MAX_AMOUNT:
        raise InvalidCommand(
            f"{what} must be a positive whole number of minor units up to {MAX_AMOUNT}, "
            f"got {amount!r}"
        )
    return amount


def giver(by: Any) -> str | None:
    """Who gave a command for someone else (``by``): None, or a name of 1 to 400 characters."""
    if by is None:
        return None
    if not isinstance(by, str) or not by.strip() or len(by) > 400:
        raise InvalidCommand(f"by names who gave the command in 1 to 400 characters, got {by!r}")
    return by
