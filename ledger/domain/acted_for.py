"""Who really gave a command, when not the actor its events name: an administrator's key
acting for a player or the dealer, or giving an operator's command (its events name "admin").

The command's own events keep the actor the rules check; one ``ActedFor`` after them, in
each stream the command wrote, names the giver and the versions it covers, so every stream
of the audit trail says who acted."""

from __future__ import annotations

from typing import Any

from ledger.domain.chain import ChainedAggregate


class ActedForBase(ChainedAggregate.Event):
    by: str  # who gave the command (the API: "admin key <id> (<label>)", never a secret)
    actor: str  # whom its events name
    action: str  # the command (e.g. "deposit", "stand")
    first_version: int  # the command's first event in this stream; the last is the one before

    def apply(self, aggregate: Any) -> None:
        pass


def record_given_by(aggregate: Any, by: str, actor: str, action: str) -> None:
    """Close the command's events in ``aggregate``'s stream with who gave them."""
    first = aggregate.version - len(aggregate.pending_events) + 1
    aggregate.trigger_event(
        aggregate.ActedFor, by=by, actor=actor, action=action, first_version=first
    )
