"""A table: its rules (recorded whole at opening), its seats, who deals, which shoe is in
use and how far it has been dealt, and a Vingt-un table's pool. Rounds are their own
aggregates, so a table's stream grows by two events per round (and a Vingt-un table's by
its pool's transfers) and is kept cheap to load by snapshots.

The pool is guarded here as a wallet is in its player's stream: every transfer into or out
of it is an event of this stream, so its balance is known without reading anything else."""

from __future__ import annotations

from typing import Any, Self
from uuid import UUID

from ledger import accounts
from ledger.domain.acted_for import ActedForBase
from ledger.domain.chain import ChainedAggregate
from ledger.domain.transfers import FundsTransferredBase
from ledger.errors import (
    AlreadySeated,
    InvalidCommand,
    RuleViolation,
    UnknownSeat,
    WrongPhase,
)
from ledger.rules import RuleSet, rules_from_record

# PoolOpened's basis for a table recorded before tables kept their pool in their stream.
POOL_CARRIED_OVER = "carried over from the transfers recorded before the pool kept its own stream"


class Table(ChainedAggregate):
    MEMOS = ("_rules_cache",)  # the rule set built from ``rules_record`` (``rules``)
    # A snapshot taken before tables kept their pool has no ``pool``: read it as not open.
    # (Not annotated: eventsourcing would take it for a field of every instance.)
    pool = None
    shoe_restock = False  # likewise, for a snapshot taken before shoes were restocked
    deal_offer = None  # the open offer of the deal (VU-31); none in a snapshot taken before

    class ActedFor(ActedForBase):
        pass

    class Opened(ChainedAggregate.Created):
        name: str
        rules: dict[str, Any]
        actor: str

        def apply(self, table: Table) -> None:
            table.name = self.name
            table.rules_record = self.rules
            table.seats = {}  # seat number (str, for JSON) -> player id (str)
            table.dealer = None  # player id dealing (the buyer, after a sale)
            table.proper_dealer = None  # whose turn it is to deal by rotation (VU-31)
            table.shoe_id = None
            table.shoe_next = 0
            table.shoe_nonce = 0
            table.shoe_size = 0
            table.current_round = None
            table.rounds = 0
            table.rounds_this_deal = 0
            table.shoes_this_deal = 0
            table.shoe_dealer = None
            table.shoe_restock = False
            table.closed = False
            table.pool = None  # the pool's balance, from PoolOpened on (Vingt-un)

    class PlayerSeated(ChainedAggregate.Event):
        player_id: str
        seat: int
        actor: str

        def apply(self, table: Table) -> None:
            table.seats[str(self.seat)] = self.player_id

    class PlayerUnseated(ChainedAggregate.Event):
        player_id: str
        seat: int
        actor: str

        def apply(self, table: Table) -> None:
            table.seats.pop(str(self.seat), None)

    class DealerChosen(ChainedAggregate.Event):
        player_id: str
        method: str
        clause: str
        actor: str

        def apply(self, table: Table) -> None:
            table.dealer = self.player_id
            table.proper_dealer = self.player_id
            table.rounds_this_deal = 0
            table.shoes_this_deal = 0
            table.deal_offer = None  # an offer lapses when the deal changes hands

    class CutForDeal(ChainedAggregate.Event):
        player_id: str
        card: str
        shoe: UUID
        shoe_index: int
        clause: str

    class DealPassed(ChainedAggregate.Event):
        from_player: str
        to_player: str
        clause: str
        reason: str

        def apply(self, table: Table) -> None:
            table.dealer = self.to_player
            table.proper_dealer = self.to_player
            table.rounds_this_deal = 0
            table.shoes_this_deal = 0
            table.deal_offer = None

    class DealOffered(ChainedAggregate.Event):
        """VU-31, the seller's half of an agreed price: the dealer offers the deal to one
        seated player at ``price`` (an offer replaces any open one)."""

        seller: str
        buyer: str
        price: int
        clause: str
        actor: str

        def apply(self, table: Table) -> None:
            table.deal_offer = {"seller": self.seller, "buyer": self.buyer, "price": self.price}

    class DealOfferWithdrawn(ChainedAggregate.Event):
        """VU-31: the open offer ends unaccepted (withdrawn by the seller, declined by the
        buyer, or ended by an admin: ``actor``)."""

        seller: str
        buyer: str
        price: int
        clause: str
        actor: str

        def apply(self, table: Table) -> None:
            table.deal_offer = None

    class DealSold(ChainedAggregate.Event):
        """VU-31: the sale at the agreed price. ``actor`` is the buyer accepting the seller's
        offer (``DealOffered``), or an admin recording a sale agreed elsewhere."""

        seller: str
        buyer: str
        price: int
        clause: str
        actor: str

        def apply(self, table: Table) -> None:
            table.dealer = self.buyer
            table.deal_offer = None

    class PoolPaid(ChainedAggregate.Event):
        """VU-28: a payout from the table's pool, with the balance it was checked against.
        Recorded on the table so that two payouts never both spend one balance: the second
        to save conflicts on the table's version and is refused or tried again."""

        recipient: str
        amount: int
        balance: int  # the pool's balance before this payout
        reason: str
        clause: str
        actor: str

    class PoolOpened(ChainedAggregate.Event):
        """VU-27: from here on, every transfer of the table's pool is recorded in this
        stream. ``balance`` is 0 for a table opened with it; a table opened before the pool
        kept its own stream carries over the balance folded from its recorded transfers."""

        balance: int
        basis: str
        clause: str

        def apply(self, table: Table) -> None:
            table.pool = self.balance

    class FundsTransferred(FundsTransferredBase):
        def apply(self, table: Table) -> None:
            table.pool += self.change(table.pool_account)

    class ShoeChanged(ChainedAggregate.Event):
        shoe_id: UUID
        nonce: int
        size: int
        start: int

        def apply(self, table: Table) -> None:
            table.shoe_id = self.shoe_id
            table.shoe_nonce = self.nonce
            table.shoe_size = self.size
            table.shoe_next = self.start
            table.shoe_dealer = table.dealer
            # A shoe changed in play holds the used cards its round is completed from
            # (VU-29): not one of the deal's packs, and spent when that round ends.
            table.shoe_restock = table.current_round is not None
            if not table.shoe_restock:
                table.shoes_this_deal += 1

    class RoundOpened(ChainedAggregate.Event):
        round_id: UUID
        number: int

        def apply(self, table: Table) -> None:
            table.current_round = self.round_id
            table.rounds = self.number
            table.deal_offer = None  # an offer lapses when a round starts

    class RoundClosed(ChainedAggregate.Event):
        round_id: UUID
        shoe_id: UUID
        shoe_next: int

        def apply(self, table: Table) -> None:
            table.current_round = None
            table.shoe_id = self.shoe_id
            table.shoe_next = self.shoe_next
            table.rounds_this_deal += 1

    class Closed(ChainedAggregate.Event):
        actor: str

        def apply(self, table: Table) -> None:
            table.closed = True
            table.deal_offer = None  # an offer lapses when the table closes: no deal is left

    @classmethod
    def open(cls, name: str, rules: RuleSet, actor: str) -> Self:
        table = cls._create(cls.Opened, name=name, rules=rules.to_dict(), actor=actor)
        if table.family == "vingt-un":
            table.open_pool(0, "opened with the table")
        return table

    def open_pool(self, balance: int, basis: str) -> None:
        self.require_pool()
        if self.pool is not None:
            raise RuleViolation(f"the pool of table {self.id} is open already", "VU-27")
        self.trigger_event(self.PoolOpened, balance=balance, basis=basis, clause="VU-27")

    @property
    def pool_account(self) -> str:
        return accounts.pool(self.id)

    @property
    def rules(self) -> RuleSet:
        cached = self.__dict__.get("_rules_cache")
        if cached is None:
            cached = rules_from_record(self.rules_record)
            self.__dict__["_rules_cache"] = cached
        return cached

    @property
    def family(self) -> str:
        return self.rules_record["family"]

    def seat_of(self, player_id: str) -> int | None:
        for seat, pid in self.seats.items():
            if pid == player_id:
                return int(seat)
        return None

    def seated_in_order(self, first_after: str | None) -> list[tuple[int, str]]:
        """Players clockwise, starting on the left of ``first_after`` (a player id)."""
        ordered = sorted((int(s), p) for s, p in self.seats.items())
        start = self.seat_of(first_after) if first_after else None
        if start is None:
            return ordered
        return [sp for sp in ordered if sp[0] > start] + [sp for sp in ordered if sp[0] <= start]

    def player_left_of(self, player_id: str) -> str:
        others = self.seated_in_order(player_id)
        return others[0][1]

    def check_open(self) -> None:
        if self.closed:
            raise WrongPhase(f"table {self.id} is closed", None)

    def close(self, actor: str) -> None:
        self.check_open()
        if self.current_round is not None:
            raise WrongPhase("a table closes between rounds; settle the round first", None)
        self.trigger_event(self.Closed, actor=actor)

    def require_pool(self) -> None:
        if self.family != "vingt-un":
            raise RuleViolation("only a Vingt-un table keeps a pool", "VU-27")

    def pay_from_pool(self, recipient: str, amount: int, reason: str, actor: str) -> None:
        """Approve a payout of ``amount`` from the pool (VU-28); the money moves after."""
        self.require_pool()
        if self.pool is None:
            raise RuleViolation(f"the pool of table {self.id} is not open", "VU-27")
        if self.pool < amount:
            raise RuleViolation(f"the pool holds {self.pool}, not {amount}", "VU-28")
        self.trigger_event(
            self.PoolPaid,
            recipient=recipient,
            amount=amount,
            balance=self.pool,
            reason=reason,
            clause="VU-28",
            actor=actor,
        )

    def seat(self, player_id: str, seat: int, actor: str) -> None:
        self.check_open()
        rules = self.rules
        if self.seat_of(player_id) is not None:
            raise AlreadySeated(f"player {player_id} already sits at this table", None)
        if not 1 <= seat <= rules.max_players:
            # A bad value given, not a missing resource: 422 like any out-of-range number.
            raise InvalidCommand(
                f"seat must be 1 to {rules.max_players} at this table, got {seat}", None
            )
        if str(seat) in self.seats:
            raise AlreadySeated(f"seat {seat} is taken", None)
        self.trigger_event(self.PlayerSeated, player_id=player_id, seat=seat, actor=actor)

    def unseat(self, seat: int, actor: str) -> str:
        if str(seat) not in self.seats:
            raise UnknownSeat(f"nobody sits in seat {seat}", None)
        player_id = self.seats[str(seat)]
        if self.current_round is not None:
            raise WrongPhase("a player cannot leave during a round; wait until it is settled", None)
        if player_id in (self.dealer, self.proper_dealer):
            raise RuleViolation("the dealer cannot leave; pass the deal first", None)
        self.trigger_event(self.PlayerUnseated, player_id=player_id, seat=seat, actor=actor)
        return player_id
