"""The contract between the flow every family shares (``opening``, ``staking``, ``turns``,
``moves``, ``dealer_play``) and a family's book (``vingt_un``, ``hoyle``, ``ochko``,
``casino``, chosen by ``families.book``): every hook and constant the flow asks a book for,
written down once, each with what it decides.

A book is a module; ``Book`` describes it as a type checker reads a module against a protocol
(the hooks are its functions: ``self`` stands for no argument). A move only some families have
is a flag every book sets (``DOUBLE_DOWN``, ``ACE_CHOICE``), and the hooks that carry the move
(``DoubleDown``, ``AceChoice``) are in the book exactly when its flag is True: the flow asks the
flag, never whether a function of some name exists. ``tests/unit/test_book_contract.py`` holds
every book of ``families.BOOK_MODULES`` to this, so a hook renamed or dropped fails there rather
than as a quiet refusal in play.

A book may hold more than this: moves of its family alone, which the use cases call by name
where the family has them (``casino.insurance``, ``casino.surrender``,
``vingt_un.dealer_divides``), and its own helpers."""

from __future__ import annotations

from typing import Protocol

from ledger.games.play import Play


class Book(Protocol):
    """What every family's book provides."""

    # -- the clauses the flow cites for the steps it takes itself ------------------------
    STAKE_CLAUSE: str  # a stake before play: its phase, who may stake, the table's limits
    DEAL_CLAUSE: str  # the cards of the deal (the first card, where stakes follow it)
    SECOND_CARD_CLAUSE: str  # the second card, dealt once the stakes on the first are in
    PLAY_CLAUSE: str  # the play phase, and a move this family does not have
    DRAW_CLAUSE: str  # a player's draw
    STAND_CLAUSE: str  # a player's stand, and a turn that waits for it (holder_ends_turn)
    OVERDRAW_CLAUSE: str  # a player's hand over 21
    SPLIT_CLAUSE: str  # a division of a pair, and a split hand's second card
    DEALER_CLAUSE: str  # the dealer's draws and stands after the players
    DRAW_FACE_UP: bool  # whether a card a player draws is dealt face up

    # -- the moves only some families have (each flag True exactly where its hooks are) ---
    DOUBLE_DOWN: bool  # whether a hand may double down: the book is also a ``DoubleDown``
    ACE_CHOICE: bool  # whether a holder values each ace himself: also an ``AceChoice``

    # -- the opening ---------------------------------------------------------------------
    # What the round takes before its first card (the Vingt-un ante, VU-27 a).
    def begin(self, play: Play) -> None: ...

    # Whether each player stakes on his first card, rather than before the deal.
    def stakes_after_first_card(self, play: Play) -> bool: ...

    # Whether the dealer may call "double" once the stakes on the first card are in (VU-6).
    def has_dealer_double(self, play: Play) -> bool: ...

    # Whether the card of deal round ``round_no`` (1 or 2) to a player or the dealer is face up.
    def face_up(self, round_no: int, dealer: bool) -> bool: ...

    # What the deal decides before any turn: naturals, insurance, a dealer's natural.
    def after_deal(self, play: Play) -> None: ...

    # -- the players' turns --------------------------------------------------------------
    # The clause that stands a hand at ``total`` without its holder's word, or None.
    def must_stand(self, play: Play, hand: dict, total: int) -> str | None: ...

    # Whether a hand's turn ended for a reason the table sees (holder_ends_turn passes it).
    def turn_ends_openly(self, play: Play, hand: dict) -> bool: ...

    # Whether a hand over 21 waits for the banker instead of paying at once (OC-11).
    def bust_waits(self, play: Play) -> bool: ...

    # Refuses a draw the book forbids (a draw limit, split aces); None when it is allowed.
    def check_draw(self, play: Play, hand: dict) -> None: ...

    # What a player's hand over 21 pays, and when (recorded as over-drawn by the flow).
    def overdraw(self, play: Play, hand_id: str) -> None: ...

    # Refuses a division the book forbids; else the new hand's stake (``amount`` or its own).
    def check_split(self, play: Play, hand: dict, amount: int | None) -> int: ...

    # The cards a division deals at once (none where each hand waits for its turn).
    def after_split(self, play: Play, hand_id: str, new_id: str) -> None: ...

    # -- the dealer ----------------------------------------------------------------------
    # What follows the players' last turn: the dealer's phase, or his play by rule.
    def dealer_turn(self, play: Play) -> None: ...

    # Refuses a dealer's draw the book forbids (a draw limit, a dealer who plays by rule).
    def check_dealer_draw(self, play: Play) -> None: ...

    # The dealer's last hand is over 21: recorded, and the round settled.
    def dealer_overdraws(self, play: Play) -> None: ...

    # Settles every hand still standing against the dealer, and ends the round.
    def settle(self, play: Play) -> None: ...


class DoubleDown(Book, Protocol):
    """A book whose ``DOUBLE_DOWN`` is True: what it has beside ``Book``."""

    DOUBLE_CLAUSE: str  # a double down: its stake, its one card, the stand that follows

    # Refuses a double down the book forbids on this hand (its cards, its total, a split).
    def check_double_down(self, play: Play, hand: dict) -> None: ...


class AceChoice(Book, Protocol):
    """A book whose ``ACE_CHOICE`` is True: what it has beside ``Book``."""

    # Refuses valuing ace ``index`` of a hand at ``value`` (1 or 11), by a player or banker.
    def check_ace_choice(
        self, play: Play, hand_id: str, index: int, value: int, player_id: str
    ) -> None: ...


# Each flag of ``Book``, and the protocol whose own hooks a book has exactly when it is True.
CAPABILITIES: dict[str, type] = {"DOUBLE_DOWN": DoubleDown, "ACE_CHOICE": AceChoice}
