"""VU-31: "A player may sell his right to deal to another player for an agreed price."

An agreed price takes both parties' word, so a sale is two steps, each its own event of the
table's stream: the dealer offers the deal to one seated player at a price (``DealOffered``),
and that player accepts it, naming the price he agrees to (``DealSold``, his own act: the price
then moves from his wallet to the seller's). Until then the offer can be withdrawn by the
seller or declined by the buyer (``DealOfferWithdrawn``), and it lapses by itself when a round
starts or the deal changes hands (``Table`` forgets it). An admin may record a sale the two
agreed elsewhere in one step (``sell``)."""

from __future__ import annotations

from typing import Any

from ledger import accounts
from ledger.domain.table import Table
from ledger.errors import InvalidCommand, NotFound, NotPermitted, RuleViolation, WrongPhase
from ledger.games.bookkeeping import Books

CLAUSE = "VU-31"
ADMINS = ("admin", "ledger")
NONE_OPEN = "no offer of the deal is open at this table"


def seller_or_dealer(table: Table, seller: str | None) -> str:
    """``seller`` as given, or by default the player who holds the deal now: read inside the
    command, so a retry of it names the same command as its first try."""
    if seller is not None:
        return str(seller)
    if table.dealer is None:
        raise NotPermitted("this table has no dealer to sell the deal", CLAUSE)
    return str(table.dealer)


def check_sellable(table: Table, seller: str, buyer: str) -> None:
    """The deal can change hands now, from ``seller`` to ``buyer``."""
    table.check_open()
    if table.family != "vingt-un":
        raise RuleViolation("selling the deal is a Vingt-un custom", CLAUSE)
    if table.current_round is not None:
        raise WrongPhase("the deal is sold between rounds", CLAUSE)
    if seller != table.dealer:
        raise NotPermitted("only the player holding the deal may sell it", CLAUSE)
    if buyer == seller:
        raise InvalidCommand("the buyer must be another player than the seller", CLAUSE)
    if table.seat_of(buyer) is None:
        raise RuleViolation(f"the buyer {buyer} is not seated at this table", CLAUSE)


def offer(table: Table, seller: str, buyer: str, price: int, actor: str) -> dict[str, Any]:
    """The seller's half: he (or an admin for him) offers the deal to ``buyer`` at ``price``."""
    if actor not in (*ADMINS, seller):
        raise NotPermitted("only the player holding the deal offers it for sale", CLAUSE)
    check_sellable(table, seller, buyer)
    table.trigger_event(
        Table.DealOffered, seller=seller, buyer=buyer, price=price, clause=CLAUSE, actor=actor
    )
    return offer_view(table)


def existing_offer(table: Table) -> dict[str, Any]:
    """The open offer, to read or to withdraw: with none open there is nothing to act on
    (``NotFound``, as reading it says), not a conflict with the table's state."""
    if table.deal_offer is None:
        raise NotFound(NONE_OPEN, CLAUSE)
    return dict(table.deal_offer)


def open_offer(table: Table) -> dict[str, Any]:
    """The open offer, to accept: accepting when none is open is refused as out of phase
    (the offer lapsed, or was never made)."""
    if table.deal_offer is None:
        raise WrongPhase(
            f"{NONE_OPEN} (an offer lapses when a round starts, the deal changes hands or the "
            "table closes)",
            CLAUSE,
        )
    return dict(table.deal_offer)


def withdraw(table: Table, actor: str) -> dict[str, Any]:
    """The open offer ends unaccepted: the seller withdraws it, or the buyer declines it."""
    made = existing_offer(table)
    if actor not in (*ADMINS, made["seller"], made["buyer"]):
        raise NotPermitted("only the seller withdraws an offer of the deal, or its buyer", CLAUSE)
    table.trigger_event(Table.DealOfferWithdrawn, **made, clause=CLAUSE, actor=actor)
    return {"table_id": str(table.id), "withdrawn": made, "actor": actor}


def accept(table: Table, books: Books, buyer: str | None, price: int, actor: str) -> dict[str, Any]:
    """The buyer's half: he accepts the open offer made to him at the price he names (an
    admin may leave ``buyer`` out: the buyer offered)."""
    made = open_offer(table)
    buyer = made["buyer"] if buyer is None else buyer
    if actor not in (*ADMINS, buyer) or buyer != made["buyer"]:
        raise NotPermitted("only the player the deal was offered to accepts the offer", CLAUSE)
    if price != made["price"]:
        raise RuleViolation(
            f"the deal is offered at {made['price']}, not {price}: no price was agreed", CLAUSE
        )
    return sell(table, books, made["seller"], buyer, price, actor)


def sell(table: Table, books: Books, seller: str, buyer: str, price: int, actor: str) -> dict:
    """The sale at the agreed price: the buyer pays the seller, and deals from now on."""
    check_sellable(table, seller, buyer)
    books.transfer(accounts.player(buyer), accounts.player(seller), price, CLAUSE, "deal sold")
    table.trigger_event(
        Table.DealSold, seller=seller, buyer=buyer, price=price, clause=CLAUSE, actor=actor
    )
    return {"table_id": str(table.id), "dealer": buyer, "seller": seller, "price": price}


def offer_view(table: Table) -> dict[str, Any]:
    return {"table_id": str(table.id), **existing_offer(table)}
