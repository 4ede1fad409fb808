"""A player and his wallet. The wallet is the one account whose balance is guarded, so
every transfer touching it is an event in this stream and checked against its balance."""

from __future__ import annotations

from typing import Self

from ledger import accounts
from ledger.domain.acted_for import ActedForBase
from ledger.domain.chain import ChainedAggregate
from ledger.domain.transfers import FundsTransferredBase


class Player(ChainedAggregate):
    class Registered(ChainedAggregate.Created):
        name: str
        actor: str

        def apply(self, player: Player) -> None:
            player.name = self.name
            player.balance = 0

    class FundsTransferred(FundsTransferredBase):
        pass

    class ActedFor(ActedForBase):
        pass

    @classmethod
    def register(cls, name: str, actor: str) -> Self:
        return cls._create(cls.Registered, name=name, actor=actor)

    @property
    def account(self) -> str:
        return accounts.player(self.id)
