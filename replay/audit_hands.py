"""Each hand of an audited round followed through the round's events, as the aggregate does:
its stakes, its totals as they moved (after each card, split or ace choice), its settlement
with the clauses' texts and the arithmetic, the side payments between players' hands (VU-10)
and its net."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ledger.cards import hand_total, totals_with_aces
from ledger.domain.hands import DEALER_HANDS
from ledger.domain.round import Round
from ledger.rules import recorded_option
from replay.clauses import clause_text
from replay.side_payments import SidePayment, side_payment


def _total(cards: list[str], aces: dict[int, int], binding: bool) -> int | None:
    if not cards:
        return None
    return totals_with_aces(cards, aces, binding=binding) if aces else hand_total(cards)


class Hands:
    """Follows each hand through the round's events, as the aggregate does."""

    def __init__(self) -> None:
        self.hands: dict[str, dict[str, Any]] = {}
        self.ace_value_binds = False  # OC-7, from the rules the round recorded

    def hand(self, hand_id: str, **extra: Any) -> dict[str, Any]:
        if hand_id not in self.hands:
            self.hands[hand_id] = {
                "id": hand_id,
                "player": None,
                "seat": None,
                "split_from": None,
                "split_into": [],
                "stakes": [],
                "cards": [],
                "aces": {},
                "totals": [],
                "insurance": None,
                "surrendered": False,
                "settlement": None,
                "side_payments": [],
            }
        self.hands[hand_id].update(extra)
        return self.hands[hand_id]

    def moved(
        self,
        hand: dict[str, Any],
        version: int,
        why: str,
        card: str | None,
        new_hand: str | None = None,
    ) -> None:
        entry = {
            "version": version,
            "event": why,
            "card": card,
            "cards": list(hand["cards"]),
            "total": _total(hand["cards"], hand["aces"], self.ace_value_binds),
        }
        if new_hand is not None:  # a split or a division: the hand it opened
            entry["new_hand"] = new_hand
        hand["totals"].append(entry)

    def feed(self, e: Any) -> None:
        v = e.originator_version
        if isinstance(e, Round.Started):
            if e.rules["family"] == "ochko":  # the one family whose holder values his aces
                self.ace_value_binds = recorded_option(e.rules, "ace_value_binds")
        elif isinstance(e, Round.HandOpened):
            self.hand(e.hand, player=e.player, seat=e.seat)
        elif isinstance(e, Round.StakePlaced | Round.StakeRaised):
            hand = self.hand(e.hand)
            hand["stakes"].append(
                {
                    "version": v,
                    "reason": getattr(e, "reason", "stake"),
                    "amount": e.amount,
                    "held": e.held,
                    "clause": e.clause,
                }
            )
        elif isinstance(e, Round.CardDealt):
            hand = self.hand(e.hand)
            hand["cards"].append(e.card)
            self.moved(hand, v, "CardDealt", e.card)
        elif isinstance(e, Round.HandSplit):
            old = self.hand(e.hand)
            old["cards"].pop()
            old["aces"] = {}
            new = self.hand(e.new_hand, player=old["player"], seat=old["seat"])
            # As the round records it: every hand of a split names the original, which
            # names itself; ``split_into`` says which hand each split opened.
            new["split_from"] = old["split_from"] or e.hand
            old["split_from"] = old["split_from"] or e.hand
            old["split_into"].append(e.new_hand)
            new["cards"] = [e.card]
            self.moved(old, v, "HandSplit", None, e.new_hand)
            self.moved(new, v, "HandSplit", e.card, e.new_hand)
        elif isinstance(e, Round.DealerDivided):
            divided = self.hand(e.hand)
            divided["cards"].pop()
            new = self.hand(e.new_hand)
            divided["split_into"].append(e.new_hand)
            new["cards"] = [e.card]
            self.moved(divided, v, "DealerDivided", None, e.new_hand)
            self.moved(new, v, "DealerDivided", e.card, e.new_hand)
        elif isinstance(e, Round.TwoCardsResolved) and e.rejected:
            hand = self.hand(e.hand)
            cards = hand["cards"]
            del cards[len(cards) - 1 - cards[::-1].index(e.rejected)]
            self.moved(hand, v, "TwoCardsResolved", None)
        elif isinstance(e, Round.AceValueChosen):
            hand = self.hand(e.hand)
            hand["aces"][e.index] = e.value
            self.moved(hand, v, "AceValueChosen", None)
        elif isinstance(e, Round.InsuranceDecided):
            self.hand(e.hand)["insurance"] = {"amount": e.amount, "clause": e.clause}
        elif isinstance(e, Round.InsuranceSettled):
            insurance = self.hand(e.hand)["insurance"] or {}
            insurance.update(result=e.amount, settled_by=e.clause)
            self.hand(e.hand)["insurance"] = insurance
        elif isinstance(e, Round.Surrendered):
            self.hand(e.hand)["surrendered"] = True
        elif isinstance(e, Round.HandSettled):
            self.hand(e.hand)["settlement"] = settlement(e)
        elif isinstance(e, Round.HoldAdjusted) and (paid := side_payment(e)):
            self.side_paid(v, paid)

    def side_paid(self, version: int, paid: SidePayment) -> None:
        """Money between two players' hands (VU-10): part of each hand's net, beside its
        settlement with the banker."""
        entry = {"version": version, "clause": paid.clause, "memo": paid.memo}
        self.hand(paid.payer)["side_payments"].append(
            {**entry, "amount": -paid.amount, "to_hand": paid.payee, "from_hand": None}
        )
        if paid.payee is not None:
            self.hand(paid.payee)["side_payments"].append(
                {**entry, "amount": paid.amount, "to_hand": None, "from_hand": paid.payer}
            )

    def result(self) -> tuple[list[dict], list[dict]]:
        for hand in self.hands.values():
            hand["aces"] = {str(k): val for k, val in hand["aces"].items()}
            hand["stake"] = sum(s["amount"] for s in hand["stakes"])
            hand.update(hand_net(hand))
        players = [h for k, h in self.hands.items() if k not in DEALER_HANDS]
        players.sort(key=lambda h: int(h["id"][1:]) if h["id"][1:].isdigit() else 10**6)
        dealer = [self.hands[k] for k in DEALER_HANDS if k in self.hands]
        return players, dealer


def hand_net(hand: dict[str, Any]) -> dict[str, Any]:
    """What the hand brought its player: its settlement with the banker plus what it paid to or
    collected from other players' hands (``side_net``); None while neither has happened."""
    side = sum(p["amount"] for p in hand["side_payments"])
    settled = hand["settlement"]
    if settled is None and not hand["side_payments"]:
        return {"side_net": 0, "net": None}
    return {"side_net": side, "net": (settled["amount"] if settled else 0) + side}


def settlement(e: Any) -> dict[str, Any]:
    """A ``HandSettled`` with its clauses' texts and its arithmetic."""
    multiplier = Fraction(e.multiplier)
    raw = e.stake * multiplier
    return {
        "version": e.originator_version,
        "outcome": e.outcome,
        "player_total": e.player_total,
        "dealer_total": e.dealer_total,
        # Settled before the dealer played (a natural, an over-draw): no dealer total was
        # weighed. Kept apart from ``dealer_total`` so that a total masked for a viewer
        # (None there) is never mistaken for one that did not exist.
        "dealer_played": e.dealer_total is not None,
        # After the dealer divides (VU-21): each of his hands' totals, the hand weighed
        # against them all (``dealer_total`` is his first's); None when he held one hand.
        "dealer_totals": e.dealer_totals,
        "clauses": [{"id": c, "text": clause_text(c)} for c in e.clauses],
        "stake": e.stake,
        "multiplier": e.multiplier,
        "raw": str(raw),
        "arithmetic": f"{e.stake} × {e.multiplier} = {raw}",
        "rounding": e.rounding,
        "amount": e.amount,
        "from_bank_cover": e.from_bank_cover,
        # Against each of a Vingt-un dealer's divided hands (VU-21): replay.audit_divided.
        "by_dealer_hand": None,
    }
