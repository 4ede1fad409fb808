"""The hands a round holds and the words its state is made of: who holds a hand, the statuses
a hand passes through, the phases of a round, and the outcomes a settlement records.

A hand is a plain dict so that it reads the same in a debugger, a snapshot and an audit;
``new_hand`` and ``new_dealer_hand`` give its complete shape."""

from __future__ import annotations

DEALER = "dealer"
DEALER_SECOND = "dealer2"  # the dealer's second hand after dividing his pair (VU-21)
# Every hand the dealer can hold: he divides "the same way" as a player (VU-21), so four of a
# kind make at most four hands (VU-20). A divided hand is named by the number of hands so far.
DEALER_HANDS = (DEALER, DEALER_SECOND, "dealer3", "dealer4")
OPEN, STOOD, BUST, NATURAL, SETTLED = "open", "stood", "bust", "natural", "settled"
HAND_STATUSES = (OPEN, STOOD, BUST, NATURAL, SETTLED)
# Every phase a round can be in, in the order a round meets them (each family passes through
# some of them): ``ledger.games.phases.enter`` enters no other, and the API's document lists
# them.
STARTED, ENDED = "started", "ended"
PHASES = (
    STARTED,
    "staking",  # the stakes on a first card already dealt
    "betting",  # the stakes before any card
    "dealer_double",  # VU-6
    "dealing",  # VU-7
    "insurance",
    "play",
    "dealer",
    ENDED,
)
# Every outcome a ``HandSettled`` records, each family's words for it (ledger/games):
# ``Play.pay_hand`` settles with no other, and the API's document lists them.
OUTCOMES = (
    "won",
    "lost",
    "even",
    "push",
    "stand-off",
    "natural",
    "natural stand-off",
    "dealer natural",
    "blackjack",
    "bust",
    "over-draw",
    "both over 21",
    "banker's 21",
    "surrendered",
    "thrown up",
    "false division",
    "stake taken by a natural",
    "stakes taken by a natural",
    "natural takes the table",
)


def is_dealer_hand(hand_id: str) -> bool:
    """Whether ``hand_id`` names one of the dealer's hands rather than a player's."""
    return hand_id in DEALER_HANDS


def new_dealer_hand(cards: list[str] | None = None) -> dict:
    return {
        "cards": list(cards or []),
        "face_up": [True] * len(cards or []),
        "status": OPEN,
        "draws": 0,
        "aces": {},
        "natural": False,
    }


def new_hand(hand_id: str, player: str, seat: int, split_from: str | None = None) -> dict:
    return {
        "id": hand_id,
        "player": player,
        "seat": seat,
        "cards": [],
        "face_up": [],
        "stake": 0,
        "held": 0,
        "status": OPEN,
        "draws": 0,
        "doubled": False,
        "split_from": split_from,
        "aces": {},
        "insurance": 0,
        "surrendered": False,
        "result": None,
        "content": False,
    }
