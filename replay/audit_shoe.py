"""The shoe of an audited round: its commitment, cut and, once revealed, its seed, with every
card the round dealt or burned from it checked against the shuffle (``replay.verify_shuffle``'s
rules); when and where in the log each was recorded, and whether the commitment and the cut
were recorded before the round's first card from the shoe (SHUFFLE.md: the shuffle is fixed
before the deal)."""

from __future__ import annotations

from typing import Any

from ledger.domain.shoe import Shoe
from replay.audit_events import event_entry, type_name, utc
from replay.verify_report import Where
from replay.verify_shuffle import ShoeRecord, shoe_order

NOT_YET_REVEALED = "not yet revealed"


def shoe_audit(
    shoe_id: str,
    events: list[Any],
    cards: list[tuple[Any, str, int, str]],
    positions: dict[int, int] | None = None,
    card_positions: dict[int, int] | None = None,
) -> dict:
    """The shoe's commitment (from its stream's ``events``, whose log positions by version
    are ``positions``) and, once revealed, every card of ``cards`` (event, shoe id, place,
    card) of this shoe checked against the shuffle (``replay.verify_shuffle``); whether the
    commitment precedes the first of those cards in the log (``card_positions``: the round's
    events' positions by version)."""
    positions = positions or {}
    committed = next(e for e in events if isinstance(e, Shoe.Committed))
    cut = next((e for e in events if isinstance(e, Shoe.Cut)), None)
    where = Where(0, shoe_id, committed.originator_version, "Committed")
    record = ShoeRecord.committed_by(committed, where)
    for e in events:
        if isinstance(e, Shoe.Cut):
            record.cut = e.cut
        elif isinstance(e, Shoe.Revealed):
            record.revealed = Where(0, shoe_id, e.originator_version, "Revealed")
            record.server_seed = e.server_seed
            record.fixed_order = list(e.fixed_order)
    mine = [c for c in cards if c[1] == shoe_id]
    out: dict[str, Any] = {
        "shoe_id": shoe_id,
        "commitment": record.commitment,
        "client_seed": record.client_seed,
        "nonce": record.nonce,
        "packs": record.packs,
        "stock": record.stock,  # the used cards a round ran out into (VU-29), else None
        "algorithm": committed.algorithm,
        "fixed": record.fixed,
        "cut": record.cut,
        "revealed": record.revealed is not None,
        "server_seed": record.server_seed or None,
        "cards_of_this_round": len(mine),
        "recorded": recorded(events, positions),
        "committed_before_deal": committed_before_deal(
            positions.get(committed.originator_version),
            mine,
            card_positions or {},
            cut=None if cut is None else positions.get(cut.originator_version),
        ),
        "events": [event_entry(e, positions.get(e.originator_version)) for e in events],
    }
    if record.revealed is None:
        out["check"] = {"status": NOT_YET_REVEALED, "ok": None, "cards": []}
        return out
    problems: list[str] = []
    order = shoe_order(record, lambda where, problem: problems.append(problem))
    checked = []
    for event, _, index, card in mine:
        expected = order[index] if order is not None and 0 <= index < len(order) else None
        checked.append(
            {
                "version": event.originator_version,
                "type": type_name(event),
                "shoe_index": index,
                "card": card,
                "expected": expected,
                "ok": expected == card,
            }
        )
    ok = not problems and all(c["ok"] for c in checked)
    out["check"] = {
        "status": "ok" if ok else "failed",
        "ok": ok,
        "commitment_ok": order is not None,
        "problems": problems,
        "cards": checked,
    }
    return out


def recorded(events: list[Any], positions: dict[int, int]) -> dict[str, Any]:
    """When and where the shoe's commitment, cut and reveal were recorded: each event's
    version, UTC time, position in the log and who made it (null: not recorded yet)."""

    def at(event: Any, actor: str | None) -> dict[str, Any]:
        return {
            "version": event.originator_version,
            "time": utc(event.timestamp),
            "position": positions.get(event.originator_version),
            "actor": actor,
        }

    out: dict[str, Any] = {"committed": None, "cut": None, "revealed": None}
    for e in events:
        if isinstance(e, Shoe.Committed):
            out["committed"] = at(e, e.actor)
        elif isinstance(e, Shoe.Cut):
            # ``chosen_by``: who chose the place ("ledger": at random; "fixed": a test
            # shoe's; null on cuts recorded before it was kept).
            out["cut"] = at(e, e.by) | {"chosen_by": vars(e).get("chosen_by") or None}
        elif isinstance(e, Shoe.Revealed):
            out["revealed"] = {**at(e, None), "reason": e.reason}
    return out


def committed_before_deal(
    commitment: int | None,
    cards: list[tuple[Any, str, int, str]],
    card_positions: dict[int, int],
    cut: int | None = None,
) -> dict[str, Any]:
    """Whether the commitment (its log position ``commitment``) and the cut (``cut``; None
    when the shoe has no cut) were recorded before the first of the round's ``cards`` from
    the shoe, by position in the log: the cut orders the deal, so a cut after a card lets
    whoever knows the seed choose the cards to come (SHUFFLE.md). ``ok`` true or false, null
    when the round drew no card from the shoe or the commitment's position is not known;
    ``fact`` says it in words, naming what was late. Names the first card by event only,
    never by its face."""
    first = min(
        (c for c in cards if card_positions.get(c[0].originator_version) is not None),
        key=lambda c: card_positions[c[0].originator_version],
        default=None,
    )
    out: dict[str, Any] = {
        "ok": None,
        "commitment_position": commitment,
        "cut_position": cut,
        "first_card": None,
    }
    if first is None or commitment is None:
        out["fact"] = (
            "no card of this round was drawn from this shoe"
            if not cards
            else "the positions in the log of the commitment and the cards are not known"
        )
        return out
    event, _, index, _ = first
    where = card_positions[event.originator_version]
    out["first_card"] = {
        "version": event.originator_version,
        "type": type_name(event),
        "position": where,
        "time": utc(event.timestamp),
        "shoe_index": index,
    }
    name = f"{type_name(event)} v{event.originator_version}"
    card = f"the round's first card from this shoe ({name}, position {where})"
    committed_late = commitment > where
    cut_late = cut is not None and cut > where
    out["ok"] = not committed_late and cut is not None and not cut_late
    if out["ok"]:
        out["fact"] = (
            f"the commitment (position {commitment}) and the cut (position {cut}) were "
            f"recorded before {card}"
        )
    elif committed_late and cut_late:
        out["fact"] = (
            f"the commitment (position {commitment}) and the cut (position {cut}) were "
            f"recorded after {card}: the shuffle was not fixed before the deal"
        )
    elif committed_late:
        out["fact"] = (
            f"the commitment (position {commitment}) was recorded after {card}: "
            "the shuffle was not fixed before the deal"
        )
    elif cut is None:
        out["fact"] = (
            f"the commitment (position {commitment}) was recorded before {card}, but no cut "
            "was recorded: the dealing order was not fixed before the deal"
        )
    else:
        out["fact"] = (
            f"the cut (position {cut}) was recorded after {card}, though the commitment "
            f"(position {commitment}) came before it: the dealing order was not fixed before "
            "the deal"
        )
    return out


# -- the audit ----------------------------------------------------------------------------
