"""What the audit page calls the round's people and hands, and its game, phases and stakes:
"Player at seat 2", "the dealer's second hand", "insurance offered", rather than ids and
codes."""

from __future__ import annotations

import re
from typing import Any

# The hands the dealer divides off his first (VU-21), by their ids.
DIVIDED_HANDS = {"dealer2": "second", "dealer3": "third", "dealer4": "fourth"}
FAMILIES = {
    "casino": "Casino blackjack",
    "vingt-un": "Vingt-un",
    "hoyle": "Hoyle's twenty-one",
    "ochko": "Очко (Russian twenty-one)",
}
PHASES = {
    "started": "the round has started",
    "betting": "betting",
    "dealing": "dealing",
    "insurance": "insurance offered",
    "dealer_double": "the dealer may call “double”",
    "play": "players' turns",
    "dealer": "the dealer's turn",
    "ended": "finished",
}
STAKE_REASONS = {
    "stake": "Stake",
    "double_down": "Doubled down",
    "dealer_double": "Doubled by the dealer's “double”",
}
# Who acted, where a player's view hides it (who stood on a hand he cannot see, a hand's
# close): every event of the audit names its actor otherwise (``replay.audit_events``), the
# ledger for those the rules write.
NOT_SHOWN = "Not shown to you"
SPECIAL_ACTORS = {
    "house": "The house (casino dealer)",
    "ledger": "The ledger (automatic)",
    "admin": "An administrator",
    "auditor": "An auditor",
}


def short_id(value: str) -> str:
    return value.split("-")[0] if value else ""


def people(report: dict[str, Any]) -> dict[str, str]:
    """Player id -> a label a person can follow ("Player at seat 2"), from the seats the
    audit shows this reader; the dealer of a private game is named as such."""
    names: dict[str, str] = {}
    seated = [h for h in report.get("hands", []) if h.get("player")]
    seated += [e["data"] for e in report.get("events", []) if e["type"] == "HandOpened"]
    for hand in seated:
        if hand.get("player") and hand.get("seat") is not None:
            names.setdefault(hand["player"], f"Player at seat {hand['seat']}")
    dealer = report.get("dealer")
    if dealer and dealer != "house":
        names[dealer] = "The dealer" + (f" ({names[dealer].lower()})" if dealer in names else "")
    return names


def who(actor: Any, names: dict[str, str]) -> str:
    if not actor:
        return NOT_SHOWN
    actor = str(actor)
    if actor in SPECIAL_ACTORS:
        return SPECIAL_ACTORS[actor]
    if actor in names:
        return f"{names[actor]} ({short_id(actor)})"
    return f"Player {short_id(actor)}"


def hand_name(hand_id: Any) -> str:
    if hand_id == "dealer":
        return "the dealer's hand"
    if isinstance(hand_id, str) and hand_id in DIVIDED_HANDS:
        return f"the dealer's {DIVIDED_HANDS[hand_id]} hand"
    if isinstance(hand_id, str) and re.fullmatch(r"h\d+", hand_id):
        return f"hand {hand_id[1:]}"
    return str(hand_id or "")


def hand_names(hand_ids: list[Any]) -> str:
    return ", ".join(hand_name(h) for h in hand_ids)


def split_parent(hand_id: str, hands: list[dict[str, Any]]) -> str | None:
    """The hand whose split opened ``hand_id`` (its ``split_into`` names it); None for a hand
    no split opened, the original of a split included."""
    return next((h["id"] for h in hands if hand_id in (h.get("split_into") or [])), None)


def phase_name(phase: Any) -> str:
    return PHASES.get(str(phase), str(phase).replace("_", " "))


def family_name(family: Any) -> str:
    return FAMILIES.get(str(family), str(family))


def stake_reason(reason: Any) -> str:
    return STAKE_REASONS.get(str(reason), str(reason).replace("_", " ").capitalize())
