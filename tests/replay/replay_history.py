"""Histories for the replay tests: a few rounds of every family on random shoes (the
simulator's policies), and a fixed-shoe casino round with a split and a double."""

from __future__ import annotations

from ledger.application import TwentyOneLedger
from ledger.simulate import Settings, run

FAMILIES = ("casino", "vingt-un", "hoyle-1913", "ochko")


def play_history(app: TwentyOneLedger, rounds: int = 3, close: bool = True) -> dict:
    """Rounds of every family on random shoes, and a fixed-shoe casino round with a split and
    a double; the tables closed (so their shoes are revealed) unless ``close`` is False."""
    for family in FAMILIES:
        run(Settings(family=family, rounds=rounds, players=2, stake=100), app)
    fixed = play_fixed_casino(app)
    tables = [
        str(n.originator_id)
        for n in app.recorder.select_notifications(start=1, limit=10**6)
        if n.topic.endswith("Table.Opened")
    ]
    if close:
        for table in tables:
            app.close_table(table)
    return {"tables": tables, "fixed_round": fixed}


# h1 8, h2 T, dealer T, h1 8, h2 9, dealer 7; h1 (split) gets 3 → 11, double: T → 21;
# h3 gets 2 → 10, hit: 5 → 15, stand; Bob stands on 19. The cards the fixed round deals.
FIXED_ROUND = ["8H", "TS", "TD", "8C", "9S", "7D", "3H", "TC", "2D", "5S", "4S"]


def play_fixed_casino(app: TwentyOneLedger) -> str:
    """Ann splits eights and doubles on the second hand; Bob stands. Dealer 10 7."""
    table, ann, bob = casino_table(app)
    return play_fixed_round(app, table, ann, bob, FIXED_ROUND + ["2C"] * 20)


def casino_table(app: TwentyOneLedger) -> tuple[str, str, str]:
    """A casino table without insurance, Ann in seat 1 and Bob in seat 2, each with 100,000:
    the table's id, Ann's and Bob's."""
    ann = app.register_player("Ann")["player_id"]
    bob = app.register_player("Bob")["player_id"]
    for pid in (ann, bob):
        app.deposit(pid, 100_000)
    table = app.open_table("casino", {"insurance": False})["table_id"]
    app.seat_player(table, ann, 1)
    app.seat_player(table, bob, 2)
    return table, ann, bob


def play_fixed_round(app: TwentyOneLedger, table: str, ann: str, bob: str, shoe: list) -> str:
    """The fixed round at ``casino_table``'s table on ``shoe`` (``FIXED_ROUND``, then spares)."""
    app.fix_next_shoe(table, shoe)
    rid = app.start_round(table)["round_id"]
    app.place_stake(rid, ann, 500)
    app.place_stake(rid, bob, 500)
    app.act(rid, "split", actor=ann, hand="h1")
    app.act(rid, "double_down", actor=ann, hand="h1")
    app.act(rid, "hit", actor=ann, hand="h3")
    app.act(rid, "stand", actor=ann, hand="h3")
    app.act(rid, "stand", actor=bob, hand="h2")
    assert app.get_round(rid).ended
    return rid


def round_ids(app: TwentyOneLedger) -> list[str]:
    return [
        str(n.originator_id)
        for n in app.recorder.select_notifications(start=1, limit=10**6)
        if n.topic.endswith("Round.Started")
    ]
