"""Двадцать одно, "Очко" (RULES.md OC-1..OC-12; seed 003)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ledger.errors import InvalidRules
from ledger.rules.base import RuleSet

MAX_DRAWS = 3  # OC-6


@dataclass(frozen=True)
class OchkoRules(RuleSet):
    family: ClassVar[str] = "ochko"
    prefix: ClassVar[str] = "OC"
    player_exposure: ClassVar[int] = 1
    banker_exposure: ClassVar[int] = 2  # OC-5 and OC-9 pay double

    stake_after_first_card: bool = False  # OC-3
    # OC-3: the most the bank accepts in stakes in one round; it may lose twice that (OC-5,
    # OC-9 pay double)
    bank_cap: int | None = None
    banker_natural_beats_natural: bool = True  # OC-4
    punter_bust_pays: bool = True  # OC-11
    # OC-6: a hand at 21, or over it while its bust waits for the banker (OC-11 false),
    # waits for its holder to stand
    holder_ends_turn: bool = False
    # OC-7: an ace valued 11 holds even past 21, and a valuation may over-draw by itself.
    # Tables opened before the option existed played this way (see LEGACY_OPTIONS).
    ace_value_binds: bool = False

    def validate(self) -> None:
        super().validate()
        if self.bank_cap is not None and self.bank_cap < self.min_stake:
            raise InvalidRules("bank_cap must be at least min_stake (OC-3)", option="bank_cap")

    @property
    def packs(self) -> int:
        return 2  # OC-1
