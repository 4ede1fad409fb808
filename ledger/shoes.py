"""The shoe service: commits new shoes, cuts them, deals from them and reveals them.

It is the one place that touches secrets, so the domain only ever sees cards."""

from __future__ import annotations

import hashlib
import json
import random
import secrets
from collections import deque
from typing import Any
from uuid import UUID

from ledger import shuffle
from ledger.cards import is_card, packs_less
from ledger.domain.round import Round
from ledger.domain.shoe import FIXED_ALGORITHM, Shoe
from ledger.domain.table import Table
from ledger.errors import FixedShoeRefused, InvalidCommand
from ledger.vault import ShoeVault

FIXED_CLAUSE = "L-FIXED-SHOE"
BURN_CLAUSE = "CB-X-SHOE"

# Why a shoe was retired, as its Shoe.Revealed records it (the audit tells who caused a reveal
# by these words: one spelling each, here).
RETIRED_TABLE_CLOSED = "the table closed"
RETIRED_USED_UP = "used up mid-round"
RETIRED_BEFORE_ROUND = "shoe retired before a round"
RETIRED_CUT_REPLACED = "replaced by a cut for the deal"
RETIRED_CUT_FOR_DEAL = "cut for the deal"


def fixed_commitment(order: list[str]) -> str:
    return hashlib.sha256(json.dumps(order, separators=(",", ":")).encode()).hexdigest()


class DecidedBeforeTheCard(Exception):
    """A dry run's decision needs a card from a new shoe: it is accepted by then (no refusal
    waits on a card, and a round that runs out is completed from the used cards, VU-29), and
    making the shoe would seal a secret in the vault and draw on the shuffle's randomness
    for a save that never comes."""


class ShoeService:
    def __init__(self, vault: ShoeVault, allow_fixed: bool) -> None:
        self.vault = vault
        self.allow_fixed = allow_fixed
        # Seeds and cuts come from ``secrets``. A simulation may set a ``random.Random`` here
        # to repeat its runs; such seeds are predictable, so those shoes never deal for money.
        self.rng: random.Random | None = None
        self._fixed: dict[str, deque[list[str]]] = {}
        self._orders: dict[UUID, tuple[str, ...]] = {}

    def queue_fixed(self, table_id: UUID, order: list[str]) -> None:
        """Test scenarios only: the next shoe of this table deals exactly ``order``."""
        if not self.allow_fixed:
            raise FixedShoeRefused(
                "fixed shoes are for tests; this configuration refuses them "
                "(set LEDGER_ALLOW_FIXED_SHOES=true outside production)",
                FIXED_CLAUSE,
            )
        bad = [c for c in order if not is_card(c)]
        if bad or not order:
            raise InvalidCommand(f"a fixed shoe needs card codes like 'TH'; bad: {bad[:3]}")
        self._fixed.setdefault(str(table_id), deque()).append(list(order))

    def new_shoe(
        self,
        table: Table,
        cutter: str,
        clause: str,
        uow: Any,
        cut: int | None = None,
        stock: list[str] | None = None,
        chooser: str = "",
    ) -> Shoe:
        """A shoe committed and cut for ``table``: a whole one, or one of the used cards
        ``stock`` (VU-29). A test shoe queued for the table comes first, whichever is asked.
        The cut is at ``cut``, which ``chooser`` (the command's actor) gave, else at random."""
        rules = table.rules
        nonce = table.shoe_nonce + 1
        key = str(table.id)
        fixed = self._fixed.get(key)
        taken = uow.taken.get(key, 0)
        if fixed and len(fixed) > taken:
            order = fixed[taken]  # released from the queue only if the command succeeds
            uow.taken[key] = taken + 1
            if taken == 0:
                uow.after_save.append(lambda: self._release_fixed(key, uow.taken[key]))
            shoe = Shoe.commit(
                table_id=table.id,
                nonce=nonce,
                packs=rules.packs,
                commitment=fixed_commitment(order),
                client_seed=rules.client_seed,
                algorithm=FIXED_ALGORITHM,
                fixed=True,
                clause=FIXED_CLAUSE,
                actor="ledger",
            )
            self._seal(uow, shoe.id, "", order)
            shoe.cut_by(0, cutter, clause, chosen_by="fixed")
            self._orders[shoe.id] = tuple(order)
            size = len(order)
        else:
            seed = (
                shuffle.new_server_seed()
                if self.rng is None
                else self.rng.getrandbits(256).to_bytes(32, "big").hex()
            )
            shoe = Shoe.commit(
                table_id=table.id,
                nonce=nonce,
                packs=rules.packs,
                commitment=shuffle.commitment(seed),
                client_seed=rules.client_seed,
                algorithm=shuffle.ALGORITHM,
                fixed=False,
                clause=clause,
                actor="ledger",
                stock=stock,
            )
            self._seal(uow, shoe.id, seed, [])
            if cut is not None:
                k, chosen_by = cut, chooser
            else:
                k = (
                    secrets.randbelow(shoe.size)
                    if self.rng is None
                    else self.rng.randrange(shoe.size)
                )
                chosen_by = "ledger"
            shoe.cut_by(k, cutter, clause, chosen_by)
            size = shoe.size
        table.trigger_event(Table.ShoeChanged, shoe_id=shoe.id, nonce=nonce, size=size, start=0)
        return shoe

    def _seal(self, uow: Any, shoe_id: UUID, seed: str, order: list[str]) -> None:
        """The secret goes to the vault before the commitment to the ledger, so a shoe the
        ledger records never lacks it; a save that the ledger refuses takes it back."""
        uow.before_save.append(self.vault.prepare(shoe_id, seed, order))
        uow.if_refused.append(lambda: self._discard(shoe_id, uow.app.recorder))

    def _discard(self, shoe_id: UUID, recorder: Any) -> None:
        self._orders.pop(shoe_id, None)
        # A refused save wrote nothing; but the one thing worse than an unused seed is a
        # recorded shoe without one, so it is checked, at the cost of a read in a rare case.
        if not recorder.select_events(shoe_id, limit=1):
            self.vault.discard(shoe_id)

    def _release_fixed(self, key: str, count: int) -> None:
        for _ in range(count):
            self._fixed[key].popleft()

    def order(self, shoe: Shoe | UUID, loader: Any = None) -> tuple[str, ...]:
        shoe_id = shoe if isinstance(shoe, UUID) else shoe.id
        cached = self._orders.get(shoe_id)
        if cached is not None:
            return cached
        if isinstance(shoe, UUID):
            shoe = loader(shoe_id)
        sealed = self.vault.open(shoe_id)
        if sealed.fixed_order:
            order = tuple(sealed.fixed_order)
        else:
            order = shuffle.dealing_order(
                sealed.server_seed,
                shoe.client_seed,
                shoe.nonce,
                shoe.packs,
                shoe.cut_at,
                None if shoe.stock is None else tuple(shoe.stock),
            )
        self._orders[shoe_id] = order
        return order

    def retire(self, shoe: Shoe, cards_dealt: int, reason: str) -> None:
        sealed = self.vault.open(shoe.id)
        shoe.reveal(sealed.server_seed, list(sealed.fixed_order), cards_dealt, reason)
        self._orders.pop(shoe.id, None)


class RoundCards:
    """The card source for one command: deals from the round's shoe and, when it runs out
    mid-round, completes the round from the used cards (VU-29): every card of the table's
    packs but those on the table in this round, committed, shuffled and cut as a shoe of
    their own. Between rounds a shoe is replaced whole (``round_start``)."""

    def __init__(
        self, service: ShoeService, uow: Any, table: Table, cutter: str, clause: str
    ) -> None:
        self.service = service
        self.uow = uow
        self.table = table
        self.cutter = cutter
        self.clause = clause

    def next_card(self, rnd: Round) -> tuple[str, UUID, int]:
        order = self.service.order(rnd.shoe_id, self.uow.shoe)
        index = rnd.shoe_next
        if index >= len(order):
            if self.uow.dry:
                raise DecidedBeforeTheCard
            old = self.uow.shoe(rnd.shoe_id)
            self.service.retire(old, index, RETIRED_USED_UP)
            table = self.uow.table(self.table.id)
            stock = used_cards(table.rules.packs, rnd)
            shoe = self.service.new_shoe(table, self.cutter, self.clause, self.uow, stock=stock)
            self.uow.add(shoe)
            rnd.trigger_event(Round.ShoeReplaced, shoe=shoe.id, shoe_next=0, clause=self.clause)
            order = self.service.order(shoe)
            self.burn(rnd, shoe)
            index = rnd.shoe_next
        return order[index], rnd.shoe_id, index

    def burn(self, rnd: Round, shoe: Shoe) -> None:
        """After a shuffle, a casino table's ``burn`` cards go face down to the discard (never
        a fixed test shoe's, nor the last card of a short one)."""
        rules = self.uow.table(self.table.id).rules
        if not rules.house_banked or shoe.fixed:
            return
        for _ in range(min(rules.burn, shoe.size - 1)):
            card, shoe_id, index = self.next_card(rnd)
            rnd.trigger_event(
                Round.CardBurned, card=card, shoe=shoe_id, shoe_index=index, clause=BURN_CLAUSE
            )


def used_cards(packs: int, rnd: Round) -> list[str]:
    """The table's packs in their unshuffled order, less one of each card in a hand of
    ``rnd`` (a player's or the dealer's): what is left to complete the round from."""
    hands = [*rnd.hands.values(), *map(rnd.rules_hand, rnd.dealer_hand_ids())]
    return packs_less(packs, (card for hand in hands for card in hand["cards"]))
