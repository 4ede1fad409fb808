"""Play many rounds through the real application and store, for analysts and for checking
the rules against known figures (e.g. the dealer's final-total table of casino Blackjack).

Policies: casino players follow ``--strategy`` (``basic`` or ``mimic``); in the private
games players draw below 16 (Очко: below 17, at most three cards), split only aces, and the
dealer draws below 17; the Vingt-un dealer calls "double" on an ace or a ten-card."""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from ledger.application import TwentyOneLedger
from ledger.cards import hand_total, is_ace, is_natural, is_ten_card
from ledger.domain.round import DEALER
from ledger.strategy import POLICIES, Decision, TableView

UPCARDS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]
FINALS = ["17", "18", "19", "20", "21", "blackjack", "bust"]


@dataclass
class Settings:
    family: str = "casino"
    rounds: int = 1000
    seed: int | None = None
    players: int = 1
    store: str = "memory"
    decks: int = 6
    soft17: str = "stand"
    payout: str = "3:2"
    das: bool = True
    surrender: bool = False
    strategy: str = "basic"
    stake: int = 100


@dataclass
class Tally:
    rounds: int = 0
    hands: int = 0
    initial_hands: int = 0
    naturals: int = 0
    net_units: float = 0.0
    dealer: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))


def table_options(s: Settings) -> dict[str, Any]:
    if s.family == "casino":
        return {
            "decks": s.decks, "soft17": s.soft17, "blackjack_payout": s.payout,
            "double_after_split": s.das, "late_surrender": s.surrender, "min_stake": 1,
            "max_stake": 10**9, "insurance": False,
        }
    return {"min_stake": 1, "max_stake": 10**9}


def run(s: Settings, app: TwentyOneLedger, progress: Any = None) -> dict[str, Any]:
    table = app.open_table(s.family, table_options(s), name="simulation")["table_id"]
    players = []
    for i in range(s.players):
        pid = app.register_player(f"sim-{i + 1}")["player_id"]
        app.deposit(pid, 10**12)
        app.seat_player(table, pid, i + 1)
        players.append(pid)
    if s.family != "casino":
        dealer = app.register_player("sim-dealer")["player_id"]
        app.deposit(dealer, 10**12)
        app.seat_player(table, dealer, s.players + 1)
        app.choose_dealer(table, dealer)
    tally = Tally()
    view = TableView(decks=s.decks, dealer_hits_soft_17=s.soft17 == "hit",
                     double_after_split=s.das, surrender=s.surrender, max_hands=4)
    started = time.perf_counter()
    events_before = app.recorder.max_notification_id() or 0
    for n in range(s.rounds):
        play_round(app, table, s, view, tally)
        if progress is not None:
            progress(n + 1)
    elapsed = time.perf_counter() - started
    events = (app.recorder.max_notification_id() or 0) - events_before
    return report(tally, elapsed, events)


def play_round(app: TwentyOneLedger, table_id: str, s: Settings, view: TableView, tally: Tally) -> None:
    table = app.get_table(table_id)
    dealer = table.dealer or "house"
    rid = app.start_round(table_id, actor=dealer if dealer != "house" else "admin")["round_id"]
    rnd = app.get_round(rid, copy=False)
    for hand_id in list(rnd.order):
        app.place_stake(rid, rnd.hands[hand_id]["player"], s.stake)
    rnd = app.get_round(rid, copy=False)
    if rnd.phase == "dealer_double":
        first = rnd.dealer_hand["cards"][0]
        app.act(rid, "dealer_double", actor=dealer, called=is_ace(first) or is_ten_card(first))
        rnd = app.get_round(rid, copy=False)
    while not rnd.ended:
        if rnd.phase == "play":
            hand_id = rnd.current_turn()
            hand = rnd.hands[hand_id]
            action = choose(s, rnd, hand, view)
            app.act(rid, action, actor=hand["player"], hand=hand_id)
        elif rnd.phase == "dealer":
            total = rnd.total(DEALER)
            limit = 3 if s.family == "ochko" else 99
            if total < 17 and rnd.dealer_hand["draws"] < limit:
                app.act(rid, "dealer_draw", actor=dealer)
            else:
                app.act(rid, "dealer_stand", actor=dealer)
        else:  # pragma: no cover - a phase the policy does not know
            raise RuntimeError(f"simulation stuck in phase {rnd.phase}")
        rnd = app.get_round(rid, copy=False)
    count(rnd, s, tally)


def choose(s: Settings, rnd: Any, hand: dict, view: TableView) -> str:
    cards = tuple(hand["cards"])
    if s.family == "casino":
        rules = rnd.rules_record
        from_seat = sum(1 for h in rnd.hands.values() if h["seat"] == hand["seat"])
        can_split = len(cards) == 2 and _value(cards[0]) == _value(cards[1]) and from_seat < 4 and not (
            hand["split_from"] and is_ace(cards[0]))
        can_double = len(cards) == 2 and (not hand["split_from"] or rules["double_after_split"])
        can_surrender = rules["late_surrender"] and len(cards) == 2 and not hand["split_from"]
        decision = POLICIES[s.strategy](
            cards, rnd.dealer_hand["cards"][0], view, hands_in_play=from_seat,
            can_double=can_double, can_split=can_split, can_surrender=can_surrender,
        )
        return decision.value if isinstance(decision, Decision) else str(decision)
    if len(cards) == 2 and s.family != "ochko" and is_ace(cards[0]) and is_ace(cards[1]):
        if s.family == "vingt-un" or rnd.rules_record.get("allow_split"):
            return "split"
    limit = 17 if s.family == "ochko" else 16
    return "hit" if hand_total(cards) < limit else "stand"


def _value(card: str) -> int:
    return 10 if is_ten_card(card) else (1 if is_ace(card) else int(card[0]))


def count(rnd: Any, s: Settings, tally: Tally) -> None:
    tally.rounds += 1
    initial = [h for h in rnd.hands.values() if not h["split_from"] or h["split_from"] == h["id"]]
    originals = [h for h in rnd.hands.values() if h["id"] in {f"h{i + 1}" for i in range(len(rnd.seats))}]
    tally.hands += len(rnd.hands)
    tally.initial_hands += len(originals)
    tally.naturals += sum(1 for h in originals if is_natural(h["cards"][:2]) and len(h["cards"]) >= 2 and h.get("outcome") in ("natural", "blackjack", "stand-off", "natural stand-off"))
    tally.net_units += sum(h["result"] or 0 for h in rnd.hands.values()) / s.stake
    del initial
    dealer = rnd.dealer_hand
    up = dealer["cards"][0]
    key = "A" if is_ace(up) else ("10" if is_ten_card(up) else up[0])
    if dealer["natural"] or is_natural(dealer["cards"]):
        tally.dealer[key]["blackjack"] += 1
        tally.dealer[key]["n"] += 1
    elif dealer["status"] in ("stood", "bust") or rnd.total(DEALER) > 21:
        total = rnd.total(DEALER)
        tally.dealer[key]["bust" if total > 21 else str(min(total, 21))] += 1
        tally.dealer[key]["n"] += 1


def report(tally: Tally, elapsed: float, events: int) -> dict[str, Any]:
    dealer = {}
    for up in UPCARDS:
        counts = tally.dealer.get(up, Counter())
        n = counts["n"]
        dealer[up] = {k: (counts[k] / n if n else 0.0) for k in FINALS} | {"n": n}
    return {
        "rounds": tally.rounds,
        "hands": tally.hands,
        "events": events,
        "seconds": round(elapsed, 3),
        "rounds_per_second": round(tally.rounds / elapsed, 1) if elapsed else None,
        "player_net_per_hand": tally.net_units / tally.initial_hands if tally.initial_hands else 0.0,
        "naturals_rate": tally.naturals / tally.initial_hands if tally.initial_hands else 0.0,
        "dealer": dealer,
    }
