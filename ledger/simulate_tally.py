"""What a simulation counts and the figures it reports from the count: the ``Tally`` of the
rounds played (hands, naturals, the players' net, the dealer's final hand by up-card), the
dealer's final-total table and the JSON report ``python -m ledger simulate`` prints. The
rounds themselves are played in ledger/simulate.py."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ledger.cards import is_ace, is_natural, is_ten_card
from ledger.domain.hands import BUST, DEALER, STOOD

if TYPE_CHECKING:
    from ledger.simulate import Settings

UPCARDS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]
# The dealer's final hand; "under_17" only happens where the dealer's draws are capped (Очко).
FINALS = ["under_17", "17", "18", "19", "20", "21", "blackjack", "bust"]


@dataclass
class Tally:
    rounds: int = 0
    hands: int = 0
    initial_hands: int = 0
    naturals: int = 0
    net_units: float = 0.0
    net_units_sq: float = 0.0  # sum over rounds of (the round's net per initial hand)²
    # Per up-card: every round ("n", "blackjack"), and the dealer's final total in the rounds
    # where he played his hand out (in the others every player hand was settled already).
    dealer: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    dealer_played: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))

    def add(self, other: Tally) -> None:
        """Count ``other``'s rounds into this tally (another worker's, of the same run)."""
        for name in ("rounds", "hands", "initial_hands", "naturals", "net_units", "net_units_sq"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for mine, theirs in (
            (self.dealer, other.dealer),
            (self.dealer_played, other.dealer_played),
        ):
            for up, counts in theirs.items():
                mine[up].update(counts)


def upcard_key(card: str) -> str:
    return "A" if is_ace(card) else ("10" if is_ten_card(card) else card[0])


def count(rnd: Any, s: Settings, tally: Tally) -> None:
    tally.rounds += 1
    # The hands dealt at the start (h1..hN); a hand that was split is not a natural (a natural
    # is never a pair) and its first two cards are no longer its cards[:2].
    initial_ids = {f"h{i + 1}" for i in range(len(rnd.seats))}
    initial = [h for h in rnd.hands.values() if h["id"] in initial_ids]
    tally.hands += len(rnd.hands)
    tally.initial_hands += len(initial)
    tally.naturals += sum(1 for h in initial if not h["split_from"] and is_natural(h["cards"][:2]))
    net = sum(h["result"] or 0 for h in rnd.hands.values()) / s.stake
    tally.net_units += net
    tally.net_units_sq += (net / len(initial)) ** 2 if initial else 0.0
    dealer = rnd.dealer_hand
    key = upcard_key(dealer["cards"][0])
    tally.dealer[key]["n"] += 1
    if dealer["natural"]:
        tally.dealer[key]["blackjack"] += 1
    elif dealer["status"] in (STOOD, BUST):
        total = rnd.total(DEALER)
        final = "bust" if total > 21 else ("under_17" if total < 17 else str(total))
        tally.dealer_played[key][final] += 1
        tally.dealer_played[key]["n"] += 1


def dealer_table(tally: Tally) -> dict[str, dict[str, Any]]:
    """Per up-card, the share of each final outcome among all rounds with that up-card.

    A dealer natural is seen in every round; the other outcomes only in the rounds where the
    dealer played his hand out (not when every player hand was settled before his turn), so
    they are estimated as P(no natural) x the shares among the rounds he played. Counting
    only the rounds he played would inflate the blackjack share (about 8% -> 10% with a ten
    up for a basic-strategy player, who often busts against a ten).

    A share nothing was seen of is None (JSON null), not 0: all of an up-card never dealt,
    and, for one the dealer never played out (a short run), every final but blackjack, unless
    every such round was his blackjack (then the others are truly 0)."""
    out = {}
    for up in UPCARDS:
        seen, played = tally.dealer.get(up, Counter()), tally.dealer_played.get(up, Counter())
        n, m = seen["n"], played["n"]
        bj = seen["blackjack"] / n if n else None
        shares: dict[str, float | None] = {
            k: (1 - bj) * played[k] / m if m else (0.0 if bj == 1 else None)
            for k in FINALS
            if k != "blackjack"
        }
        shares["blackjack"] = bj
        out[up] = {k: shares[k] for k in FINALS} | {"n": n, "played": m}
    return out


def report(tally: Tally, elapsed: float, events: int) -> dict[str, Any]:
    hands0 = tally.initial_hands
    mean = tally.net_units / hands0 if hands0 else 0.0
    # Standard error of player_net_per_hand, from the per-round results (hands of one round
    # share a dealer hand, so they are not independent).
    per_round = hands0 / tally.rounds if tally.rounds else 1
    var = (tally.net_units_sq / tally.rounds - mean**2) if tally.rounds > 1 else 0.0
    stderr = (max(var, 0.0) / tally.rounds) ** 0.5 if tally.rounds > 1 else None
    return {
        "rounds": tally.rounds,
        "hands": tally.hands,
        "initial_hands": hands0,
        "events": events,
        "seconds": round(elapsed, 3),
        "rounds_per_second": round(tally.rounds / elapsed, 1) if elapsed else None,
        "events_per_second": round(events / elapsed, 1) if elapsed else None,
        "player_net_per_hand": mean,
        "player_net_per_hand_stderr": stderr,
        "hands_per_round": per_round,
        "naturals_rate": tally.naturals / hands0 if hands0 else 0.0,
        "dealer": dealer_table(tally),
    }
