"""The decisions a caller may take now in a round (``TwentyOneLedger.allowed_actions``, which
asks the ledger itself), cut to what his key may send: all of them, each naming its
``actor``, for admins (who act for anyone) and auditors (who see everything); a player key's
own moves on his hands; a dealer key's the dealer's own. A key bound to no player (the casino
house dealer's, whose play is automatic) has none."""

from __future__ import annotations

from typing import Any

from api.visibility import Viewer, round_view, sees_all
from ledger.domain.hands import DEALER_HANDS
from ledger.domain.round import Round
from ledger.use_cases.actions import DEALER_ACTIONS


def is_dealer_action(body: dict) -> bool:
    """Whether an action is the dealer's to take (and so a dealer key's to send)."""
    action = body["action"]
    if action in DEALER_ACTIONS:
        return True
    # Очко: the banker values his own aces (no hand, or the dealer's).
    return action == "ace_value" and body.get("hand") in (None, *DEALER_HANDS)


def allowed_for(
    app: Any, rnd: Round, viewer: Viewer, *, just_saved: bool = False
) -> list[dict[str, Any]]:
    """As the ledger lists them for the very version of the round the caller is shown (with
    ``just_saved``, as the command answered left the round's wallets and table: no read, so a
    game action stays one read and one append). A player's or dealer's entries are all his
    own, so they leave ``actor`` out: each is a body his key may send as it is (with an
    ``amount`` where the action takes one)."""
    if rnd.ended:
        return []
    ask = {"as_of": rnd, "just_saved": just_saved}
    if sees_all(viewer):
        return app.allowed_actions(str(rnd.id), **ask)
    if viewer.player_id is None:
        return []
    dealer_key = viewer.role == "dealer"
    return [
        {k: v for k, v in choice.items() if k != "actor"}
        for choice in app.allowed_actions(str(rnd.id), actor=viewer.player_id, **ask)
        if is_dealer_action(choice) == dealer_key
    ]


def round_with_choices(
    app: Any, rnd: Round, viewer: Viewer, *, just_saved: bool = False
) -> dict[str, Any]:
    """The round as ``viewer`` may see it, with the decisions he may take now."""
    choices = allowed_for(app, rnd, viewer, just_saved=just_saved)
    return {**round_view(rnd, viewer), "allowed_actions": choices}
