"""Blackjack as in Hoyle, 1913 (RULES.md H13-1..H13-10; seed 001)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ledger.errors import InvalidRules
from ledger.rules.base import RuleSet, choice

DEAL_PASSES = ("on_natural", "every_round", "never")  # H13-4


@dataclass(frozen=True)
class HoyleRules(RuleSet):
    family: ClassVar[str] = "hoyle-1913"
    prefix: ClassVar[str] = "H13"
    player_exposure: ClassVar[int] = 2  # H13-5: a dealer natural costs twice the stake
    banker_exposure: ClassVar[int] = 2  # H13-6: a player natural is paid double
    split_exposure: ClassVar[int | None] = 1  # H13-3: after H13-5/6, a single stake (H13-7..10)

    fixed_bet: int | None = None  # H13-2
    stake_after_first_card: bool = False  # H13-3
    allow_split: bool = False  # H13-3
    deal_passes: str = "on_natural"  # H13-4
    natural_takes_table: bool = False  # H13-6
    holder_ends_turn: bool = False  # H13-7: a hand at 21 waits for its holder to stand

    def validate(self) -> None:
        super().validate()
        choice("deal_passes", self.deal_passes, DEAL_PASSES)
        if self.fixed_bet is not None and not self.min_stake <= self.fixed_bet <= self.max_stake:
            raise InvalidRules(
                f"fixed_bet {self.fixed_bet} must lie within the limits (H13-2)", option="fixed_bet"
            )
