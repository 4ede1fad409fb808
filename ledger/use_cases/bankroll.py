"""Players and their money outside the tables: registration, buy-ins and cash-outs."""

from __future__ import annotations

from ledger import accounts
from ledger.domain.player import Player
from ledger.games.bookkeeping import Books
from ledger.text import check_text
from ledger.unit_of_work import UnitOfWork
from ledger.use_cases.inputs import ADMIN, positive_amount

BUY_IN, CASH_OUT = "L-BUY-IN", "L-CASH-OUT"


class Bankroll:
    """A part of ``TwentyOneLedger`` (ledger/application.py), which supplies ``_run``."""

    def register_player(
        self, name: str, *, actor: str = ADMIN, command_id: str | None = None
    ) -> dict:
        check_text(name, "a player's name", max_length=100)

        def body(uow: UnitOfWork) -> dict:
            player = uow.add(Player.register(name=name.strip(), actor=actor))
            return {"player_id": str(player.id)}

        return self._run("register_player", {"name": name}, command_id, actor, body)

    def deposit(
        self, player_id: str, amount: int, *, actor: str = ADMIN, command_id: str | None = None
    ) -> dict:
        """A buy-in: the cashier (the world outside) pays into the wallet."""
        return self._cash("deposit", player_id, amount, actor, command_id)

    def withdraw(
        self, player_id: str, amount: int, *, actor: str = ADMIN, command_id: str | None = None
    ) -> dict:
        """A cash-out: the wallet pays the cashier; refused when the balance is short."""
        return self._cash("withdraw", player_id, amount, actor, command_id)

    def _cash(
        self, name: str, player_id: str, amount: int, actor: str, command_id: str | None
    ) -> dict:
        inbound = name == "deposit"
        amount = positive_amount(amount, "a deposit" if inbound else "a withdrawal")

        def body(uow: UnitOfWork) -> dict:
            player = uow.player(player_id)
            books = Books(uow.player, player, asker=actor)
            if inbound:
                books.transfer(accounts.CASHIER, player.account, amount, BUY_IN, "buy-in")
            else:
                books.transfer(player.account, accounts.CASHIER, amount, CASH_OUT, "cash-out")
            return {"player_id": str(player.id), "balance": player.balance}

        return self._run(
            name, {"player": str(player_id), "amount": amount}, command_id, actor, body
        )
