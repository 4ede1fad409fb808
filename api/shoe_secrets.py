"""When a caller may see a shoe's seed (or a fixed test shoe's order): the one rule for every
place the API shows them — the table feed's ``Shoe.Revealed`` events (and the used cards a
``Shoe.Committed`` of VU-29 lists), a round's audit (JSON)
and the audit page (HTML, which renders the same document).

A shoe's ``Revealed`` event publishes its seed when the shoe retires, and a shoe can retire in
the middle of a round (used up: the round goes on from a fresh shoe). The seed rebuilds every
card of the shoe, the face-down ones too, so while a round that dealt from the shoe is still in
play (the round that used it up is one of them), the seed would give away that round's hidden
cards — to anyone, since the audit of an earlier round on the same shoe lists it. So a seed or
fixed order is withheld from every caller but admins and auditors while any round that dealt
from its shoe has not ended. A shoe belongs to one table, and a table has at most one round in
play, so that round's shoes are the only ones withheld.

A burned card (casino: face down to the discard after each cut, SHUFFLE.md "Cutting and
burning") follows its shoe's seed: hidden from the same callers until the seed may be shown to
them (the shoe revealed, and not withheld as above), when the seed rebuilds it anyway. Until
then it would tell a card that is no longer in the shoe."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from uuid import UUID

from api.visibility import sees_all

REVEAL_FIELDS = ("server_seed", "fixed_order")
WITHHELD = "withheld until every round dealt from this shoe has ended"


def withheld_shoes(app: Any, table: Any, viewer: Any) -> set[UUID]:
    """The shoes of ``table`` whose seed and order ``viewer`` may not see now: none for an
    admin or auditor; for anyone else every shoe the table's round in play started on, dealt
    or burned from, or was given mid-round."""
    if sees_all(viewer) or table.current_round is None:
        return set()
    rnd = app.get_round(str(table.current_round))
    if rnd.ended:
        return set()
    shoes = {rnd.start_shoe, rnd.shoe_id}
    for event in app.events.get(rnd.id):
        shoe = getattr(event, "shoe", None)  # CardDealt, CardBurned, ShoeReplaced
        if isinstance(shoe, UUID):
            shoes.add(shoe)
    return shoes


def burns_shown(
    app: Any,
    rnd: Any,
    viewer: Any,
    burned: Iterable[str],
    withheld: Iterable[UUID | str] | None = None,
    revealed: Iterable[str] | None = None,
) -> set[str]:
    """Of the shoes ``burned`` from in ``rnd`` (ids), those whose burned cards ``viewer`` may
    see: every one for an admin or auditor; for anyone else those revealed whose seed is not
    withheld. ``withheld`` (``withheld_shoes``) and ``revealed`` (ids) spare reading again
    what the caller has read already."""
    burned = {str(s) for s in burned}
    if sees_all(viewer) or not burned:
        return burned
    if revealed is None:
        revealed = {s for s in burned if app.get_shoe(s).revealed}
    shown = burned & {str(s) for s in revealed}
    if shown and withheld is None:
        withheld = withheld_shoes(app, app.get_table(str(rnd.table_id)), viewer)
    return shown - {str(s) for s in withheld or ()}


def mask_shoe_event(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """A withheld shoe's event data: a ``Revealed``'s seed and order withheld, and a
    ``Committed``'s ``stock`` (the used cards a round is completed from, VU-29: the pack less
    the cards on the table, so it names the face-down ones as a set)."""
    if name == "Revealed":
        return {**data, **{k: None for k in REVEAL_FIELDS}}
    if name == "Committed" and data.get("stock") is not None:
        return {**data, "stock": None}
    return data


def mask_audited_shoe(shoe: dict[str, Any]) -> dict[str, Any]:
    """A shoe of a round's audit (``replay.audit.shoe_audit``) with its seed withheld (from
    its own events too), and the check of the cards against the shuffle, which needs the
    seed, put off until it may be shown (``check.status`` says why). When and where its
    commitment was recorded stays: the commitment is public from the start."""
    return {
        **shoe,
        "server_seed": None,
        "stock": None,
        "check": {"status": WITHHELD, "ok": None, "cards": []},
        "events": [
            {**e, "data": mask_shoe_event(e["type"], e["data"])} for e in shoe.get("events", [])
        ],
    }
