"""Events as a round's audit lists them: the event's own fields as JSON-ready data, with its
actor, player, hand, card, amount and clauses (with their texts) copied to the top.

Every entry names an ``actor``, who did it (README, "The model": not whose command set it
going):

- the actor the event records, for every event that records one (a stake, a card dealt, a
  stand, a decision, the round's start, a shoe's commitment);
- for a ``Shoe.Cut``, the player whose cut it is by the rules (``by``; who chose the place is
  its ``chosen_by``); for a ``Shoe.Revealed``, who retired the shoe (``replay.audit_reveal``:
  who closed the table, or the ledger);
- ``ledger`` (``BY_THE_RULES``) for every event the ledger writes by the rules of play, which
  records no actor: a phase entered, a hand opened, a natural declared, a hand over 21, a card
  burned or shown, a shoe replaced, a hold adjusted, the bank's cover, insurance settled, a
  hand settled, a transfer and the round's end. No command writes one of these by itself: each
  follows, in the same write, from a decision that names its own actor (the events before it
  in the list), or from the round's start. The log does not record where one command's events
  end and the next one's begin, so the audit does not name that decision for them: the
  ``ledger`` did it, in whoever's command it came (as the ledger records its own automatic
  stand, ``HandStood`` by ``ledger``, and the reveal of a spent shoe).

The audit trail (``replay.projections.audit_trail``) and each wallet's ``round_movements``
(``replay.audit_money``) name their events' actors by the same rule (:func:`actor_of`).

A player's view masks what would say too much (``api.visibility``): an actor his view hides
(who stood on a hand he cannot see, or a hand's close shown as ``HandClosed``) is null.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from ledger.domain.chain import event_fields
from replay.clauses import clause_text

_META = ("originator_id", "originator_version", "timestamp", "originator_topic")
SUMMARY_FIELDS = ("actor", "player", "hand", "card", "amount")
# The actor of an event the ledger writes by the rules of play, recording none.
LEDGER = "ledger"
# Those events, by type (each type name is one aggregate's; none of them records an actor).
BY_THE_RULES = frozenset(
    {
        "PhaseEntered",
        "HandOpened",
        "CardBurned",
        "ShoeReplaced",
        "CardsShown",
        "NaturalDeclared",
        "HandOverdrawn",
        "HandSettled",
        "FundsTransferred",
        "HoldAdjusted",
        "InsuranceSettled",
        "BankCovered",
        "Ended",
        # A table's, should an audit list one.
        "CutForDeal",
        "DealPassed",
        "PoolOpened",
        "ShoeChanged",
        "RoundOpened",
        "RoundClosed",
    }
)


def plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, datetime):
        return utc(value)
    return value


def utc(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


def type_name(event: Any) -> str:
    return type(event).__name__


def event_entry(event: Any, position: int | None = None) -> dict[str, Any]:
    """One event as the audit lists it (summary fields filled by :func:`summarize`), with its
    ``position`` in the application's notification log (null where it was not read)."""
    data = {k: plain(v) for k, v in event_fields(event).items() if k not in _META}
    return summarize(
        {
            "position": position,
            "stream": str(event.originator_id),
            "version": event.originator_version,
            "type": type_name(event),
            "time": utc(event.timestamp),
            "data": data,
        }
    )


def summarize(entry: dict[str, Any]) -> dict[str, Any]:
    """Copy the event's actor, hand, card, amount and clauses from its ``data`` to the top,
    and name its actor (:func:`actor_of`) (run again after masking ``data``, so the summary
    never says more than the data)."""
    data = entry["data"]
    out = {k: v for k, v in entry.items() if k not in (*SUMMARY_FIELDS, "clauses")}
    for name in SUMMARY_FIELDS:
        if name in data:
            out[name] = data[name]
    # A reveal's actor was set on the entry by the audit (``replay.audit_reveal``).
    out["actor"] = actor_of(entry["type"], data, entry.get("actor"))
    clauses = list(data.get("clauses") or ([data["clause"]] if data.get("clause") else []))
    out["clauses"] = [{"id": c, "text": clause_text(c)} for c in clauses]
    return out


def actor_of(kind: str, data: Mapping[str, Any], retired_by: Any = None) -> Any:
    """Who did an event (see the module's docstring), from its type ``kind`` (the class's
    name, ``CardDealt``, or with its aggregate's, ``Round.CardDealt``, as the audit trail
    names it) and its fields ``data``: the actor it records (null where a view masks it), a
    cut's ``by``, a reveal's ``retired_by`` (who retired the shoe, as ``replay.audit_reveal``
    found it), ``ledger`` for an event the rules write; null for any other (a masked hand's
    close, ``HandClosed``). The one rule for the audit and the audit trail
    (``replay.projections.audit_trail``)."""
    if "actor" in data:
        return data["actor"]
    name = kind.rpartition(".")[2]
    if name == "Cut":
        return data.get("by")
    if name == "Revealed":
        return retired_by
    if name in BY_THE_RULES:
        return LEDGER
    return None
