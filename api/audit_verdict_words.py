"""The audit page's sentences for the audit's verdicts: whether a wallet's money reconciles,
and what replaying the round through today's rules (``rederived``) found different."""

from __future__ import annotations

from typing import Any

from api.audit_name_words import hand_name, who
from api.audit_value_words import signed_money


def reconciled_sentence(reconciled: dict[str, Any]) -> str:
    """A wallet's money verdict (``balances[].reconciled``) in words."""
    if reconciled.get("ok") is None:
        return reconciled.get("fact") or "The round's money could not be weighed."
    said, moved = signed_money(reconciled["said"]), signed_money(reconciled["moved"])
    if reconciled["ok"]:
        return f"The round's events say this wallet gains {said}; its transfers moved {moved}."
    return (
        f"The round's events say this wallet gains {said}, but its transfers for the round "
        f"moved {moved}."
    )


def money_fault(balances: list[dict[str, Any]], names: dict[str, str]) -> str:
    """The first wallet whose transfers are not what the round's events say, in words."""
    for b in balances:
        reconciled = b.get("reconciled") or {}
        if reconciled.get("ok") is False:
            return f"{who(b['player'], names)}: {reconciled_sentence(reconciled)}"
    return ""


def rederived_lines(report: dict[str, Any], names: dict[str, str]) -> list[str]:
    """What the round's replay through today's rules (``rederived``) found different, hand by
    hand in words: a settlement as recorded and as the cards give it, any other money line of
    the hand as ``replay rederive`` prints it; then the lines of no one hand, and where
    today's rules part from the record (an auditor's only: a player's verdict has neither)."""
    verdict = report.get("rederived") or {}
    players = {h["id"]: h.get("player") for h in report.get("hands", [])}
    settled = {s["hand"]: s for s in verdict.get("settlements") or []}
    out, told = [], set()
    for hand, lines in (verdict.get("by_hand") or {}).items():
        name = hand_name(hand)
        name = name[:1].upper() + name[1:]
        if players.get(hand):
            name += f" ({who(players[hand], names)})"
        if hand in settled:
            s = settled[hand]
            out.append(
                f"{name} was recorded as {_settled(s['recorded'])}; its cards give "
                f"{_settled(s['rederived'])}."
            )
        others = [line for line in lines if not line.startswith(f"{hand}: ")]
        out.extend(f"{name}: {line}" for line in others)
        told.update(lines)
    out.extend(line for line in verdict.get("differences") or [] if line not in told)
    if verdict.get("diverged"):
        out.append(f"Today's rules part from the record: {verdict['diverged']}")
    return out


def _settled(settled: dict[str, Any] | None) -> str:
    if settled is None:
        return "no settlement"
    clauses = ", ".join(settled.get("clauses") or [])
    return f"{settled['outcome']}, {signed_money(settled['amount'])} ({clauses})"
