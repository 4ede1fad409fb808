"""A decision of a round, by the name the API uses, applied to the round's ``Play``: the
players' actions, the dealer's own decisions, and the Vingt-un irregularities (VU-23..26)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.errors import InvalidCommand, RuleViolation
from ledger.games import casino, dealer_play, families, moves, opening, vingt_un
from ledger.games import irregularities as vu
from ledger.games.play import Play
from ledger.use_cases.inputs import positive_amount

PLAYER_ACTIONS = (
    "hit",
    "stand",
    "split",
    "double_down",
    "surrender",
    "insurance",
    "ace_value",
    "take",
    "reject",
    "throw_up",
)
DEALER_ACTIONS = (
    "dealer_split",
    "dealer_double",
    "dealer_draw",
    "dealer_stand",
    "serve_two",
    "serve_out_of_order",
    "false_division",
)
# Dealer actions that name a hand (VU-23..25).
HAND_DEALER_ACTIONS = ("serve_two", "serve_out_of_order", "false_division")


def apply_action(
    play: Play,
    action: str,
    actor: str,
    hand: str | None,
    amount: Any,
    index: Any,
    value: Any,
    called: Any,
) -> dict:
    """Apply one named action (not an irregularity: see ``IRREGULAR``) to the round."""
    if action == "hit":
        return {"hand": hand, "card": moves.hit(play, hand, actor)}
    if action == "stand":
        moves.stand(play, hand, actor)
        return {"hand": hand}
    if action == "split":
        if amount is not None:
            amount = positive_amount(amount, "a split stake")
        return {"hand": hand, "new_hand": moves.split(play, hand, actor, amount)}
    if action == "double_down":
        return {"hand": hand, "card": moves.double_down(play, hand, actor)}
    if action == "surrender":
        if play.family != "casino":
            raise RuleViolation(f"{play.family} has no surrender", families.book(play).PLAY_CLAUSE)
        casino.surrender(play, hand, actor)
        return {"hand": hand}
    if action == "insurance":
        if play.family != "casino":
            raise RuleViolation(f"{play.family} has no insurance", families.book(play).PLAY_CLAUSE)
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise InvalidCommand("insurance needs an amount (0 declines)")
        casino.insurance(play, hand, actor, amount)
        return {"hand": hand}
    if action == "ace_value":
        for name, v in (("index", index), ("value", value)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise InvalidCommand(f"ace_value needs an integer {name}")
        moves.choose_ace(play, hand or "dealer", index, value, actor)
        return {"hand": hand or "dealer"}
    if action == "dealer_double":
        if play.family != "vingt-un":
            raise RuleViolation("only the Vingt-un dealer calls 'double'", "VU-6")
        if not isinstance(called, bool):
            raise InvalidCommand("dealer_double needs called: true or false")
        opening.dealer_double(play, called)
        return {"called": called}
    if action == "dealer_split":
        if play.family != "vingt-un":
            raise RuleViolation("only the Vingt-un dealer divides his own pair", "VU-21")
        return {"hands": list(vingt_un.dealer_divides(play))}
    if action == "dealer_draw":
        if play.rules.house_banked:
            raise RuleViolation(casino.AUTOMATIC_PLAY, "CB-9")
        return {"card": dealer_play.dealer_draw(play)}
    if play.rules.house_banked:
        raise RuleViolation(casino.AUTOMATIC_PLAY, "CB-9")
    dealer_play.dealer_stand(play)
    return {}


def _irregular() -> dict[str, Callable[..., dict]]:
    def reject(play: Play, hand: str, actor: str, card: Any) -> dict:
        if not isinstance(card, str):
            raise InvalidCommand("reject needs the card to send back, e.g. 'TH'")
        vu.reject(play, hand, actor, card)
        return {"hand": hand, "rejected": card}

    return {
        "serve_two": lambda play, hand, actor, card: dict(
            zip(("hand", "cards"), vu.serve_two(play, hand), strict=True)
        ),
        "take": lambda play, hand, actor, card: vu.take_both(play, hand, actor) or {"hand": hand},
        "reject": reject,
        "serve_out_of_order": lambda play, hand, actor, card: {
            "hand": hand,
            "card": vu.serve_out_of_order(play, hand),
        },
        "throw_up": lambda play, hand, actor, card: (
            vu.throw_up(play, hand, actor) or {"hand": hand}
        ),
        "false_division": lambda play, hand, actor, card: (
            vu.false_division(play, hand) or {"hand": hand}
        ),
    }


IRREGULAR = _irregular()
