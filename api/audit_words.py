"""Plain-English words for the audit page (api/audit_page.py): what each event means, whose
hand is whose, how a card and an amount of money read. The page is for someone who has never
seen the API, so nothing here may need the JSON field names to be understood.

Only wording lives here: every fact comes from the audit document the JSON endpoint serves.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from replay.side_payments import memo_hand

RANKS = {"A": "Ace", "T": "10", "J": "Jack", "Q": "Queen", "K": "King"}
SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
RED_SUITS = frozenset("DH")
HIDDEN = "??"
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
AUTOMATIC = "Automatic (by the rules)"
SPECIAL_ACTORS = {
    "house": "The house (casino dealer)",
    "ledger": "The ledger (automatic)",
    "admin": "An administrator",
    "auditor": "An auditor",
}


# -- cards and money ---------------------------------------------------------------------


def expected_card_name(card: str | None) -> str:
    """The card the shuffle gives at a place: None when none can be derived (the revealed
    seed or order does not match the commitment, or the place is outside the shoe); a card
    masked for this reader (``??``) reads as hidden."""
    if card is None:
        return "none: no card can be derived"
    return card_name(card)


def card_name(card: str | None) -> str:
    """``"TH"`` -> ``"10 of hearts"``; a card hidden from this reader reads as such."""
    if not card or card == HIDDEN or len(card) != 2:
        return "a card hidden from you (face down)"
    rank, suit = card[0], card[1]
    return f"{RANKS.get(rank, rank)} of {SUITS.get(suit, suit)}"


def card_parts(card: str | None) -> dict[str, Any]:
    """What the card picture needs: rank label, suit letter, colour; ``hidden`` for a back."""
    if not card or card == HIDDEN or len(card) != 2 or card[1] not in SUITS:
        return {"hidden": True, "name": card_name(None), "code": "hidden"}
    rank, suit = card[0], card[1]
    return {
        "hidden": False,
        "rank": "10" if rank == "T" else rank,
        "suit": suit,
        "red": suit in RED_SUITS,
        "name": card_name(card),
        "code": card,
    }


def money(minor: Any) -> str:
    """Integer minor units as currency units with two decimals: 1050 -> ``10.50``."""
    if minor is None or minor == "":
        return "—"
    value = int(minor)
    sign = "−" if value < 0 else ""
    whole, cents = divmod(abs(value), 100)
    return f"{sign}{whole:,}.{cents:02d}"


def signed_money(minor: Any) -> str:
    """A change of balance, always signed: ``+4.00``, ``−2.00``, ``0.00``."""
    if minor is None:
        return "—"
    return ("+" if int(minor) > 0 else "") + money(minor)


def net_sentence(amount: int) -> str:
    if amount > 0:
        return f"The player won {money(amount)}."
    if amount < 0:
        return f"The player lost {money(-amount)}."
    return "No money changed hands."


def when(moment: Any) -> str:
    """An ISO 8601 time as ``2026-03-01 14:05:09.123 UTC`` (the audit's times are UTC)."""
    if not moment:
        return "—"
    try:
        parsed = datetime.fromisoformat(str(moment))
    except ValueError:
        return str(moment)
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC)
    return parsed.strftime("%Y-%m-%d %H:%M:%S.") + f"{parsed.microsecond // 1000:03d} UTC"


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


# -- people and hands --------------------------------------------------------------------


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
    # Events with no actor (a phase change, a settlement) follow from the rules by themselves.
    if not actor:
        return AUTOMATIC
    actor = str(actor)
    if actor in SPECIAL_ACTORS:
        return SPECIAL_ACTORS[actor]
    if actor in names:
        return f"{names[actor]} ({short_id(actor)})"
    return f"Player {short_id(actor)}"


# A dealer's cover held or released for a payment into the pool, by the clause of the
# ``BankCovered`` (ledger/games/dealer_penalties.py); ``timeline`` tells a VU-27 release
# for the share of his tie receipts (``pays``) from one for his over-draw penalty.
PENALTY_COVER = {
    "VU-27": "the dealer's over-draw penalty (VU-27 b)",
    "VU-26": "the dealer's penalty (VU-26), from cover the round could no longer cost him",
}
TIE_SHARE_COVER = "the dealer's share of his receipts on ties (VU-27 c)"


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


# -- events ------------------------------------------------------------------------------


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
