"""A history with several rounds of every family, on random (seeded) and fixed shoes, plus
the events around them: deposits, a withdrawal, a command id, a dealer cut for, a pool
payout, a sold deal, a closed table."""

from __future__ import annotations

import random

from ledger import simulate, simulate_tally
from ledger.application import TwentyOneLedger
from ledger.cards import unshuffled

FAMILIES = ("casino", "vingt-un", "hoyle-1913", "ochko")
ROUNDS = 3


def fixed_order(rng: random.Random) -> list[str]:
    """A pair for the first hands (so splits happen), then a shuffled pack: the shoe runs out
    after a few rounds and a random one replaces it, mid-round or between rounds."""
    cards = unshuffled(1)
    rng.shuffle(cards)
    return ["AS", "AD", "8H", "8C", "5D", "6D", *cards[:34]]


def play_tables(app: TwentyOneLedger, seed: int = 7) -> dict[str, list[str]]:
    """Two tables per family (random shoes, then a fixed shoe first); returns family ->
    table ids."""
    rng = random.Random(seed)
    app.shoes.rng = random.Random(seed)  # seeded server seeds and cuts: a replayable history
    tables: dict[str, list[str]] = {}
    for family in FAMILIES:
        for fixed in (False, True):
            s = simulate.Settings(family=family, rounds=ROUNDS, players=2, stake=100)
            table, view = simulate.setup_table(s, app)
            if fixed:
                app.fix_next_shoe(table, fixed_order(rng))
            tally = simulate_tally.Tally()
            for _ in range(ROUNDS):
                simulate.play_round(app, table, s, view, tally)
            tables.setdefault(family, []).append(table)
    return tables


def extras(app: TwentyOneLedger, tables: dict[str, list[str]]) -> None:
    """Money and table events no round makes."""
    pid = app.register_player("cashier's friend", command_id="reg-1")["player_id"]
    app.deposit(pid, 5_000, command_id="dep-1")
    app.withdraw(pid, 1_000)
    vu = tables["vingt-un"][0]
    seated = app.get_table(vu).seats
    dealer = app.get_table(vu).dealer
    buyer = next(p for p in seated.values() if p != dealer)
    app.offer_deal(vu, dealer, buyer, 60)  # VU-31: offered, declined, then agreed elsewhere
    app.withdraw_deal_offer(vu, actor=buyer)
    app.sell_deal(vu, dealer, buyer, 50)
    pool = app.account_balance(f"pool:{vu}")
    if pool > 0:
        app.pay_from_pool(vu, buyer, pool, "end of the evening")
    cut_table = app.open_table("vingt-un", {"dealer_choice": "cut"})["table_id"]
    for seat, player in enumerate(seated.values(), start=1):
        app.seat_player(cut_table, player, seat)
    app.choose_dealer(cut_table)
    app.close_table(tables["casino"][0])


def build_history(app: TwentyOneLedger) -> dict[str, list[str]]:
    tables = play_tables(app)
    extras(app, tables)
    return tables
