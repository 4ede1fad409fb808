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


# Options added after tables had been opened, with the value that gives the behaviour such a
# table was opened under: a record without the option reads so, never as today's default.
LEGACY_OPTIONS: dict[str, dict[str, Any]] = {"ochko": {"ace_value_binds": True}}


def rules_from_record(record: dict[str, Any]) -> RuleSet:
    """Rebuild the rules a table recorded at opening (never today's defaults)."""
    options = {k: v for k, v in record.items() if k != "family"}
    return FAMILIES[record["family"]](**(LEGACY_OPTIONS.get(record["family"], {}) | options))


def recorded_option(record: dict[str, Any], name: str) -> Any:
    """One option of a recorded rule set, read as ``rules_from_record`` would, without
    building the whole set (for a read made on every total)."""
    if name in record:
        return record[name]
    legacy = LEGACY_OPTIONS.get(record["family"], {})
    return legacy[name] if name in legacy else getattr(FAMILIES[record["family"]], name)


__all__ = [
    "FAMILIES",
    "LEGACY_OPTIONS",
    "RuleSet",
    "recorded_option",
    "rules_for",
    "rules_from_record",
]
