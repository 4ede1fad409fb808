"""A shoe: committed before its first card, cut by a player, revealed when retired
(SHUFFLE.md). The secret seed never enters this stream before the reveal."""

from __future__ import annotations

from typing import Self
from uuid import UUID

from ledger.domain.acted_for import ActedForBase
from ledger.domain.chain import ChainedAggregate
from ledger.errors import RuleViolation

FIXED_ALGORITHM = "fixed-order-test-only"


class Shoe(ChainedAggregate):
    class ActedFor(ActedForBase):
        pass

    class Committed(ChainedAggregate.Created):
        table_id: UUID
        nonce: int
        packs: int
        commitment: str
        client_seed: str
        algorithm: str
        fixed: bool
        clause: str
        actor: str
        # The used cards a round that ran out is completed from (VU-29), in the unshuffled
        # shoe's order; None for a whole shoe. Absent from shoes committed before it existed.
        stock: list[str] | None = None

        def apply(self, shoe: Shoe) -> None:
            shoe.table_id = self.table_id
            shoe.nonce = self.nonce
            shoe.packs = self.packs
            shoe.commitment = self.commitment
            shoe.client_seed = self.client_seed
            shoe.algorithm = self.algorithm
            shoe.fixed = self.fixed
            shoe.stock = self.stock
            shoe.cut_at = None
            shoe.revealed = False
            shoe.server_seed = None

    class Cut(ChainedAggregate.Event):
        cut: int
        by: str  # the player whose cut it is by the rules (the pone), whoever chose it
        clause: str
        # Who chose the place: the actor who gave it with his command (an admin, the
        # dealer), "ledger" when it was drawn at random, "fixed" for a test shoe's; "" on
        # cuts recorded before this was kept.
        chosen_by: str = ""

        def apply(self, shoe: Shoe) -> None:
            shoe.cut_at = self.cut

    class Revealed(ChainedAggregate.Event):
        server_seed: str
        fixed_order: list[str]
        cards_dealt: int
        reason: str

        def apply(self, shoe: Shoe) -> None:
            shoe.revealed = True
            shoe.server_seed = self.server_seed

    @classmethod
    def commit(
        cls,
        *,
        table_id: UUID,
        nonce: int,
        packs: int,
        commitment: str,
        client_seed: str,
        algorithm: str,
        fixed: bool,
        clause: str,
        actor: str,
        stock: list[str] | None = None,
    ) -> Self:
        if stock is not None and not stock:
            raise RuleViolation("no used cards are left to complete the round from", clause)
        return cls._create(
            cls.Committed,
            table_id=table_id,
            nonce=nonce,
            packs=packs,
            commitment=commitment,
            client_seed=client_seed,
            algorithm=algorithm,
            fixed=fixed,
            clause=clause,
            actor=actor,
            stock=stock,  # always given: the event's hash covers what it stores
        )

    @property
    def size(self) -> int:
        return 52 * self.packs if self.stock is None else len(self.stock)

    def cut_by(self, k: int, by: str, clause: str, chosen_by: str) -> None:
        if self.cut_at is not None:
            raise RuleViolation("this shoe has already been cut", clause)
        if not 0 <= k < self.size:
            raise RuleViolation(f"cut must be 0 to {self.size - 1}, got {k}", clause)
        self.trigger_event(self.Cut, cut=k, by=by, clause=clause, chosen_by=chosen_by)

    def reveal(
        self, server_seed: str, fixed_order: list[str], cards_dealt: int, reason: str
    ) -> None:
        if self.revealed:
            return
        self.trigger_event(
            self.Revealed,
            server_seed=server_seed,
            fixed_order=fixed_order,
            cards_dealt=cards_dealt,
            reason=reason,
        )
