"""``replay verify``: what only the order of the log shows about a shoe (SHUFFLE.md).

- The shuffle is fixed before the deal: a shoe's commitment and its cut (which orders the
  deal) are recorded before the first card drawn from it, dealt, burned or cut for the deal.
  A hash chain cannot show a commitment written after the cards; the positions can.
- A retired shoe is revealed: when its table closed, or another shoe took its place at the
  table (``Table.ShoeChanged``: between rounds, mid-round for the used cards, VU-29, or a cut
  for the deal), the shoe must have its ``Shoe.Revealed``. Withholding the reveal would stop
  every card check, so a missing one is a fault; a shoe still in use at an open table simply
  waits for it.
- The table records its shoes: a shoe is committed in the write that puts it in use at its
  table (``Table.ShoeChanged``), and a shoe revealed because its table closed was revealed in
  the write that closed the table (``Table.Closed``). A table's last events dropped leave
  those shoes' events behind, which name what is missing.

Each function calls ``fault(where, problem)`` for what does not hold.
"""

from __future__ import annotations

from collections.abc import Collection

from ledger.shoes import RETIRED_TABLE_CLOSED
from replay.verify_report import OnFault, Where
from replay.verify_shuffle import ShoeRecord


def describe(where: Where) -> str:
    return f"{where.type} v{where.version} of stream {where.stream}, position {where.position}"


def check_fixed_first(
    shoes: dict[str, ShoeRecord], cards: list[tuple[Where, str, int, str]], fault: OnFault
) -> None:
    """Each shoe's commitment and cut against the first of ``cards`` (in the order of the log)
    drawn from it; named at the commitment or cut recorded too late."""
    first: dict[str, Where] = {}
    for where, shoe_id, _, _ in cards:
        first.setdefault(shoe_id, where)
    for shoe_id, card in first.items():
        shoe = shoes.get(shoe_id)
        if shoe is None:
            continue  # a card of a shoe never committed: check_cards names it
        drawn = f"shoe {shoe_id}'s first card ({describe(card)})"
        if shoe.committed.position > card.position:
            fault(
                shoe.committed,
                f"the commitment was recorded after {drawn}: the shuffle was not fixed "
                "before the deal",
            )
        if shoe.cut_where is None:
            fault(
                card,
                f"shoe {shoe_id} has no cut, yet a card was drawn from it: the dealing order "
                "was not fixed before the deal",
            )
        elif shoe.cut_where.position > card.position:
            fault(
                shoe.cut_where,
                f"the cut was recorded after {drawn}: the dealing order was not fixed before "
                "the deal",
            )


def check_retired(
    shoes: dict[str, ShoeRecord],
    replaced: dict[str, tuple[Where, str]],
    closed: dict[str, Where],
    fault: OnFault,
) -> None:
    """Every shoe that ``replaced`` (shoe id -> the table's ``ShoeChanged`` that put another
    shoe in its place, and that shoe) or whose table ``closed`` (table id -> its
    ``Table.Closed``) retired has its reveal; named at the event that retired it."""
    for shoe_id, shoe in shoes.items():
        if shoe.revealed is not None:
            continue
        if shoe_id in replaced:
            where, successor = replaced[shoe_id]
            fault(
                where,
                f"shoe {successor} replaced shoe {shoe_id} at the table, which was never "
                "revealed (no Shoe.Revealed): its cards cannot be checked",
            )
        elif shoe.table in closed:
            fault(
                closed[shoe.table],
                f"the table closed, but its shoe {shoe_id} was never revealed (no "
                "Shoe.Revealed): its cards cannot be checked",
            )


def check_table_records(
    shoes: dict[str, ShoeRecord],
    put_in_use: Collection[str],
    reasons: dict[str, str],
    closed: dict[str, Where],
    fault: OnFault,
) -> None:
    """Every shoe has the ``Table.ShoeChanged`` that put it in use (``put_in_use``: the shoes
    some ``ShoeChanged`` names), and a shoe whose reveal says the table closed (``reasons``:
    each revealed shoe's reason) has its table's ``Table.Closed`` (``closed``: by table);
    named at the shoe's own event."""
    for shoe_id, shoe in shoes.items():
        if shoe_id not in put_in_use:
            fault(
                shoe.committed,
                f"table {shoe.table}'s Table.ShoeChanged for shoe {shoe_id} is missing: the "
                f"shoe was committed for the table at position {shoe.committed.position}, and "
                "a shoe is put in use at its table in the same write",
            )
        revealed = shoe.revealed
        if (
            revealed is not None
            and reasons.get(shoe_id) == RETIRED_TABLE_CLOSED
            and shoe.table not in closed
        ):
            fault(
                revealed,
                f"table {shoe.table}'s Table.Closed is missing: shoe {shoe_id} was revealed "
                f"because the table closed (its reveal is at position {revealed.position}), "
                "and a table's shoe is revealed in the write that closes it",
            )
