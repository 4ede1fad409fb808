"""The Vingt-un table's pool (VU-27/28) and the sale of the deal (VU-31)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.utils import get_topic

from ledger import accounts, deal_sales
from ledger.domain.table import POOL_CARRIED_OVER, Table
from ledger.errors import ConcurrentUpdate, NotPermitted
from ledger.games.bookkeeping import Books
from ledger.text import check_text
from ledger.unit_of_work import UnitOfWork
from ledger.use_cases.inputs import ADMIN, positive_amount

POOL_PAYOUT, DEAL_SALE = "VU-28", "VU-31"


class PoolAndDeal:
    """A part of ``TwentyOneLedger`` (ledger/application.py), which supplies ``_run``."""

    def _pool_table(
        self, uow: UnitOfWork, table_id: Any, balances: dict[str, int] | None = None
    ) -> Table:
        """The table, its pool open: a table opened before the pool kept its own stream
        carries over, once, the balance folded from the whole log (VU-27), or taken from
        ``balances``, such a fold made for many tables at once."""
        table = uow.table(table_id)
        table.require_pool()
        if table.pool is None:
            account = table.pool_account
            table.open_pool(
                self.account_balance(account) if balances is None else balances.get(account, 0),
                POOL_CARRIED_OVER,
            )
        return table

    def open_pools(self) -> list[dict]:
        """Open the pool of every Vingt-un table recorded before tables kept their pools, with
        one fold of the log's transfers for all of them (``python -m ledger open-pools``),
        rather than one inside each table's first command that moves pool money. A table
        whose pool some command opened meanwhile is left as that command left it."""
        from ledger.balances import fold_balances, notifications

        opened, pooled = get_topic(Table.Opened), get_topic(Table.PoolOpened)
        tables, done = [], set()
        for n in notifications(self, [opened, pooled]):
            if n.topic == pooled:
                done.add(n.originator_id)
            elif self.mapper.to_domain_event(n).rules["family"] == "vingt-un":
                tables.append(n.originator_id)
        waiting = [t for t in tables if t not in done]
        balances = fold_balances(self) if waiting else {}
        out = []
        for table_id in waiting:

            def body(uow: UnitOfWork, table_id: UUID = table_id) -> dict:
                table = self._pool_table(uow, table_id, balances)
                return {"table_id": str(table.id), "pool": table.pool}

            for _ in range(3):  # another command wrote the table meanwhile: load it again
                try:
                    out.append(self._run("open_pool", {"table": str(table_id)}, None, ADMIN, body))
                    break
                except ConcurrentUpdate:
                    continue
            else:
                raise ConcurrentUpdate(f"table {table_id} kept changing; run open-pools again")
        return out

    def pay_from_pool(
        self,
        table_id: str,
        recipient: str,
        amount: int,
        reason: str,
        *,
        actor: str = ADMIN,
        command_id: str | None = None,
    ) -> dict:
        amount = positive_amount(amount, "a pool payout")
        check_text(reason, "a pool payout's reason (VU-28)", max_length=200)

        def body(uow: UnitOfWork) -> dict:
            uow.prefetch(table_id, recipient)
            table = self._pool_table(uow, table_id)
            player = uow.player(recipient)
            table.pay_from_pool(str(player.id), amount, reason, actor)
            books = Books(
                uow.player,
                table,
                load_pool=lambda table_id: self._pool_table(uow, table_id),
                clearing=accounts.pool_payout(table.id),
            )
            books.transfer(
                table.pool_account, player.account, amount, POOL_PAYOUT, f"pool payout: {reason}"
            )
            return {"table_id": str(table.id), "recipient": str(player.id), "amount": amount}

        return self._run(
            "pay_from_pool",
            {"table": str(table_id), "to": str(recipient), "amount": amount, "reason": reason},
            command_id,
            actor,
            body,
        )

    def offer_deal(
        self,
        table_id: str,
        seller: str | None,
        buyer: str,
        price: int,
        *,
        actor: str | None = None,
        command_id: str | None = None,
    ) -> dict:
        """VU-31, the seller's half: the dealer offers his deal to another seated player at
        ``price``; nothing moves until that player accepts (``accept_deal``). ``seller``
        None: the table's dealer when the command runs (an admin's shorthand)."""
        price = positive_amount(price, "the price of the deal")
        actor = actor or (ADMIN if seller is None else str(seller))

        def body(uow: UnitOfWork) -> dict:
            table = uow.table(table_id)
            made_by = deal_sales.seller_or_dealer(table, seller)
            return deal_sales.offer(table, made_by, str(buyer), price, actor)

        # As given: a default filled in from the table would differ on a retry after the sale.
        payload = {"table": str(table_id), "seller": _given(seller), "buyer": str(buyer)}
        return self._run("offer_deal", {**payload, "price": price}, command_id, actor, body)

    def accept_deal(
        self,
        table_id: str,
        buyer: str | None,
        price: int,
        *,
        actor: str | None = None,
        command_id: str | None = None,
    ) -> dict:
        """VU-31, the buyer's half: he accepts the offer made to him at the price he names;
        the price moves from his wallet to the seller's and he deals. ``buyer`` None: the
        buyer of the open offer (an admin's shorthand)."""
        price = positive_amount(price, "the price of the deal")
        actor = actor or (ADMIN if buyer is None else str(buyer))

        def body(uow: UnitOfWork) -> dict:
            table = uow.table(table_id)
            books = _sale_books(uow, table, actor)
            return deal_sales.accept(table, books, _given(buyer), price, actor)

        payload = {"table": str(table_id), "buyer": _given(buyer), "price": price}
        return self._run("accept_deal", payload, command_id, actor, body)

    def withdraw_deal_offer(
        self, table_id: str, *, actor: str, command_id: str | None = None
    ) -> dict:
        """VU-31: the open offer ends unaccepted (the seller withdraws, the buyer declines)."""

        def body(uow: UnitOfWork) -> dict:
            return deal_sales.withdraw(uow.table(table_id), actor)

        return self._run("withdraw_deal_offer", {"table": str(table_id)}, command_id, actor, body)

    def sell_deal(
        self,
        table_id: str,
        seller: str | None,
        buyer: str,
        price: int,
        *,
        actor: str = ADMIN,
        command_id: str | None = None,
    ) -> dict:
        """VU-31 in one step, for an admin recording a price the two agreed elsewhere; the
        players themselves sell by ``offer_deal`` and ``accept_deal``. ``seller`` None: the
        table's dealer when the command runs."""
        price = positive_amount(price, "the price of the deal")
        if actor not in (ADMIN, "ledger"):
            raise NotPermitted(
                "only an admin records a sale in one step; the dealer offers the deal "
                "(offer_deal) and the buyer accepts it (accept_deal)",
                DEAL_SALE,
            )

        def body(uow: UnitOfWork) -> dict:
            table = uow.table(table_id)
            books = _sale_books(uow, table, actor)
            made_by = deal_sales.seller_or_dealer(table, seller)
            return deal_sales.sell(table, books, made_by, str(buyer), price, actor)

        return self._run(
            "sell_deal",
            {"table": str(table_id), "seller": _given(seller), "buyer": str(buyer), "price": price},
            command_id,
            actor,
            body,
        )


def _given(party: Any) -> str | None:
    """A party as the caller named it, or None for the default the command reads itself."""
    return None if party is None else str(party)


def _sale_books(uow: UnitOfWork, table: Table, actor: str) -> Books:
    """The books of a deal sale (VU-31): the price passes through the table's clearing
    account, and a refusal tells ``actor`` only his own balance."""
    return Books(uow.player, table, clearing=accounts.deal_sale(table.id), asker=actor)
