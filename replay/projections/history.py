"""Round history (per table, per player, per hand) and each table's results.

- ``view_rounds``: one row per round: table, number, family, dealer, times, status; and its
  own money: punters' stakes, the punters', banker's and house's nets, what its escrow holds.
- ``view_round_hands``: each hand's player, stake, natural or bust, outcome, net and clauses;
  ``net`` is the settlement's amount plus ``side_net``, what the hand paid to or collected
  from other players' hands (VU-10, ``side_clauses``), so a player's hands' nets sum to his
  wallet's change for the round but for insurance, the pool and banking.
- ``view_round_players``: each player's part in a round: banker or punter, hands, staked, and
  the net change of his wallet from the round's transfers (so side bets and bank cover count;
  the queries show it once the round has ended, when no escrow of his is left in it).
- ``view_tables``: rounds, naturals, busts; what punters staked and won or lost (return to
  player = (staked + punters' net) / staked); the banker's and the house's profit and loss;
  the pool's balance (VU-27/28). Stakes and nets count the rounds that have ended: a round's
  figures join the table's at ``Round.Ended``, when its escrow is empty and every wallet's
  change is final. The rounds still in play are counted apart: how many, their stakes, and
  what their escrow holds.

The table results are folded from the same events as the rounds, in the same projector, so
the two never disagree about which rounds they have seen. The tables' columns, and where each
stands in a row, are ``history_columns``'s; their row caches, the bulk read of a batch's rows
and the row an event changes, ``history_rows``'s (``HistoryRows``, which ``History`` extends).
"""

from __future__ import annotations

from typing import Any

from ledger.domain.hands import DEALER_HANDS
from replay.projections.history_columns import (
    BANKER,
    ENDED,
    H_BUST,
    H_CLAUSES,
    H_NATURAL,
    H_NET,
    H_OUTCOME,
    H_PLAYER,
    H_SIDE,
    H_SIDE_CLAUSES,
    H_STAKE,
    HAND_COLUMNS,
    OPEN,
    P_HANDS,
    P_NET,
    P_STAKED,
    PLAYER_COLUMNS,
    PUNTER,
    R_BANKER,
    R_DEALER,
    R_ENDED_AT,
    R_HANDS,
    R_HELD,
    R_HOUSE,
    R_PASSES,
    R_PUNTERS,
    R_SETTLED,
    R_STAKED,
    R_STATUS,
    R_TABLE,
    ROUND_COLUMNS,
    SETTLED_FIGURES,
    T_BUSTS,
    T_CLOSED,
    T_HELD,
    T_HOUSE,
    T_IN_PLAY,
    T_IN_PLAY_STAKED,
    T_NATURALS,
    T_POOL,
    T_ROUNDS,
    TABLE_COLUMNS,
    TABLE_FIGURE,
    TEXT_COLUMNS,
    column_defs,
)
from replay.projections.history_rows import HOUSE, HistoryRows
from replay.projections.projector import Handler
from replay.side_payments import side_payment


class History(HistoryRows):
    name = "history"
    # 2: view_round_players.joined, the player's paging cursor.
    # 3: pool transfers, recorded in the table's stream.
    # 4: view_round_hands.side_net and side_clauses; net counts side payments (VU-10).
    # 5: a table's staked and nets count a round when it ends (its escrow no longer a loss);
    #    view_tables.in_play_rounds, in_play_staked, held; each round's own figures.
    #    An index of view_tables by opening, for GET /v1/tables.
    version = 5
    ddl = (
        "CREATE TABLE IF NOT EXISTS view_rounds (round_id TEXT PRIMARY KEY, "
        + column_defs(ROUND_COLUMNS, TEXT_COLUMNS)
        + ")",
        "CREATE INDEX IF NOT EXISTS view_rounds_by_table ON view_rounds (table_id, number)",
        "CREATE TABLE IF NOT EXISTS view_round_hands (round_id TEXT NOT NULL, hand TEXT NOT NULL, "
        + column_defs(HAND_COLUMNS, TEXT_COLUMNS)
        + ", PRIMARY KEY (round_id, hand))",
        "CREATE TABLE IF NOT EXISTS view_round_players (round_id TEXT NOT NULL,"
        " player_id TEXT NOT NULL, "
        + column_defs(PLAYER_COLUMNS, TEXT_COLUMNS)
        + ", PRIMARY KEY (round_id, player_id))",
        "CREATE INDEX IF NOT EXISTS view_round_players_by_player"
        " ON view_round_players (player_id, joined)",
        "CREATE TABLE IF NOT EXISTS view_tables (table_id TEXT PRIMARY KEY, "
        + column_defs(TABLE_COLUMNS, TEXT_COLUMNS)
        + ")",
        # GET /v1/tables pages them in the order they opened.
        "CREATE INDEX IF NOT EXISTS view_tables_by_opening ON view_tables (opened_at, table_id)",
    )

    def handlers(self) -> dict[str, Handler]:
        return {
            "Table.Opened": self.table_opened,
            "Table.Closed": self.table_closed,
            "Round.Started": self.started,
            "Round.HandOpened": self.hand_opened,
            "Round.HandSplit": self.hand_split,
            "Round.StakePlaced": self.staked,
            "Round.StakeRaised": self.staked,
            "Round.NaturalDeclared": self.natural,
            "Round.HandOverdrawn": self.bust,
            "Round.HandSettled": self.settled,
            "Round.HoldAdjusted": self.hold_adjusted,
            "Round.Ended": self.ended,
            "Player.FundsTransferred": self.transferred,
            "Round.FundsTransferred": self.transferred,
            "Table.FundsTransferred": self.transferred,
        }

    # -- tables ----------------------------------------------------------------------------

    def table_opened(self, event: Any, n: Any) -> None:
        row = self._table(event.originator_id)
        row[0], row[1], row[2] = event.name, event.rules["family"], event.timestamp

    def table_closed(self, event: Any, n: Any) -> None:
        self._table(event.originator_id)[T_CLOSED] = event.timestamp

    # -- rounds and hands ------------------------------------------------------------------

    def started(self, event: Any, n: Any) -> None:
        rid, row = self._round(event, n)
        table_id = str(event.table_id)
        when = event.timestamp
        row[:7] = [table_id, event.number, event.rules["family"], event.dealer, when, "", OPEN]
        table = self._table(table_id)
        table[T_ROUNDS] += 1
        table[T_IN_PLAY] += 1
        if event.dealer != HOUSE:
            self._player(rid, row, event.dealer, BANKER, n)

    def _open_hand(
        self, rid: str, rnd: list[Any], hand: str, player: str, seat: int, n: Any
    ) -> None:
        key = (rid, hand)
        row = self.hands.get(self.db, key)
        row[0], row[1] = player, seat
        self.hands.touch(key)
        rnd[R_HANDS] += 1
        self._player(rid, rnd, player, PUNTER, n)[P_HANDS] += 1

    def hand_opened(self, event: Any, n: Any) -> None:
        rid, rnd = self._round(event, n)
        self._open_hand(rid, rnd, event.hand, event.player, event.seat, n)

    def hand_split(self, event: Any, n: Any) -> None:
        rid, rnd = self._round(event, n)
        first = self.hands.get(self.db, (rid, event.hand))
        self._open_hand(rid, rnd, event.new_hand, first[H_PLAYER], first[1], n)

    def staked(self, event: Any, n: Any) -> None:
        rid, rnd = self._round(event, n)
        hand = self._hand(rid, event.hand)
        hand[H_STAKE] += event.amount
        self._player(rid, rnd, hand[H_PLAYER], PUNTER, n)[P_STAKED] += event.amount
        if hand[H_PLAYER] != rnd[R_DEALER]:
            rnd[R_STAKED] += event.amount  # the table's staked once the round ends
            self._table(rnd[R_TABLE])[T_IN_PLAY_STAKED] += event.amount

    def natural(self, event: Any, n: Any) -> None:
        rid, rnd = self._round(event, n)
        if event.hand not in DEALER_HANDS:
            self._hand(rid, event.hand)[H_NATURAL] = 1
        self._table(rnd[R_TABLE])[T_NATURALS] += 1

    def bust(self, event: Any, n: Any) -> None:
        rid, rnd = self._round(event, n)
        if event.hand not in DEALER_HANDS:
            self._hand(rid, event.hand)[H_BUST] = 1
        self._table(rnd[R_TABLE])[T_BUSTS] += 1

    def settled(self, event: Any, n: Any) -> None:
        rid, rnd = self._round(event, n)
        hand = self._hand(rid, event.hand)
        hand[H_OUTCOME], hand[H_NET] = event.outcome, event.amount + hand[H_SIDE]
        hand[H_CLAUSES] = " ".join(event.clauses)
        rnd[R_SETTLED] += 1

    def hold_adjusted(self, event: Any, n: Any) -> None:
        paid = side_payment(event)
        if paid is None:
            return  # a hold that grew (VU-21): no money between players
        rid, _ = self._round(event, n)
        legs = [(paid.payer, -paid.amount)]
        if paid.payee is not None:
            legs.append((paid.payee, paid.amount))
        for hand_id, change in legs:
            hand = self._hand(rid, hand_id)
            hand[H_SIDE] += change
            hand[H_NET] += change
            if paid.clause not in hand[H_SIDE_CLAUSES].split():
                hand[H_SIDE_CLAUSES] = f"{hand[H_SIDE_CLAUSES]} {paid.clause}".strip()

    def ended(self, event: Any, n: Any) -> None:
        _, rnd = self._round(event, n)
        rnd[R_ENDED_AT], rnd[R_STATUS] = event.timestamp, ENDED
        rnd[R_PASSES] = event.clause if event.passes_deal else ""
        # Only now is the round's money final: until its last settlement, what its hands and
        # the bank hold in escrow has left the wallets without being lost or won, and a
        # table's figures would count it as the punters' loss (and a half-played round's
        # stakes as staked). A transfer of the round recorded after this event, in the same
        # write, goes straight to the table (``_count``).
        table = self._table(rnd[R_TABLE])
        table[T_IN_PLAY] -= 1
        table[T_IN_PLAY_STAKED] -= rnd[R_STAKED]
        for ours, theirs in SETTLED_FIGURES:
            table[theirs] += rnd[ours]

    # -- money -----------------------------------------------------------------------------

    def transferred(self, event: Any, n: Any) -> None:
        rid = event.round_id
        rnd = self.rounds.get(self.db, rid) if rid else None
        if rnd is not None and not rnd[R_TABLE]:
            rnd = None  # not a round this projection knows: no part of any round's figures
        for account, change in (
            (event.from_account, -event.amount),
            (event.to_account, event.amount),
        ):
            kind, _, owner = account.partition(":")
            if kind == "pool":
                self._table(owner)[T_POOL] += change
            elif kind == "house":
                if rnd is None:
                    self._table(owner)[T_HOUSE] += change
                else:
                    self._count(rid, rnd, R_HOUSE, change)
            elif kind == "escrow":
                self._held(owner, change)
            elif kind == "player" and rnd is not None:
                role = BANKER if owner == rnd[R_DEALER] else PUNTER
                self._player(rid, rnd, owner, role, n)[P_NET] += change
                self._count(rid, rnd, R_BANKER if role == BANKER else R_PUNTERS, change)
        # fmt: skip

    def _count(self, rid: str, rnd: list[Any], figure: int, change: int) -> None:
        """Add ``change`` to one of a round's figures, and to its table's once it has ended."""
        rnd[figure] += change
        self.rounds.touch(rid)
        if rnd[R_STATUS] == ENDED:
            self._table(rnd[R_TABLE])[TABLE_FIGURE[figure]] += change

    def _held(self, rid: str, change: int) -> None:
        """A round's escrow, and its table's in rounds in play, change by ``change``."""
        rnd = self.rounds.get(self.db, rid)
        if rnd[R_TABLE]:
            rnd[R_HELD] += change
            self.rounds.touch(rid)
            self._table(rnd[R_TABLE])[T_HELD] += change
