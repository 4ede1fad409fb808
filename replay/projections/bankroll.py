"""The bankroll of every account: its balance, what it has staked in rounds still open, and
every movement with the running balance and its cause (clause, memo, round).

Every transfer is two movements, one per side, so the balances of all accounts in this view
sum to zero exactly as the ledger's do (a test checks it against ``fold_balances``).
"""

from __future__ import annotations

from typing import Any

from ledger import accounts
from replay.projections.projector import Handler, Projector
from replay.projections.rows import Rows

BANK = "(bank)"  # the hold row of the banker's cover, beside the hands' rows of a round
HOUSE = "house"
HOLD_EVENTS = ("Round.StakePlaced", "Round.StakeRaised", "Round.HoldAdjusted",
               "Round.HandSettled", "Round.BankCovered")  # fmt: skip


class Bankroll(Projector):
    name = "bankroll"
    ddl = (
        "CREATE TABLE IF NOT EXISTS view_accounts ("
        " account TEXT PRIMARY KEY, balance BIGINT NOT NULL, movements BIGINT NOT NULL,"
        " position BIGINT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS view_movements ("
        " account TEXT NOT NULL, seq BIGINT NOT NULL, position BIGINT NOT NULL,"
        " time TEXT NOT NULL, stream TEXT NOT NULL, version BIGINT NOT NULL,"
        " from_account TEXT NOT NULL, to_account TEXT NOT NULL, amount BIGINT NOT NULL,"
        " change BIGINT NOT NULL, balance BIGINT NOT NULL, clause TEXT NOT NULL,"
        " memo TEXT NOT NULL, round_id TEXT NOT NULL, PRIMARY KEY (account, seq))",
        # What each hand (and the banker's cover) of an open round holds in its escrow, and
        # whose wallet it came from; a round's rows go when it ends.
        "CREATE TABLE IF NOT EXISTS view_holds ("
        " round_id TEXT NOT NULL, hand TEXT NOT NULL, account TEXT NOT NULL,"
        " amount BIGINT NOT NULL, PRIMARY KEY (round_id, hand))",
        "CREATE INDEX IF NOT EXISTS view_holds_by_account ON view_holds (account)",
    )
    # 2: holds folded from the round's own events, by hand (1 folded them from transfers).
    # 3: pool transfers, recorded in the table's stream.
    version = 3
    _movement = (
        "account", "seq", "position", "time", "stream", "version", "from_account",
        "to_account", "amount", "change", "balance", "clause", "memo", "round_id",
    )  # fmt: skip

    def __init__(self) -> None:
        super().__init__()
        self.accounts = self.owned(
            Rows("view_accounts", ("account",), ("balance", "movements", "position"), _zero3)
        )
        self.holds = self.owned(
            Rows("view_holds", ("round_id", "hand"), ("account", "amount"), _no_hold, group=0)
        )
        self.movements: list[tuple] = []
        self.ended: list[str] = []

    def handlers(self) -> dict[str, Handler]:
        return {
            "Player.FundsTransferred": self.transferred,
            "Round.FundsTransferred": self.transferred,
            "Table.FundsTransferred": self.transferred,
            "Round.Started": self.round_started,
            "Round.StakePlaced": self.stake_placed,
            "Round.StakeRaised": self.stake_raised,
            "Round.HoldAdjusted": self.hold_adjusted,
            "Round.HandSettled": self.hand_settled,
            "Round.BankCovered": self.bank_covered,
            "Round.Ended": self.round_ended,
        }

    def prefetch(self, batch: list[tuple[Any, Any]]) -> None:
        if self.cached_whole():
            return
        accounts, holds = [], []
        for event, _ in batch:
            if hasattr(event, "from_account"):
                accounts += (event.from_account, event.to_account)
            elif type(event).__qualname__ in HOLD_EVENTS:
                rid = event.originator_id
                holds += ((rid, event.hand if hasattr(event, "hand") else BANK), (rid, BANK))
        self.accounts.prefetch(self.db, accounts)
        self.holds.prefetch(self.db, holds)

    def transferred(self, event: Any, n: Any) -> None:
        time = event.timestamp
        stream = event.originator_id
        for account, change in (
            (event.from_account, -event.amount),
            (event.to_account, event.amount),
        ):
            row = self.accounts.get(self.db, account)
            row[0] += change
            row[1] += 1
            row[2] = n.id
            self.accounts.touch(account)
            self.movements.append(
                (account, row[1], n.id, time, stream, n.originator_version, event.from_account,
                 event.to_account, event.amount, change, row[0], event.clause, event.memo,
                 event.round_id)
            )  # fmt: skip

    # -- holds: exactly what the round itself keeps as each hand's ``held`` and ``bank_held``,
    # folded from the round's stream alone, so they never depend on the order in which one
    # command's wallet transfers were stored around the round's events.

    def _hold(self, event: Any, hand: str) -> list[Any]:
        key = (event.originator_id, hand)
        self.holds.touch(key)
        return self.holds.get(self.db, key)

    def round_started(self, event: Any, n: Any) -> None:
        if event.dealer != HOUSE:  # a player banks: his cover is held too (no-credit tables)
            self._hold(event, BANK)[0] = accounts.player(event.dealer)

    def stake_placed(self, event: Any, n: Any) -> None:
        row = self._hold(event, event.hand)
        row[0] = accounts.player(event.player)
        row[1] += event.held

    def stake_raised(self, event: Any, n: Any) -> None:
        self._hold(event, event.hand)[1] += event.held

    def hold_adjusted(self, event: Any, n: Any) -> None:
        self._hold(event, event.hand)[1] += event.amount

    def hand_settled(self, event: Any, n: Any) -> None:
        self._hold(event, event.hand)[1] = 0
        if event.from_bank_cover:
            self._hold(event, BANK)[1] -= event.from_bank_cover

    def bank_covered(self, event: Any, n: Any) -> None:
        self._hold(event, BANK)[1] += event.amount

    def round_ended(self, event: Any, n: Any) -> None:
        round_id = event.originator_id
        self.holds.drop_group(round_id)
        self.ended.append(round_id)

    def clear(self) -> None:
        super().clear()
        self.movements.clear()
        self.ended.clear()

    def flush(self) -> None:
        super().flush()
        self.db.insert("view_movements", self._movement, self.movements)
        self.db.delete_in("view_holds", "round_id", self.ended)
        self.movements.clear()
        self.ended.clear()


def _zero3(_: Any) -> list[int]:
    return [0, 0, 0]


def _no_hold(_: Any) -> list[Any]:
    return ["", 0]
