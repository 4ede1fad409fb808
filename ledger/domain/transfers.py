"""The one event shape for moving money, shared by every aggregate that records transfers."""

from __future__ import annotations

from typing import Any

from ledger.domain.chain import ChainedAggregate


class FundsTransferredBase(ChainedAggregate.Event):
    """One double-entry transfer: ``amount`` leaves ``from_account`` and reaches ``to_account``."""

    from_account: str
    to_account: str
    amount: int
    clause: str
    memo: str
    round_id: str

    def change(self, account: str) -> int:
        """What this transfer does to ``account``'s balance."""
        return (self.amount if self.to_account == account else 0) - (
            self.amount if self.from_account == account else 0
        )

    def apply(self, aggregate: Any) -> None:
        aggregate.balance += self.change(aggregate.account)


def record_transfer(
    aggregate: Any,
    from_account: str,
    to_account: str,
    amount: int,
    clause: str,
    memo: str,
    round_id: str = "",
) -> None:
    aggregate.trigger_event(
        aggregate.FundsTransferred,
        from_account=from_account,
        to_account=to_account,
        amount=amount,
        clause=clause,
        memo=memo,
        round_id=round_id,
    )
