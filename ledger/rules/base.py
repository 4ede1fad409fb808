"""What every rule set shares: limits, credit, seats, and strict option parsing.

A table's opening event records ``RuleSet.to_dict()`` in full, so an old table replays
with the rules it was opened with, never with today's defaults."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from decimal import Decimal
from fractions import Fraction
from typing import Any, ClassVar, Self, get_type_hints

from ledger.accounts import MAX_AMOUNT
from ledger.errors import InvalidRules
from ledger.text import shown, text_problem

ROUNDING_MODES = ("down", "half_up", "up")


@dataclass(frozen=True)
class RuleSet:
    family: ClassVar[str] = ""
    prefix: ClassVar[str] = ""
    # The most a player can lose per unit staked; held at staking when the table gives no credit.
    player_exposure: ClassVar[int] = 1
    # The most the banker can pay per unit staked.
    banker_exposure: ClassVar[int] = 1
    # Both of these for a stake on a split hand, where a book settles its naturals at the deal
    # and a split hand is never one; None where a split hand risks what any stake does.
    split_exposure: ClassVar[int | None] = None

    min_stake: int = 100
    max_stake: int = 10_000
    max_players: int = 7
    credit: bool = False
    client_seed: str = ""
    rounding: str = "down"

    def hold_multiple(self, others: int) -> int:
        """How many times his stake a player's first hand holds, with ``others`` other first
        hands in the round: the book's worst case for it."""
        return self.player_exposure

    @classmethod
    def from_options(cls, options: dict[str, Any] | None) -> Self:
        options = dict(options or {})
        known = {f.name for f in fields(cls)}
        # Shown safely: an unknown name may be anything a caller sent (a lone surrogate even).
        unknown = sorted(shown(str(name)) for name in set(options) - known)
        if unknown:
            raise InvalidRules(
                f"unknown option(s) for {cls.family}: {', '.join(unknown)}; "
                f"known: {', '.join(sorted(known))}",
                option=unknown[0],
            )
        hints = get_type_hints(cls)
        for name, value in options.items():
            _check_type(cls.family, name, hints[name], value)
        rules = cls(**options)
        rules.validate()
        return rules

    def validate(self) -> None:
        for option in fields(self):  # every integer option, the families' own included
            value = getattr(self, option.name)
            if isinstance(value, int) and not isinstance(value, bool) and value > MAX_AMOUNT:
                raise InvalidRules(
                    f"{option.name} must be at most {MAX_AMOUNT} (the ledger's bound on any "
                    f"amount, in minor units), got {value}",
                    option=option.name,
                )
        if self.min_stake < 1:
            raise InvalidRules("min_stake must be at least 1 minor unit", option="min_stake")
        if self.max_stake < self.min_stake:
            raise InvalidRules(
                f"max_stake {self.max_stake} is below min_stake {self.min_stake}",
                option="max_stake",
            )
        if not 1 <= self.max_players <= 12:
            raise InvalidRules("max_players must be between 1 and 12", option="max_players")
        problem = text_problem(self.client_seed, visible=False)
        if problem is not None:
            raise InvalidRules(f"client_seed {problem}", option="client_seed")
        if self.rounding not in ROUNDING_MODES:
            raise InvalidRules(
                f"rounding must be one of {', '.join(ROUNDING_MODES)}", option="rounding"
            )

    def to_dict(self) -> dict[str, Any]:
        return {"family": self.family, **dataclasses.asdict(self)}

    @property
    def packs(self) -> int:
        return 1

    @property
    def house_banked(self) -> bool:
        return False

    def round_payout(self, value: Fraction) -> int:
        """Whole minor units from a fractional payout, by the table's stated rounding."""
        if value.denominator == 1:
            return int(value)
        if self.rounding == "down":
            return value.numerator // value.denominator
        if self.rounding == "up":
            return -(-value.numerator // value.denominator)
        return int((value + Fraction(1, 2)) // 1)


def _check_type(family: str, name: str, hint: Any, value: Any) -> None:
    allowed = getattr(hint, "__args__", None) or (hint,)
    allowed = tuple(a for a in allowed if isinstance(a, type))
    ok = any(
        (isinstance(value, a) and not (a is int and isinstance(value, bool)))
        or (a is type(None) and value is None)
        for a in allowed
    )
    if not ok:
        names, given = " or ".join(a.__name__ for a in allowed), repr(value)
        if int in allowed and isinstance(value, float | Decimal):
            # 6.0 or 6e0 (JSON numbers with a fraction or an exponent reach here as Decimal):
            # refused like any other wrong type, with a hint about the one way to write it.
            names += " written without a fraction or an exponent (6, not 6.0)"
            given = str(value)
        raise InvalidRules(f"option {name} of {family} must be {names}, got {given}", option=name)


def choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InvalidRules(
            f"{name} must be one of {', '.join(allowed)}, got {value!r}", option=name
        )
