"""Whether an audited round's money adds up, wallet by wallet: what the round's own events say
each wallet gained or lost (its player's hands' nets, with insurance, antes and penalties paid
into a pool, and for a private dealer his side of every hand), derived by the same rules as
``replay verify`` (``replay.round_money``), against what that wallet's transfers for the round
(``round_movements``, read from the wallet's own stream) moved.

The hash chain is not keyed: a wallet's last transfers dropped, or an amount changed with the
stream's hashes recomputed, leaves every chain whole. Two records that must agree are what
shows it. Only transfers naming the round are weighed, so a deposit or another table's round
made while this one was in play is not mistaken for a fault.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ledger.rules import rules_from_record
from replay.round_money import RoundMoney


def said_by_events(events: list[Any]) -> tuple[Counter[str] | str, list[str]]:
    """Each account's change as the round's events say it moved (``replay.round_money``),
    or, when the events cannot be folded into money, why; and the settlements whose own
    arithmetic is wrong (their transfers may well match them, rewritten with them)."""
    started, said = events[0], Counter[str]()
    try:
        money = RoundMoney(started, rules_from_record(started.rules))
        for event in events[1:]:
            for payer, payee, amount, _ in money.legs(event):
                said[payer] -= amount
                said[payee] += amount
    except Exception as error:  # a record no rule set reads: the other checks say why
        return f"the round's money cannot be derived from its events ({error})", []
    return said, money.faults


def reconcile(events: list[Any], balances: list[dict[str, Any]]) -> None:
    """Give each of ``balances`` (``replay.audit_money.wallet_balances``) its ``reconciled``
    verdict: ``ok``, what the events say (``said``), what the transfers moved (``moved``) and
    a sentence (``fact``). A settlement that does not add up fails every wallet: what its
    events say cannot be trusted."""
    said, faults = said_by_events(events)
    for b in balances:
        moved = sum(m["change"] for m in b["round_movements"])
        who = f"player {b['player']}"
        if faults:
            b["reconciled"] = {"ok": False, "said": None, "moved": moved, "fact": faults[0]}
            continue
        if isinstance(said, str):
            b["reconciled"] = {"ok": None, "said": None, "moved": moved, "fact": said}
            continue
        expected = said.get(b["account"], 0)
        ok = expected == moved
        verb = "match" if ok else "do not match"
        b["reconciled"] = {
            "ok": ok,
            "said": expected,
            "moved": moved,
            "fact": f"{who}: the round's events say his wallet gains {expected:+d}, and his "
            f"wallet's transfers for the round moved {moved:+d} (minor units): they {verb}",
        }


def money_verdict(balances: list[dict[str, Any]]) -> dict[str, Any]:
    """Over the wallets shown: ``ok`` true when every one reconciles, false naming the first
    that does not (``fault``), null when none could be weighed."""
    verdicts = [b["reconciled"] for b in balances if "reconciled" in b]
    weighed = [v for v in verdicts if v["ok"] is not None]
    bad = next((v for v in weighed if v["ok"] is False), None)
    return {
        "ok": (bad is None) if weighed else None,
        "wallets": len(weighed),
        "fault": None if bad is None else bad["fact"],
    }
