"""``replay verify``: the shoes against their commitments and the cards against the shuffle.

A revealed shoe's seed must match its commitment (a fixed test shoe: the SHA-256 of its order),
every dealt, burned or cut card must be the card at its place of the shoe's dealing order, the
places drawn from a shoe must run on from its start without a gap or a repeat (and, once it is
revealed, to the number of cards its reveal says were dealt), and a shoe of used cards (VU-29)
must hold the table's packs less the cards in the hands of the round that ran out. Each
function calls ``fault(where, problem)`` for what does not hold.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ledger.cards import packs_less, unshuffled
from ledger.domain.shoe import FIXED_ALGORITHM
from ledger.shoes import fixed_commitment
from ledger.shuffle import ALGORITHM, dealing_order, verify_seed
from replay.verify_report import OnFault, Where

# The most packs a table deals from (a casino table's ``decks``, 1 to 8: ledger.rules.casino).
# A shoe said to hold more was not committed by the ledger, and is not rebuilt: its cards
# would take memory in proportion to the number forged.
MOST_PACKS = 8


@dataclass
class ShoeRecord:
    committed: Where
    table: str
    commitment: str
    client_seed: str
    nonce: int
    packs: int
    fixed: bool
    algorithm: str
    stock: list[str] | None = None  # a shoe of the used cards (VU-29)
    cut: int | None = None
    cut_where: Where | None = None
    revealed: Where | None = None
    server_seed: str = ""
    fixed_order: list[str] = field(default_factory=list)
    cards_dealt: int | None = None  # as its reveal records it
    start: int = 0  # its first place, as the table's ShoeChanged records it
    size: int | None = None  # its cards, as the table's ShoeChanged records them

    @property
    def places(self) -> int | None:
        """How many places the shoe has: as its table recorded it, else as its commitment
        says (a fixed test shoe's order is known only from its reveal)."""
        if self.size is not None:
            return self.size
        if self.stock is not None:
            return len(self.stock)
        return None if self.fixed else 52 * self.packs

    @classmethod
    def committed_by(cls, event: Any, where: Where) -> ShoeRecord:
        return cls(
            committed=where,
            table=str(event.table_id),
            commitment=event.commitment,
            client_seed=event.client_seed,
            nonce=event.nonce,
            packs=event.packs,
            fixed=event.fixed,
            algorithm=event.algorithm,
            stock=event.stock,
        )


def check_algorithms(shoes: dict[str, ShoeRecord], fault: OnFault) -> None:
    """Every shoe names the algorithm SHUFFLE.md gives (a fixed test shoe, its own) and a
    number of packs a table deals from; named at its commitment."""
    for shoe in shoes.values():
        wanted = FIXED_ALGORITHM if shoe.fixed else ALGORITHM
        if shoe.algorithm != wanted:
            fault(
                shoe.committed,
                f"the commitment names the algorithm {shoe.algorithm!r}, not {wanted!r}, the "
                f"one SHUFFLE.md gives{' a fixed test shoe' if shoe.fixed else ''}",
            )
        if not 1 <= shoe.packs <= MOST_PACKS:
            fault(
                shoe.committed,
                f"the commitment says the shoe holds {shoe.packs} packs; a table deals from 1 "
                f"to {MOST_PACKS}",
            )


def shoe_order(shoe: ShoeRecord, fault: OnFault) -> tuple[str, ...] | None:
    """The dealing order of a revealed shoe, or None (and a fault) when its seed or fixed
    order does not match the commitment or the shoe cannot be rebuilt."""
    where = shoe.revealed
    assert where is not None
    if not 1 <= shoe.packs <= MOST_PACKS:  # named at its commitment (check_algorithms)
        return None
    if shoe.fixed:
        if fixed_commitment(shoe.fixed_order) != shoe.commitment:
            fault(where, "the revealed fixed order does not match the commitment")
            return None
        return tuple(shoe.fixed_order)
    if not verify_seed(shoe.server_seed, shoe.commitment):
        fault(where, "the revealed seed does not match the commitment")
        return None
    stock = None if shoe.stock is None else tuple(shoe.stock)
    if stock is not None and Counter(stock) - Counter(unshuffled(shoe.packs)):
        fault(shoe.committed, "the used cards hold a card the table's packs do not")
        return None
    try:
        return dealing_order(
            shoe.server_seed, shoe.client_seed, shoe.nonce, shoe.packs, shoe.cut or 0, stock
        )
    except ValueError as error:
        fault(where, f"the shoe cannot be rebuilt: {error}")
        return None


def check_cards(
    shoes: dict[str, ShoeRecord], cards: list[tuple[Where, str, int, str]], fault: OnFault
) -> None:
    """Every card (where, shoe id, place, card), in the order of the log, against its revealed
    shoe's order. Every shoe, revealed or not, deals its places one after another from its
    start: a place skipped means a card's event was removed (its stream renumbered and
    re-hashed leaves no trace in the chain), a place drawn again a card forged."""
    orders: dict[str, tuple[str, ...]] = {}
    for shoe_id, shoe in shoes.items():
        if shoe.revealed is None:
            continue
        order = shoe_order(shoe, fault)
        if order is not None:
            orders[shoe_id] = order
    used: dict[tuple[str, int], Where] = {}
    following: dict[str, int] = {}  # each shoe's next place to draw
    # A gap is named once the log is read: a place drawn late fills it (the cards' events
    # were re-ordered, not removed), and then only the late card is named. Its places are
    # kept as a range, those drawn late as a set: nothing in proportion to a forged place.
    gaps: list[tuple[Where, str, range, set[int]]] = []  # (where, problem, places, drawn late)
    open_gaps: dict[str, list[tuple[range, set[int]]]] = {}  # each shoe's
    for where, shoe_id, index, card in cards:
        shoe = shoes.get(shoe_id)
        if shoe is None:
            fault(where, f"card {card} names shoe {shoe_id}, never committed")
            continue
        size = shoe.places
        if index < 0 or (size is not None and index >= size):
            held = "" if size is None else f" of {size} cards"
            fault(where, f"shoe {shoe_id} place {index} is outside the shoe{held} (card {card})")
            continue
        expected = following.get(shoe_id, shoe.start)
        earlier = used.get((shoe_id, index))
        if earlier is not None:
            fault(
                where,
                f"shoe {shoe_id} place {index} was already dealt at position {earlier.position}",
            )
        elif index < expected:
            fault(
                where,
                f"shoe {shoe_id} place {index} is drawn after place {expected - 1}: the cards' "
                "events are out of order",
            )
            for places, late in open_gaps.get(shoe_id, ()):
                if index in places:
                    late.add(index)
                    break
        elif index > expected:
            problem = missing_places(shoe_id, expected, index, f"place {index} was")
            before = used.get((shoe_id, expected - 1))
            if before is not None:
                # The gap is named at the card after it, which may be the next round's: the
                # card before it names the other round that may have lost the card.
                problem += (
                    f", between place {expected - 1} ({before.type} v{before.version} of "
                    f"stream {before.stream}, position {before.position}) and this card"
                )
            gap = (range(expected, index), set[int]())
            gaps.append((where, problem, *gap))
            open_gaps.setdefault(shoe_id, []).append(gap)
        used[(shoe_id, index)] = where
        following[shoe_id] = max(expected, index + 1)
        if shoe_id not in orders:
            continue
        order = orders[shoe_id]
        if index >= len(order):
            fault(where, f"shoe {shoe_id} has no place {index}")
        elif order[index] != card:
            fault(
                where,
                f"card {card} at place {index} of shoe {shoe_id}; the shuffle gives {order[index]}",
            )
    for where, problem, places, late in gaps:
        if len(late) < len(places):  # some place of the gap was never drawn
            fault(where, problem)
    for shoe_id, shoe in shoes.items():
        # The reveal counts the cards dealt: fewer in the log means the last were removed.
        drawn = following.get(shoe_id, shoe.start)
        dealt = shoe.cards_dealt
        if shoe.revealed is None or dealt is None or dealt == drawn:
            continue
        if dealt > drawn:
            fault(
                shoe.revealed,
                missing_places(shoe_id, drawn, dealt, f"its reveal counts {dealt} dealt"),
            )
        else:
            fault(
                shoe.revealed,
                f"its reveal counts {dealt} cards dealt from shoe {shoe_id}, the log draws {drawn}",
            )


def missing_places(shoe_id: str, first: int, end: int, because: str) -> str:
    """A fault's words for the places ``first`` to ``end - 1`` of a shoe that no card took."""
    if end - first == 1:
        places = f"place {first} was"
    else:
        places = f"places {first} to {end - 1} were"
    return f"shoe {shoe_id} {places} never drawn, though {because}: a card's event is missing"


def check_stocks(
    shoes: dict[str, ShoeRecord],
    replaced: list[tuple[Where, str, str, Counter[str]]],
    fault: OnFault,
) -> None:
    """A shoe of used cards (VU-29) holds the table's packs less one of each card in the
    hands of the round that ran out, in the unshuffled order (``ledger.cards.packs_less``)."""
    named: set[str] = set()
    for where, rid, shoe_id, in_hands in replaced:
        named.add(shoe_id)
        shoe = shoes.get(shoe_id)
        if shoe is None:
            fault(where, f"the round's new shoe {shoe_id} was never committed")
            continue
        if not 1 <= shoe.packs <= MOST_PACKS:
            continue  # named at its commitment (check_algorithms)
        if shoe.stock is None or list(shoe.stock) != packs_less(shoe.packs, in_hands):
            fault(
                shoe.committed,
                f"the used cards are not the table's {shoe.packs} pack(s) less the cards "
                f"in the hands of round {rid} when it replaced its shoe (v{where.version})",
            )
    for shoe_id, shoe in shoes.items():
        if shoe.stock is not None and shoe_id not in named:
            fault(
                shoe.committed,
                "a shoe of used cards no round replaced its shoe with",
            )
