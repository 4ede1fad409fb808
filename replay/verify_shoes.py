"""``replay verify``: the shoes and their cards as the one pass reads them, held at the end to
the shuffle (``replay.verify_shuffle``) and to the order of the log (``replay.verify_shoe_log``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from replay.verify_report import OnFault, Where
from replay.verify_shoe_log import check_fixed_first, check_retired, check_table_records
from replay.verify_shuffle import ShoeRecord, check_algorithms, check_cards, check_stocks


class ShoesAndCards:
    """Fed the shoes', cards' and shoe changes' events of the one pass; ``finish`` calls
    ``fault(where, problem)`` for each card or shoe that does not hold."""

    def __init__(self, fault: OnFault) -> None:
        self.fault = fault
        self.shoes: dict[str, ShoeRecord] = {}
        self.cards: list[tuple[Where, str, int, str]] = []  # dealt, burned or cut, in order
        self.in_hands: dict[str, Counter[str]] = defaultdict(Counter)  # cards in a round's hands
        self.replaced: list[tuple[Where, str, str, Counter[str]]] = []  # ShoeReplaced
        self.table_shoe: dict[str, str] = {}  # each table's shoe in use
        self.shoe_replaced: dict[str, tuple[Where, str]] = {}  # by the ShoeChanged, to shoe
        self.table_closed: dict[str, Where] = {}
        # A shoe's events read before its commitment (which is then out of order in its
        # stream, a fault of the chain): kept for it, so only that fault is named.
        self.early: dict[str, list[tuple[Any, Where, Any]]] = defaultdict(list)
        self.placed: dict[str, Any] = {}  # each shoe's ShoeChanged (start, size), by shoe
        self.reveal_reason: dict[str, str] = {}  # each revealed shoe's, as its reveal says it

    def card(self, where: Where, stream: str, event: Any, dealt: bool) -> None:
        """A card dealt (into a hand of the round ``stream``), burned or cut for the deal."""
        self.cards.append((where, str(event.shoe), event.shoe_index, event.card))
        if dealt:
            self.in_hands[stream][event.card] += 1

    def rejected(self, stream: str, card: str) -> None:
        """A card a hand gave back (``Round.TwoCardsResolved``)."""
        self.in_hands[stream][card] -= 1

    def shoe_replaced_in(self, where: Where, stream: str, event: Any) -> None:
        """A round's shoe ran out (``Round.ShoeReplaced``): the new one holds the table's
        packs less the cards in the round's hands."""
        self.replaced.append((where, stream, str(event.shoe), +self.in_hands[stream]))

    def committed(self, where: Where, stream: str, event: Any) -> None:
        shoe = self.shoes[stream] = ShoeRecord.committed_by(event, where)
        if stream in self.placed:
            shoe.start, shoe.size = self.placed[stream]
        for apply, early_where, early_event in self.early.pop(stream, ()):
            apply(early_where, stream, early_event)

    def cut(self, where: Where, stream: str, event: Any) -> None:
        shoe = self.shoes.get(stream)
        if shoe is None:
            self.early[stream].append((self.cut, where, event))
            return
        shoe.cut = event.cut
        shoe.cut_where = where

    def revealed(self, where: Where, stream: str, event: Any) -> None:
        shoe = self.shoes.get(stream)
        if shoe is None:
            self.early[stream].append((self.revealed, where, event))
            return
        shoe.revealed = where
        shoe.server_seed = event.server_seed
        shoe.fixed_order = list(event.fixed_order)
        shoe.cards_dealt = event.cards_dealt
        self.reveal_reason[stream] = event.reason

    def shoe_changed(self, where: Where, table: str, event: Any) -> None:
        shoe_id = str(event.shoe_id)
        previous = self.table_shoe.get(table)
        if previous is not None and previous != shoe_id:
            self.shoe_replaced.setdefault(previous, (where, shoe_id))
        self.table_shoe[table] = shoe_id
        self.placed[shoe_id] = (event.start, event.size)
        if shoe_id in self.shoes:
            shoe = self.shoes[shoe_id]
            shoe.start, shoe.size = event.start, event.size

    def table_closed_at(self, where: Where, table: str) -> None:
        self.table_closed.setdefault(table, where)

    def finish(self) -> None:
        check_algorithms(self.shoes, self.fault)
        check_cards(self.shoes, self.cards, self.fault)
        check_fixed_first(self.shoes, self.cards, self.fault)
        check_retired(self.shoes, self.shoe_replaced, self.table_closed, self.fault)
        check_table_records(
            self.shoes, self.placed.keys(), self.reveal_reason, self.table_closed, self.fault
        )
        check_stocks(self.shoes, self.replaced, self.fault)

    def summary(self, table: str | None) -> tuple[int, int, list[dict[str, Any]]]:
        """The shoes checked, the cards checked and the shoes not yet revealed (with their
        cards waiting), of every table or only of ``table``."""
        shoes = self.shoes
        if table is not None:
            shoes = {k: v for k, v in shoes.items() if v.table == table}
        waiting: dict[str, int] = defaultdict(int)
        for _, shoe_id, _, _ in self.cards:
            shoe = shoes.get(shoe_id)
            if shoe is not None and shoe.revealed is None:
                waiting[shoe_id] += 1
        checked = sum(
            1
            for _, shoe_id, _, _ in self.cards
            if shoe_id in shoes and shoes[shoe_id].revealed is not None
        )
        unrevealed = [
            {"shoe": k, "table": v.table, "cards": waiting.get(k, 0)}
            for k, v in shoes.items()
            if v.revealed is None
        ]
        return sum(1 for s in shoes.values() if s.revealed is not None), checked, unrevealed
