"""The rows of the history projection's tables as its projector (``History``, ``history.py``)
reaches them: the four tables' row caches, the rows a batch of events will change (read in
bulk before the batch is folded), and the row of a table, a round, a player's part in a round
or a round's hand that one event changes, marked to be written.

What each row holds, and where each column stands in it, is ``history_columns``'s; what each
event changes in them, the tables' DDL and the projection's version are ``History``'s.
"""

from __future__ import annotations

from typing import Any

from ledger.domain.hands import DEALER_HANDS
from replay.projections.history_columns import (
    HAND_COLUMNS,
    P_JOINED,
    PLAYER_COLUMNS,
    R_NUMBER,
    R_POS,
    R_TABLE,
    ROUND_COLUMNS,
    TABLE_COLUMNS,
    new_hand,
    new_player,
    new_round,
    new_table,
)
from replay.projections.projector import Projector
from replay.projections.rows import Rows
from replay.side_payments import side_payment

HOUSE = "house"


class HistoryRows(Projector):
    """The history projector's rows; ``History`` folds the events into them. ``prefetch``
    names the rows its handlers will change, so that a batch reads them with one query per
    table: a row it misses is still found, read on its own (``Rows.get``)."""

    def __init__(self) -> None:
        super().__init__()
        self.rounds = self.owned(Rows("view_rounds", ("round_id",), ROUND_COLUMNS, new_round))
        self.hands = self.owned(
            Rows("view_round_hands", ("round_id", "hand"), HAND_COLUMNS, new_hand)
        )
        self.players = self.owned(
            Rows("view_round_players", ("round_id", "player_id"), PLAYER_COLUMNS, new_player)
        )
        self.tables_ = self.owned(Rows("view_tables", ("table_id",), TABLE_COLUMNS, new_table))

    # -- bulk reads ------------------------------------------------------------------------

    def prefetch(self, batch: list[tuple[Any, Any]]) -> None:
        if self.cached_whole():
            return
        rounds, hands, tables, players = set(), set(), set(), set()
        for event, _ in batch:
            name = type(event).__qualname__
            if name.startswith("Round."):
                rid = event.originator_id
                rounds.add(rid)
                hand = getattr(event, "hand", None)
                if hand is not None and hand not in DEALER_HANDS:
                    hands.add((rid, hand))
                if name == "Round.HoldAdjusted" and (paid := side_payment(event)) and paid.payee:
                    hands.add((rid, paid.payee))
                if name == "Round.Started":
                    tables.add(str(event.table_id))
                    if event.dealer != HOUSE:
                        players.add((rid, event.dealer))
                elif name == "Round.HandOpened":
                    players.add((rid, event.player))
            elif name.startswith("Table."):
                tables.add(event.originator_id)
            if hasattr(event, "from_account"):
                if event.round_id:
                    rounds.add(event.round_id)
                for account in (event.from_account, event.to_account):
                    kind, _, owner = account.partition(":")
                    if kind in ("pool", "house"):
                        tables.add(owner)
                    elif kind == "escrow":
                        rounds.add(owner)
                    elif kind == "player" and event.round_id:
                        players.add((event.round_id, owner))
        self.rounds.prefetch(self.db, rounds)
        self.hands.prefetch(self.db, hands)
        self.players.prefetch(self.db, players)
        tables.update(self.rounds.cache[r][R_TABLE] for r in rounds if self.rounds.cache[r][0])
        self.tables_.prefetch(self.db, tables)

    # -- the row an event changes ----------------------------------------------------------

    def _table(self, table_id: str) -> list[Any]:
        self.tables_.touch(table_id)
        return self.tables_.get(self.db, table_id)

    def _round(self, event: Any, n: Any) -> tuple[str, list[Any]]:
        rid = event.originator_id
        self.rounds.touch(rid)
        row = self.rounds.get(self.db, rid)
        row[R_POS] = n.id
        return rid, row

    def _player(self, rid: str, rnd: list[Any], player: str, role: str, n: Any) -> list[Any]:
        key = (rid, player)
        row = self.players.get(self.db, key)
        if not row[0]:
            row[:4] = [rnd[R_TABLE], rnd[R_NUMBER], rnd[4], role]
            # Where he joined the round: his rounds' order, and the paging cursor of his
            # history (one event never brings one player into two rounds).
            row[P_JOINED] = n.id
        self.players.touch(key)
        return row

    def _hand(self, rid: str, hand: str) -> list[Any]:
        key = (rid, hand)
        self.hands.touch(key)
        return self.hands.get(self.db, key)
