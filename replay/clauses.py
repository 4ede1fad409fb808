"""The text of every clause id the ledger cites, for audits.

``replay/clauses.json`` (committed) maps each clause id to its text: the four families'
clauses as ``docs/RULES.md`` words them (a bullet ``- VU-14 The dealer stands: ...`` with its
wrapped continuation lines joined), and the ledger's own ids (``CB-X-…``, ``L-…``) with short
texts from the README. ``docs/RULES.md`` is the repository's copy of the team's shared rule
digest (``../shared/RULES.md`` on the team's machines). The service reads only the committed
JSON; when the rules change, update ``docs/RULES.md`` and regenerate it::

    python -m replay.clauses            # reads docs/RULES.md, writes replay/clauses.json
    python -m replay.clauses --check    # exit 1 when clauses.json is not what RULES.md gives
    python -m replay.clauses PATH       # another copy of RULES.md
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

CLAUSES_JSON = Path(__file__).with_name("clauses.json")
# The repository's copy of the rule digest (absent from an installed package: pass a path).
RULES_MD = Path(__file__).resolve().parent.parent / "docs" / "RULES.md"
# An id at the start of a bullet: VU-14, H13-10, OC-3, CB-9.
_BULLET = re.compile(r"^- ((?:VU|H13|OC|CB)-\d+)\s+(.*)$")
# Every clause id as the code cites it (the ledger's own ids included).
CITED = re.compile(r"\b(?:VU|H13|OC|CB)-\d+\b|\bCB-X-(?:6:5|[A-Z0-9]+)\b|\bL-[A-Z]+(?:-[A-Z]+)*\b")

# The ledger's own ids (README: "Rule families" and the money section).
LEDGER_CLAUSES = {
    "CB-X-SPLIT": (
        "Casino option beyond the text: split pairs (pairs by value: any two ten-cards split), "
        "up to max_split_hands (default 4); resplit_aces (default false); hit_split_aces "
        "(default false: split aces get one card each)."
    ),
    "CB-X-DOUBLE": (
        "Casino option beyond the text: double down (one more card, bet doubled), on double_on "
        "(any_two by default, 9-11, 10-11 or none), after a split if double_after_split "
        "(default true)."
    ),
    "CB-X-INSURANCE": (
        "Casino option beyond the text: insurance, up to half the bet while the dealer shows an "
        "ace; pays 2:1."
    ),
    "CB-X-SURRENDER": (
        "Casino option beyond the text: late surrender, half the bet back, first decision only."
    ),
    "CB-X-H17": (
        "Casino option beyond the text: soft17=hit, the dealer hits soft 17 (H17) instead of "
        "standing on it (CB-8)."
    ),
    "CB-X-6:5": (
        "Casino option beyond the text: blackjack_payout=6:5, a player blackjack pays 6:5 "
        "instead of 3:2 (CB-4)."
    ),
    "CB-X-SHOE": (
        "Casino option beyond the text: the shoe, with penetration (percent of the shoe dealt "
        "before a new shoe, default 75) and burn (cards burned after each cut, default 1)."
    ),
    "L-BUY-IN": "Ledger: a deposit, from the cashier into the player's wallet.",
    "L-CASH-OUT": "Ledger: a withdrawal, from the player's wallet to the cashier.",
    "L-FIXED-SHOE": (
        "Ledger: a test shoe dealing a fixed order of cards (no cut, no burn card), committed "
        "as the SHA-256 of that order."
    ),
}


def parse_rules(text: str) -> dict[str, str]:
    """Clause id -> text from RULES.md: each ``- ID text`` bullet, wrapped lines joined."""
    out: dict[str, str] = {}
    current: str | None = None
    for line in text.splitlines():
        match = _BULLET.match(line)
        if match:
            current = match.group(1)
            out[current] = match.group(2).strip()
        elif current is not None and line.startswith("  ") and line.strip():
            out[current] += " " + line.strip()
        else:
            current = None
    return out


def build(rules_text: str) -> dict[str, str]:
    clauses = parse_rules(rules_text)
    clauses.update(LEDGER_CLAUSES)
    return clauses


def dump(clauses: dict[str, str]) -> str:
    """The committed file's text."""
    return json.dumps(clauses, indent=2, ensure_ascii=False) + "\n"


@cache
def clauses() -> dict[str, str]:
    """The committed clause texts."""
    return json.loads(CLAUSES_JSON.read_text(encoding="utf-8"))


def clause_text(clause_id: str) -> str | None:
    return clauses().get(clause_id)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m replay.clauses",
        description="Regenerate replay/clauses.json (the clause texts audits quote) from the "
        "rule digest RULES.md, plus the ledger's own ids (CB-X-…, L-…).",
    )
    parser.add_argument(
        "rules",
        nargs="?",
        type=Path,
        default=RULES_MD,
        metavar="RULES.md",
        help="the rule digest to read (default: docs/RULES.md in the repository)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when replay/clauses.json differs from what RULES.md gives",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        text = args.rules.read_text(encoding="utf-8")
    except FileNotFoundError:
        parser.error(f"{args.rules}: no such file (the rule digest is docs/RULES.md)")
    except (OSError, UnicodeDecodeError) as error:
        parser.error(f"{args.rules}: cannot read it ({error})")
    wanted = build(text)
    if args.check:
        committed = json.loads(CLAUSES_JSON.read_text(encoding="utf-8"))
        if committed != wanted:
            changed = sorted(k for k in committed.keys() | wanted.keys()
                             if committed.get(k) != wanted.get(k))  # fmt: skip
            print(f"{CLAUSES_JSON} is stale for {args.rules}: {', '.join(changed)}")
            print("regenerate it: python -m replay.clauses")
            return 1
        print(f"{CLAUSES_JSON} agrees with {args.rules} ({len(wanted)} clauses)")
        return 0
    CLAUSES_JSON.write_text(dump(wanted), encoding="utf-8")
    print(f"{len(wanted)} clauses written to {CLAUSES_JSON}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
