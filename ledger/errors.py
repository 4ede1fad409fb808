"""Domain errors. Each names the rule clause that refused the command, so a front end
can show the player the book's reason and an auditor can look it up in RULES.md."""

from __future__ import annotations


class LedgerError(Exception):
    """Base of every refusal the ledger raises; nothing is written when one is raised."""

    kind = "ledger-error"

    def __init__(self, message: str, clause: str | None = None, **details: object) -> None:
        super().__init__(message)
        self.message = message
        self.clause = clause
        self.details = details

    def __str__(self) -> str:
        return f"{self.message} [{self.clause}]" if self.clause else self.message


class InvalidCommand(LedgerError):
    """The command itself is malformed (bad amount, unknown action, bad option)."""

    kind = "invalid-command"


class InvalidRules(InvalidCommand):
    kind = "invalid-rules"


class NotFound(LedgerError):
    kind = "not-found"


class UnknownTable(NotFound):
    kind = "unknown-table"


class UnknownRound(NotFound):
    kind = "unknown-round"


class UnknownPlayer(NotFound):
    kind = "unknown-player"


class UnknownHand(NotFound):
    kind = "unknown-hand"


class UnknownSeat(NotFound):
    kind = "unknown-seat"


class RuleViolation(LedgerError):
    """The command is well formed but the book (or the table's state) does not allow it."""

    kind = "rule-violation"


class OutOfTurn(RuleViolation):
    kind = "out-of-turn"


class WrongPhase(RuleViolation):
    kind = "wrong-phase"


class StakeOutOfLimits(RuleViolation):
    kind = "stake-out-of-limits"


class NotAPair(RuleViolation):
    kind = "not-a-pair"


class HandClosed(RuleViolation):
    kind = "hand-closed"


class MustStand(HandClosed):
    """The hand's turn is over (21, or over it unseen: ``holder_ends_turn``); its holder may
    only stand, which passes the turn."""

    kind = "must-stand"


class DrawLimitReached(RuleViolation):
    kind = "draw-limit-reached"


class InsufficientFunds(RuleViolation):
    kind = "insufficient-funds"


class AlreadySeated(RuleViolation):
    kind = "already-seated"


class NotPermitted(RuleViolation):
    """The actor may not give this command (not his hand, not the dealer)."""

    kind = "not-permitted"


class FixedShoeRefused(RuleViolation):
    kind = "fixed-shoe-refused"


class ConcurrentUpdate(LedgerError):
    """Another command changed the same aggregate first; reload and try again."""

    kind = "concurrent-update"


class IdempotencyConflict(LedgerError):
    """A command id was reused with different content."""

    kind = "idempotency-conflict"
