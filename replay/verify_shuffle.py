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
from ledger.shoes import fixed_commitment
from ledger.shuffle import dealing_order, verify_seed
from replay.verify_report import OnFault, Where


@dataclass
class ShoeRecord:
    committed: Where
    table: str
    commitment: str
    client_seed: str
    nonce: int
    packs: int
    fixed: bool
    stock: list[str] | None = None  # a shoe of the used cards (VU-29)
    cut: int | None = None
    cut_where: Where | None = None
    revealed: Where | None = None
    server_seed: str = ""
    fixed_order: list[str] = field(default_factory=list)
    cards_dealt: int | None = None  # as its reveal records it
    start: int = 0  # its first place, as the table's ShoeChanged records it

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
            stock=event.stock,
        )


def shoe_order(shoe: ShoeRecord, fault: OnFault) -> tuple[str, ...] | None:
    """The dealing order of a revealed shoe, or None (and a fault) when its seed or fixed
    order does not match the commitment or the shoe cannot be rebuilt."""
    where = shoe.revealed
    assert where is not None
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
    # were re-ordered, not removed), and then only the late card is named.
    gaps: list[tuple[Where, str, set[int]]] = []  # (where, problem, places still missing)
    missing: dict[tuple[str, int], set[int]] = {}  # each missing place -> its gap's places
    for where, shoe_id, index, card in cards:
        shoe = shoes.get(shoe_id)
        if shoe is None:
            fault(where, f"card {card} names shoe {shoe_id}, never committed")
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
            missing.pop((shoe_id, index), set()).discard(index)
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
            places = set(range(expected, index))
            gaps.append((where, problem, places))
            missing.update(((shoe_id, place), places) for place in places)
        used[(shoe_id, index)] = where
        following[shoe_id] = max(expected, index + 1)
        if shoe_id not in orders:
            continue
        order = orders[shoe_id]
        if not 0 <= index < len(order):
            fault(where, f"shoe {shoe_id} has no place {index}")
        elif order[index] != card:
            fault(
                where,
                f"card {card} at place {index} of shoe {shoe_id}; the shuffle gives {order[index]}",
            )
    for where, problem, places in gaps:
        if places:  # some place of the gap was never drawn
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
