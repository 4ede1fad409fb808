"""Play many rounds through the real application and store, for analysts and for checking
the rules against known figures (e.g. the dealer's final-total table of casino Blackjack).

Policies: casino players follow ``--strategy`` (``basic`` or ``mimic``); in the private
games players draw below 16 (Очко: below 17, at most three cards), divide a pair of aces
where the table allows it (Vingt-un; Hoyle tables are opened without ``allow_split``, and
Очко has no division) and no other pair, stand on
21 or more (a hand that waits for its holder's stand, ``holder_ends_turn``), and the dealer
draws below 17; the Vingt-un dealer calls "double" on an ace or a ten-card.

Reproducible runs: with ``Settings.seed`` the shoes' server seeds and cuts come from a
``random.Random(seed)`` (``ShoeService.rng``), so the same seed deals the same cards
and gives the same figures. Without a seed the shuffle is the production one (``secrets``).
"""

from __future__ import annotations

import gc
import random
import time
from dataclasses import asdict, dataclass
from typing import Any

from ledger.application import TwentyOneLedger
from ledger.cards import hand_total, is_ace, is_ten_card
from ledger.domain.hands import DEALER
from ledger.simulate_tally import Tally, count, report
from ledger.strategy import POLICIES, Decision, TableView

FREEZE_EVERY = 1000  # rounds between two gc.freeze() calls in ``run``
# Allocations between two young collections while ``run`` plays (700 by default): a round
# allocates thousands of objects and frees them by reference count, so a young collection
# finds no cycle to break, and 700 made one every few events (about 3% of a run).
YOUNG_COLLECTION_EVERY = 50_000


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
    one_command: bool = False  # the whole round as one command (app.play_round)
    workers: int = 1  # processes, each playing its share at a table of its own (simulate_parallel)
    holder_ends_turn: bool = False  # private games: a hand at 21 waits for its holder's stand

    def applied(self) -> dict[str, Any]:
        """The settings that shaped the run: a private game's has no casino table options
        and no casino strategy (its players follow the policy above), a casino run no
        private game's option, so listing them would tell an analyst comparing runs of rules
        that never applied."""
        applied = asdict(self)
        for name in CASINO_ONLY if self.family != "casino" else PRIVATE_ONLY:
            del applied[name]
        return applied


# Settings only a casino table reads, and only the private games.
CASINO_ONLY = ("decks", "soft17", "payout", "das", "surrender", "strategy")
PRIVATE_ONLY = ("holder_ends_turn",)


def table_options(s: Settings) -> dict[str, Any]:
    if s.family == "casino":
        return {
            "decks": s.decks,
            "soft17": s.soft17,
            "blackjack_payout": s.payout,
            "double_after_split": s.das,
            "late_surrender": s.surrender,
            "min_stake": 1,
            "max_stake": 10**9,
            "insurance": False,
        }
    return {"min_stake": 1, "max_stake": 10**9, "holder_ends_turn": s.holder_ends_turn}


def run(s: Settings, app: TwentyOneLedger, progress: Any = None) -> dict[str, Any]:
    """Play ``s.rounds`` rounds at a new table of ``app``; ``progress(n)`` after each round.
    The time is the rounds' own: opening the table and seating the players are left out."""
    table, view = setup_table(s, app)
    started = time.perf_counter()
    tally, events = play_rounds(app, table, view, s, progress)
    return report(tally, time.perf_counter() - started, events) | {"table_ids": [table]}


def play_rounds(
    app: TwentyOneLedger, table: str, view: TableView, s: Settings, progress: Any = None
) -> tuple[Tally, int]:
    """Play ``s.rounds`` rounds at ``table``; return their tally and the events written."""
    tally = Tally()
    events_before = app.events_written
    frozen_by_caller = gc.get_freeze_count() > 0
    thresholds = gc.get_threshold()
    if thresholds[0]:  # 0: the caller turned automatic collection off, and it stays off
        gc.set_threshold(max(thresholds[0], YOUNG_COLLECTION_EVERY), *thresholds[1:])
    try:
        for n in range(s.rounds):
            if n % FREEZE_EVERY == FREEZE_EVERY - 1:
                # The in-memory store's rows only grow, and every full collection walked all
                # of them: a sixth of a 20,000-round run. Rounds make no reference cycles, so
                # what is alive now is left out of later collections until the run ends.
                gc.freeze()
            play_round(app, table, s, view, tally)
            if progress is not None:
                progress(n + 1)
    finally:
        gc.set_threshold(*thresholds)
        if not frozen_by_caller:
            gc.unfreeze()
    return tally, app.events_written - events_before


def setup_table(s: Settings, app: TwentyOneLedger) -> tuple[str, TableView]:
    """Open the table, fund and seat the players (and the dealer of a private game); with
    ``s.seed``, switch ``app`` to seeded shoes. Returns the table id and the players' view."""
    if s.seed is not None:
        app.shoes.rng = random.Random(s.seed)
    table = app.open_table(s.family, table_options(s), name="simulation")["table_id"]
    for i in range(s.players):
        pid = app.register_player(f"sim-{i + 1}")["player_id"]
        app.deposit(pid, 10**12)
        app.seat_player(table, pid, i + 1)
    if s.family != "casino":
        dealer = app.register_player("sim-dealer")["player_id"]
        app.deposit(dealer, 10**12)
        app.seat_player(table, dealer, s.players + 1)
        app.choose_dealer(table, dealer)
    max_hands = app.get_table(table).rules_record.get("max_split_hands", 4)
    view = TableView(
        decks=s.decks,
        dealer_hits_soft_17=s.soft17 == "hit",
        double_after_split=s.das,
        surrender=s.surrender,
        max_hands=max_hands,
    )
    return table, view


def play_round(
    app: TwentyOneLedger, table_id: str, s: Settings, view: TableView, tally: Tally
) -> str:
    """Play one round by the policies, count it into ``tally`` and return its id: one
    command per decision, or the whole round as one command with ``s.one_command``."""
    if s.one_command:
        seated = app.get_table(table_id, copy=False).seats.values()  # only read
        stakes = {pid: s.stake for pid in seated}  # the dealer's entry is never asked for
        done = app.play_round(table_id, stakes, lambda rnd, turn: decide(s, view, rnd, turn))
        rid = done["round_id"]
        count(app.get_round(rid, copy=False), s, tally)  # only read: no copy needed
        return rid
    # Started by the operator: in Очко the deal may pass as the round starts (OC-12), so
    # the dealer is whoever the started round names.
    started = app.start_round(table_id, actor="admin")
    rid, dealer = started["round_id"], started["dealer"]
    rnd = app.get_round(rid)
    for hand_id in list(rnd.order):
        app.place_stake(rid, rnd.hands[hand_id]["player"], s.stake)
    rnd = app.get_round(rid)
    while not rnd.ended:
        step = decide(s, view, rnd, rnd.current_turn() if rnd.phase == "play" else None)
        action, hand = step.pop("action"), step.get("hand")
        app.act(rid, action, actor=rnd.hands[hand]["player"] if hand else dealer, **step)
        rnd = app.get_round(rid)
    count(rnd, s, tally)
    return rid


def decide(s: Settings, view: TableView, rnd: Any, turn: str | None) -> dict[str, Any]:
    """The next decision of the round: a player's on hand ``turn``, or the dealer's."""
    if rnd.phase == "play":
        return {"action": choose(s, rnd, rnd.hands[turn], view), "hand": turn}
    if rnd.phase == "dealer_double":
        first = rnd.dealer_hand["cards"][0]
        return {"action": "dealer_double", "called": is_ace(first) or is_ten_card(first)}
    if rnd.phase == "dealer":
        limit = 3 if s.family == "ochko" else 99
        if rnd.total(DEALER) < 17 and rnd.dealer_hand["draws"] < limit:
            return {"action": "dealer_draw"}
        return {"action": "dealer_stand"}
    raise RuntimeError(f"simulation stuck in phase {rnd.phase}")  # pragma: no cover


def choose(s: Settings, rnd: Any, hand: dict, view: TableView) -> str:
    cards = tuple(hand["cards"])
    if s.family == "casino":
        rules = rnd.rules_record
        from_seat = sum(1 for h in rnd.hands.values() if h["seat"] == hand["seat"])
        can_split = (
            len(cards) == 2
            and _value(cards[0]) == _value(cards[1])
            and from_seat < rules["max_split_hands"]
            and not (hand["split_from"] and is_ace(cards[0]) and not rules["resplit_aces"])
        )
        can_double = len(cards) == 2 and (not hand["split_from"] or rules["double_after_split"])
        can_surrender = rules["late_surrender"] and len(cards) == 2 and not hand["split_from"]
        decision = POLICIES[s.strategy](
            cards,
            rnd.dealer_hand["cards"][0],
            view,
            hands_in_play=from_seat,
            can_double=can_double,
            can_split=can_split,
            can_surrender=can_surrender,
        )
        return decision.value if isinstance(decision, Decision) else str(decision)
    splits = s.family == "vingt-un" or rnd.rules_record.get("allow_split")
    if splits and len(cards) == 2 and is_ace(cards[0]) and is_ace(cards[1]):
        return "split"
    if rnd.total(hand["id"]) >= 21:
        return "stand"  # the turn is over: with holder_ends_turn it waits for this stand
    limit = 17 if s.family == "ochko" else 16
    return "hit" if hand_total(cards) < limit else "stand"


def _value(card: str) -> int:
    return 10 if is_ten_card(card) else (1 if is_ace(card) else int(card[0]))
