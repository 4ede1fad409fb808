"""Cards as two-character codes, and how a hand counts.

A card is its rank then its suit: rank one of ``A 2 3 4 5 6 7 8 9 T J Q K`` and suit one of
``C D H S`` ("TH" is the ten of hearts, "AS" the ace of spades). Plain strings are used rather
than objects because they go into events as they are, read the same in an audit export, and
are what an independent shuffle verifier prints (see ``SHUFFLE.md``). A ten is "T" so that
every code has exactly two characters.

Counting follows the digest shared by every family (RULES.md): 2-10 at pip value, J, Q, K ten,
an ace one or eleven. The Russian game lets the holder choose each ace (OC-7), which
``totals_with_aces`` covers; the rest pick the best total.
"""

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

RANKS = "A23456789TJQK"
SUITS = "CDHS"

_TEN_CARDS = frozenset("TJQK")
_SOFT_BONUS = 10  # an ace counted 11 instead of 1

# Every well-formed code with its rank and pip value, looked up in one step: a hand's total
# is counted several times a decision, and checking each code character by character was
# about a twentieth of a simulated round. A code missing here is malformed (``_refuse``).
_RANK = {r + s: r for s in SUITS for r in RANKS}
_PIP = {code: 1 if r == "A" else 10 if r in _TEN_CARDS else int(r) for code, r in _RANK.items()}


def unshuffled(packs: int) -> list[str]:
    """The shoe before shuffling, in the order SHUFFLE.md fixes for every verifier."""
    if isinstance(packs, bool) or not isinstance(packs, int) or packs < 1:
        raise ValueError(f"packs must be an integer >= 1, got {packs!r}")
    pack = [r + s for s in SUITS for r in RANKS]
    return pack * packs


def packs_less(packs: int, cards: Iterable[str]) -> list[str]:
    """The unshuffled shoe of ``packs`` packs less one of each of ``cards``, in its order:
    the used cards a round that ran out is completed from (VU-29), less those on the table."""
    left = Counter(cards)
    kept = []
    for card in unshuffled(packs):
        if left[card] > 0:
            left[card] -= 1
        else:
            kept.append(card)
    return kept


def is_card(code: object) -> bool:
    """True for a well-formed code: boundaries reject "10H" or "ah" before they reach events."""
    return isinstance(code, str) and len(code) == 2 and code[0] in RANKS and code[1] in SUITS


def _refuse(card: object) -> ValueError:
    return ValueError(f"not a card code: {card!r}")


def rank(card: str) -> str:
    """The rank character; raises ValueError on a malformed code so bad input fails loudly."""
    try:
        return _RANK[card]
    except (KeyError, TypeError):  # TypeError: not hashable, so not a code either
        raise _refuse(card) from None


def is_ace(card: str) -> bool:
    return rank(card) == "A"


def is_ten_card(card: str) -> bool:
    """T, J, Q and K all count ten: what a natural needs besides its ace."""
    return rank(card) in _TEN_CARDS


def pip_value(card: str) -> int:
    """The value with an ace as 1; the choice of 11 is made on the whole hand, not per card."""
    try:
        return _PIP[card]
    except (KeyError, TypeError):
        raise _refuse(card) from None


def same_denomination(a: str, b: str) -> bool:
    """Pair test for splitting: same rank, so a king and a queen are not a pair (VU-18)."""
    return rank(a) == rank(b)


def _hard_total_and_ace(cards: Sequence[str]) -> tuple[int, bool]:
    total = 0
    has_ace = False
    for card in cards:
        value = pip_value(card)
        total += value
        has_ace = has_ace or value == 1  # only an ace has the pip value 1
    return total, has_ace


def hand_total(cards: Sequence[str]) -> int:
    """Best total: one ace counts 11 if that keeps the hand at 21 or under.

    Only one ace can ever count 11 (two would make 22), so trying one is enough.
    """
    total, has_ace = _hard_total_and_ace(cards)
    if has_ace and total + _SOFT_BONUS <= 21:
        return total + _SOFT_BONUS
    return total


def is_soft(cards: Sequence[str]) -> bool:
    """True when an ace is currently counted 11, e.g. for the stand-on-soft-17 rule (CB-8)."""
    total, has_ace = _hard_total_and_ace(cards)
    return has_ace and total + _SOFT_BONUS <= 21


def is_natural(cards: Sequence[str]) -> bool:
    """Exactly two cards, an ace and a ten-card.

    Whether they were the first two dealt (not a split hand, say) is for the family rules to know.
    """
    if len(cards) != 2:
        return False
    first, second = cards
    return (is_ace(first) and is_ten_card(second)) or (is_ace(second) and is_ten_card(first))


def declared_ace_counts(
    cards: Sequence[str], ace_values: Mapping[int, int], *, binding: bool = False
) -> dict[int, int]:
    """What each declared ace counts now (OC-7, the Russian game).

    ``ace_values`` maps the index of an ace in ``cards`` to 1 or 11. An ace declared 1 counts
    1. An ace declared 11 counts 11 while the hand, its undeclared aces at 1, stays at 21 or
    under, and 1 once a later card would take it over: the choice is the holder's, and no holder
    chooses to over-draw, so a declaration made at 16 does not hold him to 25 after a 9. With
    ``binding`` (the table's ``ace_value_binds``) every declared ace counts as declared.
    """
    for index, value in ace_values.items():
        if not 0 <= index < len(cards):
            raise ValueError(f"ace index {index} outside the hand of {len(cards)} cards")
        if not is_ace(cards[index]):
            raise ValueError(f"card {index} ({cards[index]}) is not an ace")
        if value not in (1, 11):
            raise ValueError(f"an ace counts 1 or 11, not {value!r}")
    counts = dict(ace_values)
    if binding:
        return counts
    total = (
        sum(counts.values())
        + _hard_total_and_ace([card for i, card in enumerate(cards) if i not in counts])[0]
    )
    for index in sorted(counts, reverse=True):
        if total <= 21:
            break
        if counts[index] == 11:
            counts[index] = 1
            total -= _SOFT_BONUS
    return counts


def totals_with_aces(
    cards: Sequence[str], ace_values: Mapping[int, int], *, binding: bool = False
) -> int:
    """Total when the holder has declared some aces 1 or 11 (OC-7, the Russian game).

    Declared aces count as ``declared_ace_counts`` says. Undeclared aces count as
    ``hand_total`` would, judged on the whole hand: one of them counts 11 if the total,
    declared aces included, stays at 21 or under. With an empty map this equals ``hand_total``.
    """
    counts = declared_ace_counts(cards, ace_values, binding=binding)
    undeclared = [card for i, card in enumerate(cards) if i not in counts]
    total, has_ace = _hard_total_and_ace(undeclared)
    total += sum(counts.values())
    if has_ace and total + _SOFT_BONUS <= 21:
        total += _SOFT_BONUS
    return total
