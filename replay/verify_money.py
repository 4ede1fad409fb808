"""``replay verify``: the transfers against the money the events say moved.

The hash chain is not keyed: whoever can write the store can rewrite a wallet's stream with
an amount changed and every hash recomputed, or drop its last transfers, and each chain still
holds. What such an edit cannot keep is the agreement between two records: the round's own
events (``replay.round_money``) and the transfers recorded in the wallets', the table's and
the round's streams. So for every round, the transfers that name it (``round_id``, or its
escrow) must add up, account by account and clause by clause, to exactly what its events
say moved; a table's deal sales (``Table.DealSold``, VU-31) and pool payouts
(``Table.PoolPaid``, VU-28) likewise against the transfers through their clearing accounts.
Buy-ins and cash-outs have no other record to hold them to.

A round is compared as soon as it has ended and its books balance (one command's events may
be logged in either order, so not at its end). Balanced is not yet complete: a dealer's payment
into the escrow and his receipt from it under one clause cancel out, so the books of an ended
round may balance before the transfers of its last command, logged after its ``Ended``, are
read. Such a round is kept among the last ``RECENT`` closed, and a transfer naming it opens its
books again (a forged one then leaves them unbalanced, named by account at the end). Older ones
are forgotten, so memory follows the rounds in play, not the log; a transfer naming a round
forgotten that way is named at once.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ledger import accounts
from ledger.domain.round import Round
from ledger.domain.table import Table
from ledger.rules import RuleSet, rules_from_record
from replay.round_money import Leg, RoundMoney

# Where a table's money outside its rounds clears, and the table event that says it moved.
CLEARING = {Table.DealSold: accounts.deal_sale, Table.PoolPaid: accounts.pool_payout}
# Rounds closed as balanced and kept, in case a transfer of their last command comes after:
# those come within a few dozen positions, so this is far more than any honest log needs.
RECENT = 2000
CLEARING_KINDS = {"deal-sale": "deal sales (VU-31)", "pool-payout": "pool payouts (VU-28)"}
CLEARING_PREFIXES = tuple(f"{kind}:" for kind in CLEARING_KINDS)


class Books:
    """One round's (or one table's sales' or payouts') money: per (account, clause), what
    the events say moved and what the transfers moved, and the last of each (a ``Where``)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.entries: dict[tuple[str, str], list[Any]] = {}
        self.unbalanced = 0
        self.fold: RoundMoney | None = None
        self.started = False  # a round: its stream was seen (else the rounds check names it)
        self.over = False  # a round: it has ended, nothing more may move

    def add(self, where: Any, leg: Leg, said: bool) -> None:
        payer, payee, amount, clause = leg
        self._move(where, payer, clause, -amount, said)
        self._move(where, payee, clause, amount, said)

    def _move(self, where: Any, account: str, clause: str, change: int, said: bool) -> None:
        entry = self.entries.get((account, clause))
        if entry is None:
            entry = self.entries[(account, clause)] = [0, 0, None, None]
        before = entry[0] == entry[1]
        column = 0 if said else 1
        entry[column] += change
        entry[2 + column] = where
        after = entry[0] == entry[1]
        if before != after:
            self.unbalanced += 1 if before else -1

    def problems(self) -> list[tuple[Any, str]]:
        out = []
        for (account, clause), (said, moved, by_events, by_transfers) in self.entries.items():
            if said == moved:
                continue
            # Named at the later of the two records: an edit's own fault (its hash) stays first.
            where = max(
                (w for w in (by_events, by_transfers) if w is not None), key=lambda w: w.position
            )
            out.append(
                (
                    where,
                    f"{self.what}: {account} under {clause}: the events say {said:+d}, the "
                    f"transfers moved {moved:+d}",
                )
            )
        return out


class MoneyMoved:
    """Fed every event of the one pass (``event``) and every well-formed transfer
    (``transfer``); ``fault(where, problem)`` is called for each disagreement."""

    def __init__(self, fault: Callable[[Any, str], None]) -> None:
        self.fault = fault
        self.books: dict[str, Books] = {}  # by round id, or by a table's clearing account
        self.folding: dict[str, Books] = {}  # round streams being folded, by stream
        self.closed: OrderedDict[str, Books] = OrderedDict()  # ended, balanced, kept
        self.compared: set[str] = set()  # rounds ended, balanced and forgotten
        self.unchecked: set[str] = set()  # rounds whose money cannot be derived (named)
        self.rules: dict[str, RuleSet] = {}  # by table: its rules never change

    def _books(self, key: str) -> Books:
        """The books of a round (by its id) or of a table's clearing account."""
        books = self.books.get(key)
        if books is None:
            kind, _, table = key.partition(":")
            if kind in CLEARING_KINDS:
                books = Books(f"table {table}'s {CLEARING_KINDS[kind]}")
                books.started = True  # a table's books are held to its events whatever they are
            else:
                books = Books(f"round {key}")
            self.books[key] = books
        return books

    def event(self, where: Any, stream: str, event: Any) -> None:
        books = self.folding.get(stream)
        if books is not None:
            self._fold(where, stream, books, event)
        elif type(event) is Round.Started:
            self._started(where, stream, event)
        elif type(event) in CLEARING:
            self._table_money(where, stream, event)
        elif stream in self.compared or stream in self.closed:
            self.fault(where, f"round {stream} had ended: nothing is recorded in it after")

    def _table_money(self, where: Any, table: str, event: Any) -> None:
        """A deal sold (the buyer pays the seller) or a pool payout, through the table's
        clearing account for it."""
        clearing = CLEARING[type(event)](table)
        if type(event) is Table.DealSold:
            payer, payee, amount = accounts.player(event.buyer), event.seller, event.price
        else:
            payer, payee, amount = accounts.pool(table), event.recipient, event.amount
        books = self._books(clearing)
        books.add(where, (payer, clearing, amount, event.clause), said=True)
        books.add(where, (clearing, accounts.player(payee), amount, event.clause), said=True)

    def _started(self, where: Any, stream: str, event: Any) -> None:
        books = self._books(stream)
        table = str(event.table_id)
        rules = self.rules.get(table)
        try:
            if rules is None:
                rules = self.rules[table] = rules_from_record(event.rules)
            books.fold = RoundMoney(event, rules)
        except Exception as error:  # a record no rule set reads: its money cannot be derived
            self.fault(where, f"round {stream}'s money cannot be derived ({error})")
            self.unreadable(stream)
            return
        books.started = True
        self.folding[stream] = books

    def _fold(self, where: Any, stream: str, books: Books, event: Any) -> None:
        try:
            legs = books.fold.legs(event)
        except Exception as error:  # a stream that no longer folds (its chain says why)
            self.fault(where, f"round {stream}'s events no longer fold ({error!r})")
            self.unreadable(stream)
            return
        for leg in legs:
            books.add(where, leg, said=True)
        while books.fold.faults:  # a settlement that does not add up by itself, just folded
            self.fault(where, f"round {stream}: {books.fold.faults.pop(0)}")
        if type(event) is Round.Ended:
            books.over = True
            books.fold = None
            del self.folding[stream]
            self._settle(stream, books)

    def unreadable(self, stream: str) -> None:
        """A round whose events cannot be read or folded (a fault names why) is not held
        to its transfers: anything said of its money would follow from that one fault."""
        self.folding.pop(stream, None)
        self.books.pop(stream, None)
        self.unchecked.add(stream)

    def transfer(self, where: Any, event: Any) -> None:
        key = event.round_id or _named_escrow(event) or _clearing(event)
        if not key or key in self.unchecked:
            return  # a buy-in or cash-out: no other record to hold it to
        if key in self.compared:
            self.fault(
                where,
                f"round {key} had ended with its books balanced; this transfer of "
                f"{event.amount} from {event.from_account} to {event.to_account} "
                f"({event.clause}) names it after",
            )
            return
        reopened = self.closed.pop(key, None)
        if reopened is not None:
            self.books[key] = reopened
        books = self._books(key)
        books.add(where, (event.from_account, event.to_account, event.amount, event.clause), False)
        if books.over:
            self._settle(key, books)

    def _settle(self, rid: str, books: Books) -> None:
        if books.unbalanced == 0:
            del self.books[rid]
            self.closed[rid] = books
            if len(self.closed) > RECENT:
                forgotten, _ = self.closed.popitem(last=False)
                self.compared.add(forgotten)

    def finish(self) -> None:
        for books in self.books.values():
            if not books.started:
                continue  # a round with no stream: the rounds check names it
            for where, problem in books.problems():
                self.fault(where, problem)
        self.books.clear()
        self.folding.clear()
        self.closed.clear()


def _named_escrow(event: Any) -> str:
    for account in (event.from_account, event.to_account):
        round_id = accounts.escrow_owner(account)
        if round_id is not None:
            return round_id
    return ""


def _clearing(event: Any) -> str:
    for account in (event.from_account, event.to_account):
        if account.startswith(CLEARING_PREFIXES):
            return account
    return ""
