"""``replay verify``: the balances every transfer folds to, and where each may be recorded.

Every transfer moves a positive amount, the balances of all accounts sum to zero, an ended
round's escrow is empty, and no wallet is debited below zero, except by a round at a table
that gives credit. A transfer recorded in a wallet's or a table's stream touches that wallet or
that table's pool, no pool goes below zero, a pool opens with the balance its earlier transfers
fold to, and once open it moves only in its table's stream. (What each round's transfers should
have been is ``replay.verify_money``'s.)
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ledger import accounts
from ledger.domain.player import Player
from ledger.domain.table import Table
from replay.verify_report import Fault, Where
from replay.verify_rounds import Rounds

# The transfers recorded in the stream of the account they guard, and that account.
GUARDED = {Player.FundsTransferred: accounts.player, Table.FundsTransferred: accounts.pool}


class Balances:
    """Fed every transfer of the one pass (``transfer``, then ``guard``) and every pool's
    opening; its faults, of the check ``money``, go to ``faults``."""

    def __init__(self, faults: list[Fault]) -> None:
        self.faults = faults
        self.balances: dict[str, int] = defaultdict(int)
        self.wallets: dict[str, int] = defaultdict(int)
        self.overdrawn: list[tuple[Where, str, int]] = []  # (where, round id, balance)
        self.escrow_last: dict[str, Where] = {}  # the latest transfer touching each escrow
        self.pools_open: set[str] = set()  # pools kept in their table's stream from here on
        self.unread: set[str] = set()  # streams with an event that cannot be read

    def fault(self, where: Where, problem: str) -> None:
        self.faults.append(Fault.at(where, "money", problem))

    @property
    def total(self) -> int:
        return sum(self.balances.values())

    def unreadable(self, stream: str) -> None:
        """A wallet with an event that cannot be read is not held to its balance."""
        self.unread.add(stream)

    def transfer(self, where: Where, event: Any) -> bool:
        """Fold the transfer into the balances; whether it moves a positive amount (else it
        is a fault and folds nothing)."""
        amount = event.amount
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            self.fault(where, f"a transfer of {amount!r}: amounts are positive integers")
            return False
        self.balances[event.from_account] -= amount
        self.balances[event.to_account] += amount
        return True

    def guard(self, where: Where, stream: str, event: Any) -> None:
        """After ``transfer``: the accounts it touches, against the stream it is recorded in."""
        for account in (event.from_account, event.to_account):
            if accounts.escrow_owner(account) is not None:
                self.escrow_last[account] = where
        if event.from_account.startswith("pool:") and self.balances[event.from_account] < 0:
            self.fault(where, f"{event.from_account} went below zero")
        for account in (event.from_account, event.to_account):
            if account in self.pools_open and not (
                type(event) is Table.FundsTransferred and account == accounts.pool(stream)
            ):
                self.fault(where, f"a transfer of {account} outside its table's stream")
        own_account = GUARDED.get(type(event))
        if own_account is None:
            return
        own = own_account(stream)
        if own not in (event.from_account, event.to_account):
            self.fault(where, f"a transfer recorded in {own}'s stream misses it")
            return
        if own_account is accounts.player and stream not in self.unread:
            change = event.change(own)
            self.wallets[stream] += change
            # A debit overdraws; money paid into a wallet a credit table left short does not.
            if change < 0 and self.wallets[stream] < 0:
                self.overdrawn.append((where, event.round_id, self.wallets[stream]))

    def pool_opened(self, where: Where, stream: str, event: Any) -> None:
        """A pool opens with the balance its transfers so far fold to: 0 for a new table,
        the carried balance for one opened before the pool kept its own stream."""
        folded = self.balances.get(accounts.pool(stream), 0)
        self.pools_open.add(accounts.pool(stream))
        if event.balance != folded:
            self.fault(where, f"the pool opened with {event.balance}, its transfers give {folded}")

    def finish(self, rounds: Rounds) -> None:
        """After the last event: the escrows of the rounds that ended, the wallets overdrawn
        (but by a round at a credit table), and the sum of all balances (a fault of the whole
        log, placed after every fault found so far)."""
        for rid in sorted(rounds.ended.keys() | rounds.closed.keys()):
            ended = rounds.ended.get(rid) or rounds.closed[rid]
            escrow = accounts.escrow(rid)
            left = self.balances.get(escrow, 0)
            if left:
                # Named at whichever comes last, the round's end (or its table's closing it)
                # or its last escrow transfer (one save may log them in either order): an edit
                # earlier stays the first.
                where = max(ended, self.escrow_last.get(escrow, ended), key=lambda w: w.position)
                how = "ended" if rid in rounds.ended else "was closed by its table"
                self.fault(where, f"round {rid} {how} with {left} left in its escrow {escrow}")
        for where, round_id, balance in self.overdrawn:
            if round_id and rounds.credit.get(round_id):
                continue
            self.fault(where, f"the wallet went below zero ({balance})")
        total = self.total
        if total:
            last = max((f.position for f in self.faults), default=0)
            self.faults.append(
                Fault(last, "", 0, "", "money", f"the balances sum to {total}, not 0")
            )
