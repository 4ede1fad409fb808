"""Double-entry bookkeeping for one command. Two kinds of account are guarded: a wallet, in
its player's stream, and a Vingt-un table's pool, in its table's stream. A transfer touching
a guarded account is recorded in that account's stream, where its balance is checked; any
other transfer (escrow to house) is recorded in the round's stream. No transfer ever joins
two guarded accounts directly (it goes through a clearing account, the round's escrow), so
each transfer lands in exactly one stream."""

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
        load_pool: Callable[[Any], Any] | None = None,
        clearing: str | None = None,
        asker: str | None = None,
    ) -> None:
        self._load_wallet = load_wallet
        self._load_pool = load_pool
        self.fallback = fallback
        self.credit = credit
        self.round_id = round_id
        # Between two guarded accounts: the round's escrow, or the command's own account.
        self.clearing = clearing or (accounts.escrow(round_id) if round_id else "clearing")
        self.wallets: dict[Any, Any] = {}
        # Who gave the command: a refusal tells him the balance of his own wallet only.
        self.asker = asker

    def wallet(self, player_id: Any) -> Any:
        key = str(player_id)
        if key not in self.wallets:
            self.wallets[key] = self._load_wallet(player_id)
        return self.wallets[key]

    def guardian(self, account: str) -> Any:
        """The aggregate whose stream records and guards ``account``, or None if no stream
        guards it (escrow, house, cashier, clearing)."""
        owner = accounts.wallet_owner(account)
        if owner is not None:
            return self.wallet(owner)
        table = accounts.pool_owner(account)
        if table is None:
            return None
        if self._load_pool is None:
            raise InvalidCommand(f"this command cannot move money of {account}")
        return self._load_pool(table)

    def balance(self, account: str) -> int:
        owner = accounts.wallet_owner(account)
        if owner is None:
            raise InvalidCommand(f"{account} is not a wallet")
        return self.wallet(owner).balance

    def require(self, account: str, amount: int, clause: str | None, what: str) -> None:
        """Refuse before anything is recorded if a wallet cannot cover ``amount`` (a pool
        never runs on credit)."""
        if accounts.pool_owner(account) is not None:
            have = self.guardian(account).pool
        elif accounts.wallet_owner(account) is not None and not self.credit:
            have = self.balance(account)
        else:
            return
        if have < amount:
            if self.may_disclose(account):
                message, shown = f"{what}: needs {amount}, but {account} holds {have}", have
            else:
                message, shown = f"{what}: needs {amount}, more than {account} holds", None
            raise InsufficientFunds(message, clause, needed=amount, balance=shown)

    def may_disclose(self, account: str) -> bool:
        """Whether a refusal may tell the asker this account's balance: a pool's is public
        (every key reads it on the table), a wallet's only to its owner and to an admin (or
        the ledger itself). Anyone else learns that the wallet is short, not by how much."""
        owner = accounts.wallet_owner(account)
        return owner is None or self.asker in ("admin", "ledger", str(owner))

    def transfer(
        self, from_account: str, to_account: str, amount: int, clause: str, memo: str
    ) -> None:
        if amount < 0:
            raise InvalidCommand(f"a transfer amount cannot be negative ({amount})")
        if amount == 0 or from_account == to_account:
            return
        payer = self.guardian(from_account)
        payee = self.guardian(to_account)
        if payer is not None and payee is not None:
            # Each transfer lands in exactly one stream: route it through the clearing account.
            self.transfer(from_account, self.clearing, amount, clause, memo)
            self.transfer(self.clearing, to_account, amount, clause, memo)
            return
        if payer is not None:
            self.require(from_account, amount, clause, memo)
            target = payer
        elif payee is not None:
            target = payee
        else:
            target = self.fallback
        record_transfer(target, from_account, to_account, amount, clause, memo, self.round_id)
