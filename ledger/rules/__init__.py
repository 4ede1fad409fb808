"""Rule sets, one per family, each a frozen record of every option a table was opened with."""

from __future__ import annotations

from typing import Any

from ledger.errors import InvalidRules
from ledger.rules.base import RuleSet
from ledger.rules.casino import CasinoRules
from ledger.rules.hoyle import HoyleRules
from ledger.rules.ochko import OchkoRules
from ledger.rules.vingt_un import VingtUnRules

FAMILIES: dict[str, type[RuleSet]] = {
    r.family: r for r in (VingtUnRules, HoyleRules, OchkoRules, CasinoRules)
}


def rules_for(family: str, options: dict[str, Any] | None = None) -> RuleSet:
    try:
        cls = FAMILIES[family]
    except KeyError:
        raise InvalidRules(
            f"unknown family {family!r}; choose one of {', '.join(FAMILIES)}", option="family"
        ) from None
    return cls.from_options(options)


def rules_from_record(record: dict[str, Any]) -> RuleSet:
    """Rebuild the rules a table recorded at opening (never today's defaults)."""
    options = {k: v for k, v in record.items() if k != "family"}
    return FAMILIES[record["family"]](**options)


__all__ = ["FAMILIES", "RuleSet", "rules_for", "rules_from_record"]
