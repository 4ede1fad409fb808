"""An independent referee of the simulator's casino rounds, for the published rules its default
table plays: 6 decks, the dealer stands on every 17, soft ones too (S17), double on any two
cards and after a split (DAS), a blackjack paid 3:2, no surrender, no insurance, up to four
hands from splits, split aces one card each.

It reads each round's recorded events and holds them, from the cards alone (its own card
arithmetic, not the ledger's), to

- the dealer's rule: he draws below 17 and stands on 17 or more;
- basic strategy: each decision the player made (hit, stand, double, split) is the one the
  chart gives for those rules (``ledger.strategy.basic_strategy`` with a view of the published
  rules, not the table's; the chart is compared cell by cell with the published one in
  tests/unit/test_strategy.py);
- the settlement: each hand's result is what its cards, its stake and the dealer's cards pay.

A run is deterministic for its seed, so this is exact where a statistical band is not: a
blackjack paid 6:5, a dealer hitting soft 17, a player mimicking the dealer or a table without
DAS each show as faults in a few hundred rounds, while the house edge they move (by 1.4, 0.2,
5 and 0.15 points) would take hundreds of thousands of rounds to tell from the published 0.45%.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from ledger.strategy import TableView, basic_strategy

RULES = TableView(decks=6, dealer_hits_soft_17=False, double_after_split=True, surrender=False)
MAX_HANDS = 4
_RANK = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10, **{str(n): n for n in range(2, 10)}}


def total(cards: list[str]) -> tuple[int, bool]:
    """The best total of ``cards`` and whether it is soft (an ace counted as 11)."""
    hard = sum(_RANK[card[0]] for card in cards)
    soft = any(card[0] == "A" for card in cards) and hard + 10 <= 21
    return (hard + 10 if soft else hard), soft


def natural(cards: list[str]) -> bool:
    return len(cards) == 2 and total(cards)[0] == 21


@dataclass
class Verdict:
    """What the referee saw over a run, and every fault, one line each."""

    rounds: int = 0
    decisions: int = 0
    splits: int = 0
    doubles: int = 0
    doubles_after_split: int = 0
    dealer_draws: int = 0
    soft_17_stands: int = 0
    naturals_paid: int = 0
    net: int = 0  # the players' net result, as the referee settles it (minor units)
    # Per dealer up-card ("A", "2" … "10"): rounds ("n"), his blackjacks, and how the hands
    # he played out ended ("17" … "21", "bust"; "played" counts them).
    dealer: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    faults: list[str] = field(default_factory=list)

    def of(self, kind: str) -> list[str]:
        return [f for f in self.faults if f.startswith(kind)]


def referee(rounds: list[list[Any]], stake: int) -> Verdict:
    """Judge each round (its events, in order) of a one-player run that staked ``stake``."""
    verdict = Verdict()
    for events in rounds:
        judged = _Round(verdict, stake)
        judged.judge(events)
        verdict.rounds += 1
        up = judged.dealer[0][0]
        row = verdict.dealer["A" if up == "A" else str(_RANK[up])]
        row["n"] += 1
        row["blackjack"] += natural(judged.dealer[:2])
    return verdict


class _Round:
    def __init__(self, verdict: Verdict, stake: int) -> None:
        self.verdict, self.stake = verdict, stake
        self.hands: dict[str, list[str]] = {}
        self.split: set[str] = set()
        self.doubled: set[str] = set()
        self.bust: set[str] = set()
        self.dealer: list[str] = []
        self.rid = ""

    def fault(self, kind: str, what: str) -> None:
        self.verdict.faults.append(f"{kind}: round {self.rid}: {what}")

    def judge(self, events: list[Any]) -> None:
        for event in events:
            self.rid = str(event.originator_id)
            handler = getattr(self, type(event).__qualname__.replace("Round.", "on_"), None)
            if handler is not None:
                handler(event)

    # -- the cards ----------------------------------------------------------------------------

    def on_CardDealt(self, e: Any) -> None:  # noqa: N802 - named for the event
        if e.hand == "dealer":
            if e.drawn:
                self.dealer_draws()
            self.dealer.append(e.card)
            return
        if e.drawn and e.hand not in self.doubled:  # a hit (a double's card is not one)
            self.decided(e.hand, "hit")
        self.hands.setdefault(e.hand, []).append(e.card)

    def on_HandSplit(self, e: Any) -> None:  # noqa: N802
        self.decided(e.hand, "split")
        self.verdict.splits += 1
        self.hands[e.hand].pop()
        self.hands[e.new_hand] = [e.card]
        self.split.update((e.hand, e.new_hand))

    def on_StakeRaised(self, e: Any) -> None:  # noqa: N802
        if e.reason == "double_down":
            self.decided(e.hand, "double_down")
            self.verdict.doubles += 1
            self.verdict.doubles_after_split += e.hand in self.split
            self.doubled.add(e.hand)

    def on_HandStood(self, e: Any) -> None:  # noqa: N802
        if e.hand == "dealer":
            best, soft = total(self.dealer)
            if best < 17:
                self.fault("dealer", f"stood on {best}, below 17")
            self.verdict.soft_17_stands += best == 17 and soft
            self.dealer_played(str(best))
        elif e.actor != "ledger":  # the ledger's own stands (a double, 21, split aces) are rules
            self.decided(e.hand, "stand")

    def on_HandOverdrawn(self, e: Any) -> None:  # noqa: N802
        if e.hand == "dealer":
            self.dealer_played("bust")
        else:
            self.bust.add(e.hand)

    def dealer_played(self, final: str) -> None:
        up = self.dealer[0][0]
        row = self.verdict.dealer["A" if up == "A" else str(_RANK[up])]
        row[final] += 1
        row["played"] += 1

    # -- the dealer's rule and the player's decisions --------------------------------------------

    def dealer_draws(self) -> None:
        self.verdict.dealer_draws += 1
        best, soft = total(self.dealer)
        if best >= 17:
            self.fault(
                "dealer", f"drew on {'soft ' if soft else ''}{best} ({' '.join(self.dealer)})"
            )

    def decided(self, hand: str, action: str) -> None:
        self.verdict.decisions += 1
        cards = self.hands[hand]
        pair = len(cards) == 2 and _RANK[cards[0][0]] == _RANK[cards[1][0]]
        split_aces = hand in self.split and cards[0][0] == "A"
        in_play = len(self.hands)  # one player: every hand is his
        expected = basic_strategy(
            tuple(cards),
            self.dealer[0],
            RULES,
            hands_in_play=in_play,
            can_double=len(cards) == 2,
            can_split=pair and in_play < MAX_HANDS and not split_aces,
            can_surrender=False,
        )
        if expected.value != action:
            self.fault(
                "decision",
                f"{hand} {' '.join(cards)} against {self.dealer[0]}: {action}, basic strategy "
                f"says {expected.value}",
            )

    # -- the settlement -----------------------------------------------------------------------

    def on_HandSettled(self, e: Any) -> None:  # noqa: N802
        cards, dealer = self.hands[e.hand], self.dealer
        stake = self.stake * (2 if e.hand in self.doubled else 1)
        mine, theirs = total(cards)[0], total(dealer)[0]
        blackjack = natural(cards) and e.hand not in self.split
        if natural(dealer):
            due = 0 if blackjack else -self.stake
        elif blackjack:
            due = self.stake * 3 // 2
            self.verdict.naturals_paid += 1
        elif e.hand in self.bust or mine > 21:
            due = -stake
        elif theirs < 17:
            self.fault("dealer", f"settled {e.hand} against a dealer on {theirs}, below 17")
            due = 0
        elif theirs > 21 or mine > theirs:
            due = stake
        else:
            due = 0 if mine == theirs else -stake
        self.verdict.net += due
        if e.amount != due:
            self.fault(
                "settlement",
                f"{e.hand} {' '.join(cards)} against {' '.join(dealer)}: paid {e.amount}, "
                f"due {due}",
            )
