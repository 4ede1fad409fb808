"""What each caller may see of a round: the one place where hidden cards are masked.

Admins and auditors see everything. Anyone else (a player key, a dealer key) sees the cards of
the hands he holds (the casino house dealer's key holds none: ``owns``), every card dealt face
up or shown since (``CardsShown``), and nothing else:
another player's face-down cards (VU-4/VU-7, H13, OC, and Очко's face-down draws), the casino
dealer's hole card (CB-2) until it is turned, and anything derived from those cards (totals,
chosen ace values). Hidden cards are replaced by ``"??"`` so a front end still knows how many
cards lie on the table. The shoe's seed never lives in a round, so it cannot leak from here
(``api.shoe_secrets`` decides when the table feed and the audit may show it).

A hand the caller cannot fully see also keeps quiet about why it takes no more cards until it
is settled (a settlement is public): whether it stood, went over 21 (Очко with
``punter_bust_pays: false`` settles a bust only against the banker), was stood for by the
ledger at 21, or holds a natural, it reads ``"closed"``, and its ``HandStood``,
``HandOverdrawn`` and ``NaturalDeclared`` events read ``HandClosed`` ``{hand}``. Once it is
settled they show again, still without the total, nor who stood (the ledger stands at 21).

A burned card (``CardBurned``, casino) goes face down to the discard: it reads ``"??"`` until
its shoe's seed may be shown to the caller (``api.shoe_secrets.burns_shown``), when anyone
can rebuild it from the seed anyway."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any, Protocol

from ledger.domain.chain import plain
from ledger.domain.hands import DEALER, DEALER_SECOND, OPEN, is_dealer_hand
from ledger.domain.round import Round

HIDDEN = "??"
SEE_ALL = ("admin", "auditor")

# Chain fields: a masked card's event hash could be brute-forced over 52 cards (and the next
# event's ``prev_hash`` repeats it), so only those who see everything get the chain.
CHAIN_FIELDS = ("hash", "prev_hash")
# Events that tell why a hand takes no more cards, and so something of its hidden cards.
_CLOSING = ("HandStood", "HandOverdrawn", "NaturalDeclared")
CLOSED = "closed"  # a hidden hand's status and event, before it is settled
CLOSED_EVENT = "HandClosed"
# Fields of those events that still say too much once the hand is settled: its total, and
# who stood (the ledger stands for a hand at 21).
_SETTLED_HIDDEN = {"HandStood": ("total", "actor"), "HandOverdrawn": ("total",)}
BURNED = "CardBurned"


class Viewer(Protocol):
    role: str
    player_id: str | None


def sees_all(viewer: Viewer) -> bool:
    return viewer.role in SEE_ALL


def holder(rnd: Round, hand_id: str) -> str:
    """Who holds a hand: its player, or for the dealer's hands the dealer (a player id, or
    "house" in the casino)."""
    if is_dealer_hand(hand_id):
        return rnd.dealer
    return rnd.hands[hand_id]["player"]


def owns(viewer: Viewer, rnd: Round, hand_id: str) -> bool:
    """Whether ``viewer`` holds the hand, and so sees its face-down cards. The casino house
    dealer's key (a dealer key bound to no player) holds none: the house plays by rule
    (CB-8), so no decision of that key needs the hole card, which stays hidden from it as
    from everyone else until it is turned (CB-2)."""
    if sees_all(viewer):
        return True
    me = viewer.player_id
    return me is not None and holder(rnd, hand_id) == me


def settled(rnd: Round, hand_id: str) -> bool:
    """Whether the hand's outcome is public: a player's hand once settled, the dealer's once
    the round has ended."""
    if is_dealer_hand(hand_id):
        return bool(rnd.ended)
    return bool(rnd.hands[hand_id].get("settled"))


def outcome_hidden(rnd: Round, hand_id: str, viewer: Viewer) -> bool:
    """Whether ``viewer`` may not yet learn why the hand takes no more cards (it stood, went
    over 21, holds a natural): he cannot see all its cards, and it is not settled."""
    if owns(viewer, rnd, hand_id) or all(rnd.rules_hand(hand_id)["face_up"]):
        return False
    return not settled(rnd, hand_id)


def _hand_view(rnd: Round, hand_id: str, hand: dict, viewer: Viewer) -> dict:
    mine = owns(viewer, rnd, hand_id)
    visible = [mine or up for up in hand["face_up"]]
    cards = [c if v else HIDDEN for c, v in zip(hand["cards"], visible, strict=True)]
    whole = all(visible)
    status = hand["status"]
    if status != OPEN and outcome_hidden(rnd, hand_id, viewer):
        status = CLOSED  # stood, over 21 or a natural: each would tell of the hidden cards
    out = {
        "id": hand_id,
        "cards": cards,
        "face_up": list(hand["face_up"]),
        "status": status,
        "draws": hand["draws"],
        # An ace's chosen value tells that the card is an ace: only for visible cards.
        "aces": {k: v for k, v in hand["aces"].items() if _visible_at(visible, k)},
        "total": rnd.total(hand_id) if whole and hand["cards"] else None,
    }
    return out


def _visible_at(visible: list[bool], key: str) -> bool:
    index = int(key)
    return 0 <= index < len(visible) and visible[index]


def round_view(rnd: Round, viewer: Viewer) -> dict[str, Any]:
    """The round as ``viewer`` may see it, as plain JSON-ready data."""
    hands = []
    for hand_id in rnd.order:
        hand = rnd.hands[hand_id]
        view = _hand_view(rnd, hand_id, hand, viewer)
        view.update(
            player=hand["player"],
            seat=hand["seat"],
            stake=hand["stake"],
            held=hand["held"],
            doubled=hand["doubled"],
            split_from=hand["split_from"],
            insurance=hand["insurance"],
            # Whose insurance decision the round waits for (``current_turn`` is null then).
            insurance_pending=rnd.phase == "insurance" and not hand.get("insurance_decided"),
            surrendered=hand["surrendered"],
            settled=bool(hand.get("settled")),
            outcome=hand.get("outcome"),
            result=hand["result"],
            # Cards served two at once (VU-23) are dealt face up; still mask defensively.
            pending_two=[c if c in view["cards"] else HIDDEN for c in hand.get("pending_two") or []]
            or None,
        )
        hands.append(view)
    dealer_hands = []
    for hand_id in rnd.dealer_hand_ids():  # his first, then those he divided (VU-21)
        hand = rnd.rules_hand(hand_id)
        dealer_hands.append({**_hand_view(rnd, hand_id, hand, viewer), "natural": hand["natural"]})
    by_id = {view["id"]: view for view in dealer_hands}
    return {
        "round_id": str(rnd.id),
        "table_id": str(rnd.table_id),
        "number": rnd.number,
        "family": rnd.family,
        "phase": rnd.phase,
        "ended": rnd.ended,
        "dealer": rnd.dealer,
        "dealer_doubled": rnd.dealer_doubled,
        "current_turn": rnd.current_turn() if rnd.phase == "play" else None,
        "order": list(rnd.order),
        "hands": hands,
        "dealer_hand": by_id[DEALER],
        "dealer_second": by_id.get(DEALER_SECOND),
        "dealer_hands": dealer_hands,
        "version": rnd.version,
    }


class _CardTracker:
    """Follows the cards of each hand through a round's events, as the aggregate does, so
    that a later ``CardsShown`` can name the cards it turned up."""

    def __init__(self) -> None:
        self.cards: dict[str, list[str]] = {}

    def apply(self, name: str, state: dict) -> None:
        hand = state.get("hand")
        if name == "CardDealt":
            self.cards.setdefault(hand, []).append(state["card"])
        elif name == "HandSplit":
            self.cards[hand].pop()
            self.cards[state["new_hand"]] = [state["card"]]
        elif name == "DealerDivided":  # recorded before re-dividing: the first into the second
            self.cards[state.get("hand", DEALER)].pop()
            self.cards[state.get("new_hand", DEALER_SECOND)] = [state["card"]]
        elif name == "TwoCardsResolved" and state.get("rejected"):
            cards = self.cards[hand]
            del cards[len(cards) - 1 - cards[::-1].index(state["rejected"])]


def event_record(event: Any, position: int | None = None) -> dict[str, Any]:
    """A stored domain event as ``{type, aggregate_id, version, timestamp, position, data}``."""
    fields = dict(vars(event))
    data = {
        k: plain(v)
        for k, v in fields.items()
        if k not in ("originator_id", "originator_version", "timestamp", "originator_topic")
    }
    return {
        "type": type(event).__name__,
        "aggregate_id": str(event.originator_id),
        "version": event.originator_version,
        "timestamp": event.timestamp.isoformat(),
        "position": position,
        "data": data,
    }


def burn_shoes(events: Iterable[dict]) -> set[str]:
    """The shoes (ids) that cards were burned from in ``events``."""
    return {str(e["data"]["shoe"]) for e in events if e["type"] == BURNED}


def event_views(
    rnd: Round, events: list[dict], viewer: Viewer, burns_shown: Collection[str] = ()
) -> list[dict]:
    """Mask a round's events (plain dicts with ``type`` and ``data``, in stream order) for
    ``viewer``. A face-down card of someone else's hand is masked when dealt; the
    ``CardsShown`` event that turns it up carries the hand's cards then; totals of hands the
    viewer cannot fully see are dropped. A burned card is masked unless its shoe is in
    ``burns_shown`` (``api.shoe_secrets.burns_shown``: none unless told)."""
    if sees_all(viewer):
        return events
    tracker = _CardTracker()
    out = []
    for event in events:
        name = event["type"]
        data = {k: v for k, v in event["data"].items() if k not in CHAIN_FIELDS}
        tracker.apply(name, data)
        hand = data.get("hand")
        known = hand is not None and _hand_known(rnd, hand, viewer)
        hidden = hand is not None and not (known or _fully_up(rnd, hand))
        if name == "CardDealt" and not (data["face_up"] or known):
            data["card"] = HIDDEN
        elif name == BURNED and str(data["shoe"]) not in burns_shown:
            data["card"] = HIDDEN  # face down to the discard, for whoever asks
        elif name == "CardsShown":
            data["cards"] = list(tracker.cards.get(hand, []))
        elif name in _CLOSING and hidden:
            if not _settled(rnd, hand):
                out.append({**event, "type": CLOSED_EVENT, "data": {"hand": hand}})
                continue
            for field in _SETTLED_HIDDEN.get(name, ()):
                data[field] = None
        elif name == "AceValueChosen" and not (known or _face_up_at(rnd, hand, data["index"])):
            data["index"] = data["value"] = None  # which hidden card is an ace, and its value
        elif name == "HandSettled" and hidden:
            data["player_total"] = None
        if name == "HandSettled" and dealer_total_hidden(rnd, viewer):
            data["dealer_total"] = None
            if data.get("dealer_totals") is not None:  # absent on events recorded before it
                data["dealer_totals"] = None
        out.append({**event, "data": data})
    return out


def dealer_total_hidden(rnd: Round, viewer: Viewer) -> bool:
    """Whether the dealer's total that settlements weigh is withheld from ``viewer``: his
    first hand is not his, and not every card of it lies face up. The one rule for the
    events and for the audit's hands."""
    return not (_fully_up(rnd, DEALER) or owns(viewer, rnd, DEALER))


def _settled(rnd: Round, hand: str) -> bool:
    try:
        return settled(rnd, hand)
    except KeyError:
        return False


def _face_up_at(rnd: Round, hand: str, index: Any) -> bool:
    try:
        face_up = rnd.rules_hand(hand)["face_up"]
    except KeyError:
        return False
    return isinstance(index, int) and 0 <= index < len(face_up) and face_up[index]


def _hand_known(rnd: Round, hand: str, viewer: Viewer) -> bool:
    try:
        return owns(viewer, rnd, hand)
    except KeyError:
        return False


def _fully_up(rnd: Round, hand: str | None) -> bool:
    """Whether every card of the hand lies face up now (so its total is public)."""
    if hand is None:
        return False
    try:
        target = rnd.rules_hand(hand)
    except KeyError:
        return False
    return all(target["face_up"])
