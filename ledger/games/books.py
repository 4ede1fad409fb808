"""Double-entry bookkeeping for one command. A transfer touching a wallet is recorded in
that player's stream, where his balance is guarded; any other transfer (escrow to house,
escrow to pool) is recorded in the round's stream. No transfer ever joins two wallets
directly, so each transfer lands in exactly one stream."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger import accounts
from ledger.domain.transfers import record_transfer
from ledger.errors import InsufficientFunds, InvalidCommand


class Books:
    def __init__(
        self,
        load_wallet: Callable[[Any], Any],
        fallback: Any,
        *,
        credit: bool = False,
        round_id: str = "",
    ) -> None:
        self._load_wallet = load_wallet
        self.fallback = fallback
        self.credit = credit
        self.round_id = round_id
        self.clearing = accounts.escrow(round_id) if round_id else "clearing"
        self.wallets: dict[Any, Any] = {}

    def wallet(self, player_id: Any) -> Any:
        key = str(player_id)
        if key not in self.wallets:
            self.wallets[key] = self._load_wallet(player_id)
        return self.wallets[key]

    def balance(self, account: str) -> int:
        owner = accounts.wallet_owner(account)
        if owner is None:
            raise InvalidCommand(f"{account} is not a wallet")
        return self.wallet(owner).balance

    def require(self, account: str, amount: int, clause: str | None, what: str) -> None:
        """Refuse before anything is recorded if a wallet cannot cover ``amount``."""
        if self.credit or accounts.wallet_owner(account) is None:
            return
        have = self.balance(account)
        if have < amount:
            raise InsufficientFunds(
                f"{what}: needs {amount}, but {account} holds {have}",
                clause,
                needed=amount,
                balance=have,
            )

    def transfer(
        self, from_account: str, to_account: str, amount: int, clause: str, memo: str
    ) -> None:
        if amount < 0:
            raise InvalidCommand(f"a transfer amount cannot be negative ({amount})")
        if amount == 0 or from_account == to_account:
            return
        payer = accounts.wallet_owner(from_account)
        payee = accounts.wallet_owner(to_account)
        if payer is not None and payee is not None:
            # Each transfer lands in exactly one stream: route wallet to wallet via escrow.
            self.transfer(from_account, self.clearing, amount, clause, memo)
            self.transfer(self.clearing, to_account, amount, clause, memo)
            return
        if payer is not None:
            self.require(from_account, amount, clause, memo)
            target = self.wallet(payer)
        elif payee is not None:
            target = self.wallet(payee)
        else:
            target = self.fallback
        record_transfer(target, from_account, to_account, amount, clause, memo, self.round_id)

    def touched(self) -> list[Any]:
        return [w for w in self.wallets.values() if w.pending_events]
