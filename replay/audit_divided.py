"""A Vingt-un hand settled against each of the dealer's divided hands (VU-21), part by part.

After a division each punter's hand is settled against every one of the dealer's hands, but
its ``HandSettled`` records one net for them all (the stake, the summed multiplier, the union
of the clauses and, since ``dealer_totals``, each dealer hand's total), not the parts. The
audit derives them (``by_dealer_hand`` on the settlement): the rules of one dealer hand,
VU-14..17 (``ledger.games.vingt_un.versus``, the very function the ledger settles with),
applied to the totals the cards make as the audit follows them, in the order the dealer
played his hands. The parts must sum to the recorded net; a sum that does not, or a total
the settlement records otherwise than its cards make it, is a fault (``ok`` false), shown,
never smoothed over. ``divided_settlements`` sums the verdict up over the hands shown.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ledger.games.vingt_un import versus
from replay.clauses import clause_text

BASIS = (
    "derived: the hand's HandSettled records one net against all the dealer's hands, not "
    "its parts; each part is VU-14..17 applied to this hand's total and that dealer hand's, "
    "as their cards make them"
)


def _final_total(hand: dict[str, Any] | None) -> int | None:
    """The hand's total after its last card (as the audit followed it)."""
    if hand is None or not hand["totals"]:
        return None
    return hand["totals"][-1]["total"]


def add_dealer_parts(
    family: str, dealer_order: list[str], hands: list[dict], dealer: list[dict]
) -> None:
    """Give each settlement of ``hands`` its ``by_dealer_hand``: the parts against each of
    the dealer's hands (in ``dealer_order``, the order he played them) when the round is
    Vingt-un, the dealer held more than one hand and the hand was settled after he played
    (not at the deal or on an over-draw); None otherwise."""
    played = {h["id"]: h for h in dealer}
    order = [d for d in dealer_order if d in played]
    for hand in hands:
        settled = hand["settlement"]
        if settled is None:
            continue
        divided = family == "vingt-un" and len(order) > 1 and settled["dealer_played"]
        settled["by_dealer_hand"] = (
            breakdown(settled, _final_total(hand), {d: _final_total(played[d]) for d in order})
            if divided
            else None
        )


def breakdown(settled: dict[str, Any], total: int | None, dealers: dict[str, int | None]) -> dict:
    """``settled`` (the audit's settlement) in parts against each of ``dealers`` (his hands'
    totals by hand, in the order he played them), ``total`` the punter hand's."""
    stake = settled["stake"]
    parts, faults = [], []
    if total is None or None in dealers.values():
        faults.append("a hand's total cannot be read from its cards")
    else:
        for dealer_hand, dealer_total in dealers.items():
            multiplier, clauses, tie = versus(total, dealer_total, dealer_total > 21)
            parts.append(
                {
                    "dealer_hand": dealer_hand,
                    "player_total": total,
                    "dealer_total": dealer_total,
                    "outcome": "won" if multiplier > 0 else "lost",
                    "tie": tie,
                    "multiplier": str(multiplier),
                    # Vingt-un pays whole multiples of the stake: no rounding in a part.
                    "amount": stake * multiplier,
                    "clauses": [{"id": c, "text": clause_text(c)} for c in clauses],
                }
            )
    faults += _recorded_totals_differ(settled, total, dealers)
    summed = sum(p["amount"] for p in parts)
    multiplier = sum(int(p["multiplier"]) for p in parts)
    if parts and summed != settled["amount"]:
        faults.append(
            f"the parts sum to {summed} (multiplier {multiplier}), "
            f"the settlement records {settled['amount']} (multiplier {settled['multiplier']})"
        )
    elif parts and Fraction(settled["multiplier"]) != multiplier:
        faults.append(
            f"the parts' multipliers sum to {multiplier}, the "
            f"settlement records {settled['multiplier']}"
        )
    return {
        "derived": True,
        "basis": BASIS,
        "parts": parts,
        "sum": summed if parts else None,
        "recorded": settled["amount"],
        "ok": not faults,
        "fault": "; ".join(faults) or None,
    }


def _recorded_totals_differ(
    settled: dict[str, Any], total: int | None, dealers: dict[str, int | None]
) -> list[str]:
    """Where the totals the settlement records are not those its cards make (a settlement
    recorded before ``dealer_totals`` records the dealer's first hand only)."""
    faults = []
    if settled["player_total"] is not None and settled["player_total"] != total:
        faults.append(
            f"the settlement records the hand's total as {settled['player_total']}, "
            f"its cards make {total}"
        )
    recorded = settled["dealer_totals"]
    if recorded is not None and recorded != dealers:
        faults.append(
            f"the settlement records the dealer's hands as {_listed(recorded)}, "
            f"their cards make {_listed(dealers)}"
        )
    return faults


def _listed(totals: dict[str, int | None]) -> str:
    return ", ".join(f"{hand} {total}" for hand, total in totals.items())


def parts_verdict(hands: list[dict]) -> dict[str, Any]:
    """Over ``hands``: whether every settlement weighed part by part against the dealer's
    divided hands sums to its recorded net (``ok`` null when none was: no division), how
    many were weighed, and the first hand at fault."""
    weighed = [
        (h["id"], h["settlement"]["by_dealer_hand"])
        for h in hands
        if h["settlement"] is not None and h["settlement"].get("by_dealer_hand") is not None
    ]
    bad = next(((hand, parts) for hand, parts in weighed if not parts["ok"]), None)
    return {
        "ok": (bad is None) if weighed else None,
        "hands": len(weighed),
        "fault": None if bad is None else f"hand {bad[0]}: {bad[1]['fault']}",
    }
