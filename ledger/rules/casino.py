"""Modern casino Blackjack (RULES.md CB-1..CB-9; seed 004) with the usual table options."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from ledger.errors import InvalidRules
from ledger.rules.base import RuleSet, choice

PAYOUTS = {"3:2": Fraction(3, 2), "6:5": Fraction(6, 5)}
DOUBLE_ON = ("any_two", "9-11", "10-11", "none")
SOFT17 = ("stand", "hit")


@dataclass(frozen=True)
class CasinoRules(RuleSet):
    family: ClassVar[str] = "casino"
    prefix: ClassVar[str] = "CB"

    min_stake: int = 200  # CB-1: "$2 to $500"
    max_stake: int = 50_000
    decks: int = 6
    penetration: int = 75  # percent of the shoe dealt before the cut card comes out
    burn: int = 1
    soft17: str = "stand"  # CB-8; "hit" is H17
    blackjack_payout: str = "3:2"  # CB-4; "6:5" option
    double_on: str = "any_two"
    double_after_split: bool = True
    max_split_hands: int = 4
    resplit_aces: bool = False
    hit_split_aces: bool = False
    insurance: bool = True
    late_surrender: bool = False

    def validate(self) -> None:
        super().validate()
        if not 1 <= self.decks <= 8:
            raise InvalidRules(f"decks must be 1 to 8, got {self.decks}", option="decks")
        if not 50 <= self.penetration <= 90:
            raise InvalidRules("penetration must be 50 to 90 (percent)", option="penetration")
        if not 0 <= self.burn <= 5:
            raise InvalidRules("burn must be 0 to 5 cards", option="burn")
        choice("soft17", self.soft17, SOFT17)
        choice("blackjack_payout", self.blackjack_payout, tuple(PAYOUTS))
        choice("double_on", self.double_on, DOUBLE_ON)
        if not 1 <= self.max_split_hands <= 4:
            raise InvalidRules("max_split_hands must be 1 to 4", option="max_split_hands")

    @property
    def packs(self) -> int:
        return self.decks

    @property
    def house_banked(self) -> bool:
        return True

    @property
    def blackjack_ratio(self) -> Fraction:
        return PAYOUTS[self.blackjack_payout]

    def may_double(self, total: int) -> bool:
        if self.double_on == "none":
            return False
        if self.double_on == "9-11":
            return 9 <= total <= 11
        if self.double_on == "10-11":
            return 10 <= total <= 11
        return True
