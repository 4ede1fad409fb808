"""The audit page's timeline in words: the round's events and its shoes' own in the order of
the log, one line saying what each recorded, who caused a shoe's reveal, and the clauses the
round cites."""

from __future__ import annotations

import re
from typing import Any

from api.audit_name_words import (
    DIVIDED_HANDS,
    SPECIAL_ACTORS,
    hand_name,
    phase_name,
    stake_reason,
    who,
)
from api.audit_value_words import money
from replay.side_payments import memo_hand

# A dealer's cover held or released for a payment into the pool, by the clause of the
# ``BankCovered`` (ledger/games/dealer_penalties.py); ``timeline`` tells a VU-27 release
# for the share of his tie receipts (``pays``) from one for his over-draw penalty.
PENALTY_COVER = {
    "VU-27": "the dealer's over-draw penalty (VU-27 b)",
    "VU-26": "the dealer's penalty (VU-26), from cover the round could no longer cost him",
}
TIE_SHARE_COVER = "the dealer's share of his receipts on ties (VU-27 c)"


def _words(name: str) -> str:
    """``HandSettled`` -> ``Hand settled``: the fallback for an event without its own line."""
    spaced = re.sub(r"(?<!^)(?=[A-Z])", " ", name).lower()
    return spaced[:1].upper() + spaced[1:]


def timeline(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The round's events and its shoes' own (commitment, cut, reveal: ``shoe_event``), in
    the order of their positions in the log, so the page shows the shuffle fixed before the
    first card; a cut names who cut as the event's actor. By version where positions are not
    known (the round's events, then the shoes')."""
    entries = _tie_share_releases(list(report.get("events", [])), report.get("rules") or {})
    for shoe in report.get("shoes", []):
        for e in shoe.get("events") or []:
            actor = e.get("actor") or (e.get("data") or {}).get("by")
            entries.append({**e, "actor": actor, "shoe_event": True})
    if all(e.get("position") is not None for e in entries):
        entries.sort(key=lambda e: e["position"])
    return entries


def _tie_share_releases(events: list[dict[str, Any]], rules: dict[str, Any]) -> list[dict]:
    """The round's events, a release of the dealer's cover for the share of his tie receipts
    marked (``pays``): both VU-27 payments release cover under VU-27, and the event records
    no more. As the ledger settles, the over-draw penalty's release comes first, and only
    when a hand of his over-drew at a table that takes the penalty; any other VU-27 release
    is the tie share's."""
    dealer_hands = ("dealer", *DIVIDED_HANDS)
    overdraw_first = bool(rules.get("pool_dealer_overdraw")) and any(
        e["type"] == "HandOverdrawn" and (e.get("data") or {}).get("hand") in dealer_hands
        for e in events
    )
    marked = []
    for e in events:
        data = e.get("data") or {}
        released = (data.get("amount") or 0) < 0
        if e["type"] == "BankCovered" and data.get("clause") == "VU-27" and released:
            if not overdraw_first:
                e = {**e, "pays": "tie_share"}
            overdraw_first = False
        marked.append(e)
    return marked


def _shoe_words(kind: str, data: dict[str, Any]) -> str:
    if kind == "Committed":
        return "The shoe's shuffle was committed (its commitment published, the seed kept secret)"
    if kind == "Cut":
        return f"The shoe was cut at card {data.get('cut')}"
    if kind == "Revealed":
        reason = str(data.get("reason") or "").replace("_", " ")
        return "The shoe's secret seed was revealed" + (f" ({reason})" if reason else "")
    return f"Shoe: {_words(kind).lower()}"


def describe(event: dict[str, Any]) -> str:
    """One line saying what the event recorded, in words."""
    kind, data = event["type"], event.get("data") or {}
    if event.get("shoe_event"):
        return _shoe_words(kind, data)
    hand = hand_name(data.get("hand"))
    if kind == "Started":
        # A private game's deal is a dealer's spell of rounds (VU-29); 0 is a round recorded
        # before the count was kept, and the house's one endless deal is not worth saying.
        of_deal = data.get("round_of_deal") or 0
        private = (data.get("rules") or {}).get("family") not in (None, "casino")
        deal = f", round {of_deal} of the deal" if of_deal and private else ""
        return f"Round {data.get('number', '')} started{deal}"
    if kind == "ActedFor":
        action = str(data.get("action") or "").replace("_", " ")
        first = data.get("first_version")
        covers = f"This stream's events from version {first}" if first else "The events above"
        return f"{covers} ({action}) were given by {data.get('by')}, for the actor named"
    if kind == "PhaseEntered":
        return f"Next step: {phase_name(data.get('phase'))}"
    if kind == "HandOpened":
        return f"{hand.capitalize()} opened for the player at seat {data.get('seat')}"
    if kind == "StakePlaced":
        return f"Stake placed on {hand}"
    if kind == "StakeRaised":
        return f"{stake_reason(data.get('reason'))}: stake on {hand} raised"
    if kind == "DealerDoubleCalled":
        return "The dealer called “double”" if data.get("called") else "The dealer did not double"
    if kind == "CardDealt":
        side = "face up" if data.get("face_up") else "face down"
        return f"Card dealt {side} to {hand}"
    if kind == "CardBurned":
        return "Card burned (set aside unplayed)"
    if kind == "ShoeReplaced":
        return "A new shoe was brought in"
    if kind == "CardsShown":
        return f"The cards of {hand} were turned face up"
    if kind == "NaturalDeclared":
        return f"A natural was declared on {hand}"
    if kind == "HandStood":
        total = data.get("total")
        return f"{hand.capitalize()} stood" + (f" on {total}" if total is not None else "")
    if kind == "HandOverdrawn":
        total = data.get("total")
        return f"{hand.capitalize()} went over 21" + (f" ({total})" if total is not None else "")
    if kind == "HandSplit":
        return f"{hand.capitalize()} was split; {hand_name(data.get('new_hand'))} was opened"
    if kind == "DealerDivided":
        # An event recorded before the dealer could divide again names neither hand.
        divided = hand_name(data.get("hand") or "dealer")
        new = hand_name(data.get("new_hand") or "dealer2")
        return f"The dealer divided the pair of {divided}; {new} was opened"
    if kind == "AceValueChosen":
        return f"An ace of {hand} counted as {data.get('value')}"
    if kind == "InsuranceDecided":
        return f"Insurance decided for {hand}"
    if kind == "InsuranceSettled":
        return f"Insurance of {hand} settled"
    if kind == "Surrendered":
        return f"{hand.capitalize()} surrendered"
    if kind == "IrregularityRecorded":
        return f"Irregularity recorded: {str(data.get('kind', '')).replace('_', ' ')}"
    if kind == "TwoCardsResolved":
        return f"Two cards served at once to {hand} were resolved"
    if kind == "HandSettled":
        return f"{hand.capitalize()} settled: {data.get('outcome')}"
    if kind == "HoldAdjusted":
        return hold_adjusted(hand, data)
    if kind == "BankCovered":
        why = TIE_SHARE_COVER if event.get("pays") == "tie_share" else None
        why = why or PENALTY_COVER.get(data.get("clause"))
        if (data.get("amount") or 0) < 0:
            left = money(-data["amount"])
            if why:
                return f"{left} of the bank's cover was released back to the banker to pay {why}"
            return f"The rest of the bank's cover, {left}, was released back to the banker"
        if why:
            return f"The bank's cover was set aside for {why}"
        return "The bank's cover was set aside"
    if kind == "Ended":
        return "Round ended" + (", the deal passes on" if data.get("passes_deal") else "")
    if "from_account" in data:
        return f"Money moved from {data['from_account']} to {data.get('to_account')}"
    return _words(kind)


def hold_adjusted(hand: str, data: dict[str, Any]) -> str:
    """A hold that grew (the dealer divided his pair, VU-21), paid another player (VU-10) or
    was partly released to its holder (H13-5)."""
    amount = data.get("amount") or 0
    if amount >= 0:
        return f"Money held for {hand} raised by {money(amount)}"
    to = data.get("to_hand") or memo_hand(data.get("memo"))
    if to and to == data.get("hand"):
        return f"Money held for {hand} lowered by {money(-amount)}, released to its holder"
    paid = f"{hand.capitalize()} paid {money(-amount)} from its stake"
    return f"{paid} to the holder of {hand_name(to)}" if to else f"{paid} to another player"


def cited(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Every clause the round's events and settlements cite, once each, in order of first
    citation, with its text: the page's glossary of rules."""
    found: dict[str, Any] = {}
    sources = [e.get("clauses") or [] for e in timeline(report)]
    for hand in [*report.get("hands", []), *report.get("dealer_hands", [])]:
        sources.append((hand.get("settlement") or {}).get("clauses") or [])
    for clauses in sources:
        for clause in clauses:
            found.setdefault(clause["id"], clause.get("text"))
    return [{"id": k, "text": v} for k, v in found.items()]


def reveal_cause(revealed: dict[str, Any], names: dict[str, str]) -> str:
    """Who caused a shoe's reveal and why (``recorded.revealed``)."""
    reason = revealed.get("reason") or "the shoe was retired"
    by = revealed.get("caused_by")
    if by:
        where = by.get("position")
        at = f", position {where}" if where is not None else ""
        return f"by {_by(revealed.get('actor'), names)}, who closed the table ({by['type']}{at})"
    if revealed.get("actor"):
        return f"by {_by(revealed['actor'], names)}, by the rules: {reason}"
    return reason


def _by(actor: Any, names: dict[str, str]) -> str:
    """``who`` after "by": "by an administrator", "by Player at seat 1 (…)"."""
    name = who(actor, names)
    return name[0].lower() + name[1:] if actor in SPECIAL_ACTORS else name
