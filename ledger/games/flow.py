"""The flow of a round, common to every family, module by module in the order a round goes:

- ``opening``: the hands, the first cards, the stakes closing, the dealer's double, the second;
- ``stakes``: a player's stake and the table's limits;
- ``turns``: whose turn it is, and when it ends (``holder_ends_turn``, MustStand);
- ``moves``: a hand's draw, stand, split, double down, an ace's value;
- ``dealer_play``: the dealer's turn after the players;
- ``phases``: entering a phase, and the round's end.

Where the families differ, each asks the family's book (``families.book``), which cites the
clause that decides. The application's commands reach a round through the names below."""

from ledger.games.dealer_play import dealer_draw, dealer_stand
from ledger.games.families import book
from ledger.games.moves import choose_ace, double_down, hit, split, stand
from ledger.games.opening import dealer_double
from ledger.games.stakes import place_stake
from ledger.games.turns import awaits_stand

__all__ = [
    "awaits_stand",
    "book",
    "choose_ace",
    "dealer_double",
    "dealer_draw",
    "dealer_stand",
    "double_down",
    "hit",
    "place_stake",
    "split",
    "stand",
]
