"""English Vingt-un (RULES.md VU-1..VU-31; seeds 000 and 002)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ledger.errors import InvalidRules
from ledger.rules.base import RuleSet, choice

DEALER_CHOICE = ("seat", "named", "cut")  # VU-2
DEAL_LIMITS = ("natural", "hands", "pack_twice", "two_packs")  # VU-29
TIE_SHARES = ("0", "1/4", "1/3")  # VU-27 (c)
# VU-27 (a): "at the commencement of each deal". The book also says "the deal" for a dealer's
# whole spell (VU-29..31), so a table chooses: every round (the ledger's first reading, kept
# as the default so tables recorded before the option replay unchanged), or a deal's first.
ANTE_EACH = ("round", "deal")


@dataclass(frozen=True)
class VingtUnRules(RuleSet):
    family: ClassVar[str] = "vingt-un"
    prefix: ClassVar[str] = "VU"
    # VU-1: the dealer's double and a Vingt-un may each double a stake: four times at most.
    player_exposure: ClassVar[int] = 4
    banker_exposure: ClassVar[int] = 4
    # The most one dealer hand pays per unit of a stake as it stands once he plays: double, to
    # a drawn Vingt-un (VU-15, VU-17). His double (VU-6) is in the stake by then: what one more
    # hand of his can cost him when he divides (VU-21), not banker_exposure, which counts it.
    dealer_hand_exposure: ClassVar[int] = 2

    dealer_choice: str = "seat"
    natural_passes_deal: bool = True  # VU-10
    natural_collects_from_players: bool = False  # VU-10 variation
    deal_limit: str = "natural"  # VU-29
    deal_hands: int = 0  # VU-29, with deal_limit "hands"
    pool_ante: int = 0  # VU-27 (a)
    ante_each: str = "round"  # VU-27 (a): when the ante is due (ANTE_EACH)
    pool_dealer_overdraw: int = 0  # VU-27 (b)
    pool_tie_share: str = "0"  # VU-27 (c)
    penalty_amount: int = 0  # VU-26
    holder_ends_turn: bool = False  # VU-11: a hand at 21 waits for its holder to stand

    def validate(self) -> None:
        super().validate()
        choice("dealer_choice", self.dealer_choice, DEALER_CHOICE)
        choice("deal_limit", self.deal_limit, DEAL_LIMITS)
        choice("pool_tie_share", self.pool_tie_share, TIE_SHARES)
        choice("ante_each", self.ante_each, ANTE_EACH)
        if self.deal_limit == "hands" and self.deal_hands < 1:
            raise InvalidRules(
                "deal_limit 'hands' needs deal_hands >= 1 (VU-29)", option="deal_hands"
            )
        for name in ("pool_ante", "pool_dealer_overdraw", "penalty_amount", "deal_hands"):
            if getattr(self, name) < 0:
                raise InvalidRules(f"{name} must not be negative", option=name)

    @property
    def packs(self) -> int:
        return 2 if self.deal_limit == "two_packs" else 1

    def ante_due(self, round_of_deal: int) -> int:
        """The ante each player seated for a round pays (VU-27 a), the round being
        ``round_of_deal`` of its deal (1: the deal's first; 0: not recorded, a round from
        before the ledger counted them, which paid as every round then did)."""
        if self.ante_each == "deal" and round_of_deal > 1:
            return 0
        return self.pool_ante

    def hold_multiple(self, others: int) -> int:
        # The VU-10 variation: every other hand's natural collects one stake from this one,
        # a stake the dealer's double (VU-6) may have doubled.
        return self.player_exposure + (2 * others if self.natural_collects_from_players else 0)
