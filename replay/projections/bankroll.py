"""The bankroll of every account: its balance, what it has staked in rounds still open, and
every movement with the running balance and its cause (clause, memo, round).

Every transfer is two movements, one per side, so the balances of all accounts in this view
sum to zero exactly as the ledger's do (a test checks it against ``fold_balances``).
"""

from __future__ import annotations

from typing import Any

from replay.projections.projector import Handler, Projector
from replay.projections.rows import Rows

ESCROW = "escrow:"
WALLET = "player:"


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
        # A wallet's stakes held in a round's escrow; the row goes when the round ends.
        "CREATE TABLE IF NOT EXISTS view_holds ("
        " account TEXT NOT NULL, round_id TEXT NOT NULL, amount BIGINT NOT NULL,"
        " PRIMARY KEY (account, round_id))",
    )
    _movement = (
        "INSERT INTO view_movements (account, seq, position, time, stream, version,"
        " from_account, to_account, amount, change, balance, clause, memo, round_id)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )

    def __init__(self) -> None:
        super().__init__()
        self.accounts = self.owned(
            Rows("view_accounts", ("account",), ("balance", "movements", "position"), _zero3)
        )
        self.holds = self.owned(
            Rows("view_holds", ("account", "round_id"), ("amount",), lambda _: [0])
        )
        self.movements: list[tuple] = []
        self.ended: list[tuple[str]] = []

    def handlers(self) -> dict[str, Handler]:
        return {
            "Player.FundsTransferred": self.transferred,
            "Round.FundsTransferred": self.transferred,
            "Round.Ended": self.round_ended,
        }

    def prefetch(self, batch: list[tuple[Any, Any]]) -> None:
        accounts, holds = [], []
        for event, _ in batch:
            if hasattr(event, "from_account"):
                accounts += (event.from_account, event.to_account)
                hold = _hold(event)
                if hold is not None:
                    holds.append(hold[0])
        self.accounts.prefetch(self.db, accounts)
        self.holds.prefetch(self.db, holds)

    def transferred(self, event: Any, n: Any) -> None:
        time = event.timestamp.isoformat()
        stream = str(n.originator_id)
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
        hold = _hold(event)
        if hold is not None:
            key, change = hold
            self.holds.get(self.db, key)[0] += change
            self.holds.touch(key)

    def round_ended(self, event: Any, n: Any) -> None:
        round_id = str(event.originator_id)
        for key in [k for k in self.holds.cache if k[1] == round_id]:
            del self.holds.cache[key]
            self.holds.dirty.discard(key)
        self.ended.append((round_id,))

    def clear(self) -> None:
        super().clear()
        self.movements.clear()
        self.ended.clear()

    def flush(self) -> None:
        super().flush()
        self.db.executemany(self._movement, self.movements)
        self.db.executemany("DELETE FROM view_holds WHERE round_id = ?", self.ended)
        self.movements.clear()
        self.ended.clear()


def _zero3(_: Any) -> list[int]:
    return [0, 0, 0]


def _hold(event: Any) -> tuple[tuple[str, str], int] | None:
    """((wallet, round), change of what the wallet has in that round's escrow), if any."""
    if event.to_account.startswith(ESCROW) and event.from_account.startswith(WALLET):
        return (event.from_account, event.to_account[len(ESCROW) :]), event.amount
    if event.from_account.startswith(ESCROW) and event.to_account.startswith(WALLET):
        return (event.to_account, event.from_account[len(ESCROW) :]), -event.amount
    return None
