"""The stand-in table a rederivation replays a round at (``replay.rederive``): in a fresh
in-memory ledger nobody else sees, a table opened with the round's recorded rules, stand-ins
for its players (and dealer) seated in the same order of play with ample money, and one fixed
shoe holding exactly the cards the round dealt, in order."""

from __future__ import annotations

from typing import Any

from ledger.application import TwentyOneLedger
from ledger.domain.round import Round

FUNDS = 10**12  # every stand-in's deposit: no recorded stake can be refused for money


def stand_in_round(
    app: TwentyOneLedger, started: Any, family: str, rules: dict[str, Any], recorded: list[Any]
) -> tuple[str, dict[str, str]]:
    """Start the round again at a stand-in table: its id, and the record's ids (players,
    dealer, round, table) mapped to the stand-ins', in that order."""
    ids: dict[str, str] = {}
    players = [str(p) for _, p in started.seats]
    house = started.dealer == "house"
    for pid in players + ([] if house else [started.dealer]):
        ids[pid] = app.register_player(f"stand-in {pid[:8]}")["player_id"]
        app.deposit(ids[pid], FUNDS)
    table = app.open_table(family, rules)["table_id"]
    for seat, pid in started.seats:
        app.seat_player(table, ids[str(pid)], seat)
    if not house:
        seat = dealer_seat([s for s, _ in started.seats], rules.get("max_players", 7))
        app.seat_player(table, ids[started.dealer], seat)
        app.choose_dealer(table, ids[started.dealer])
    cards = [e.card for e in recorded if isinstance(e, Round.CardDealt)]
    app.fix_next_shoe(table, cards or ["2S"])
    actor = ids.get(started.actor, started.actor)
    round_id = app.start_round(table, actor=actor)["round_id"]
    ids[str(started.originator_id)] = round_id
    ids[str(started.table_id)] = table
    return round_id, ids


def dealer_seat(play_order: list[int], max_players: int) -> int:
    """A free seat from which the order of play (from the dealer's left, ascending seats
    after his, then round) is ``play_order``."""
    taken = set(play_order)
    for seat in range(1, max_players + 1):
        if seat in taken:
            continue
        order = sorted(s for s in taken if s > seat) + sorted(s for s in taken if s <= seat)
        if order == play_order:
            return seat
    return next(s for s in range(1, max_players + 2) if s not in taken)
