"""What a rederivation found: the round's settlements as recorded and as today's rules settle
them, hand by hand, the differences, and how the replay went (``replay.rederive``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ledger.domain.round import Round

SETTLEMENT_FIELDS = ("outcome", "amount", "multiplier", "rounding", "clauses", "stake")


@dataclass
class Rederivation:
    round_id: str
    family: str
    settlements: list[dict[str, Any]] = field(default_factory=list)
    # What makes the round differ: its settlements', then money-bearing fields of its other
    # events (``replay.rederive_money``); ``concerns`` names the hands each one touches.
    differences: list[str] = field(default_factory=list)
    concerns: list[tuple[str, ...]] = field(default_factory=list)
    # Differences that move no money, or that the ledger's older records are known to show.
    event_differences: list[str] = field(default_factory=list)
    diverged: str | None = None  # why the replay could not follow the record to its end
    set_up: bool = True  # False: the round's table could not be set up again to replay it
    decisions: int = 0
    in_play: bool = False  # the round has not ended: there is no settlement to compare yet
    events: int = 0  # the recorded events walked

    def add_difference(self, text: str, hands: tuple[str, ...] = ()) -> None:
        self.differences.append(text)
        self.concerns.append(hands)

    @property
    def hands_differing(self) -> list[str]:
        """The hands a difference touches, each once, in the round's order."""
        found = {h for hands in self.concerns for h in hands}
        return sorted(found, key=_hand_order)

    @property
    def matches(self) -> bool:
        """The settlement was rederived and matches (never for a round still in play)."""
        return not self.differences and self.diverged is None and not self.in_play

    def to_dict(self) -> dict[str, Any]:
        return {
            "round_id": self.round_id,
            "family": self.family,
            "matches": self.matches,
            "decisions_replayed": self.decisions,
            "settlements": self.settlements,
            "differences": self.differences,
            "hands_differing": self.hands_differing,
            "event_differences": self.event_differences,
            "diverged": self.diverged,
            "in_play": self.in_play,
            "events_compared": self.events,
        }

    def text(self) -> str:
        lines = [
            f"round {self.round_id} ({self.family}): {self.decisions} decisions replayed "
            "through today's rules"
        ]
        for s in self.settlements:
            rec, now = s["recorded"], s["rederived"]
            lines.append(
                f"  {s['hand']}: recorded {_money(rec)}, rederived {_money(now)}"
                + ("" if rec == now else "  <-- differs")
            )
        if self.diverged:
            lines.append(f"  the replay diverged: {self.diverged}")
        for d in self.event_differences:
            lines.append(f"  event differs: {d}")
        if self.in_play:
            so_far = "" if self.diverged else ", and they follow today's rules"
            lines.append(
                f"no settlement to compare: the round is still in play ({self.events} recorded "
                f"events compared, {self.decisions} decisions replayed{so_far})"
            )
        elif self.matches:
            lines.append("settlement matches")
        else:
            settled = any(s["recorded"] != s["rederived"] for s in self.settlements)
            lines.append("settlement DIFFERS:" if settled else "the round's money DIFFERS:")
            lines.extend(f"  {d}" for d in self.differences)
        return "\n".join(lines)


def _money(settled: dict[str, Any] | None) -> str:
    if settled is None:
        return "nothing"
    return (
        f"{settled['outcome']} {settled['amount']:+d} "
        f"(x{settled['multiplier']}, {', '.join(settled['clauses'])})"
    )


def compare_settlements(recorded: list[Any], result: Rederivation) -> None:
    """Hand by hand: what was recorded against what today's rules settle (collected by the
    walk in ``result.settlements[...]['rederived']``)."""
    rederived = {s["hand"]: s["rederived"] for s in result.settlements}
    was = {e.hand: settlement(e) for e in recorded if isinstance(e, Round.HandSettled)}
    hands = sorted(was.keys() | rederived.keys(), key=_hand_order)
    result.settlements = [
        {"hand": h, "recorded": was.get(h), "rederived": rederived.get(h)} for h in hands
    ]
    lines = []
    for h in hands:
        a, b = was.get(h), rederived.get(h)
        if a == b:
            continue
        if a is None:
            lines.append((f"{h}: not settled in the record; today: {_money(b)}", (h,)))
        elif b is None:
            lines.append((f"{h}: recorded {_money(a)}; today's replay settles nothing", (h,)))
        else:
            changed = [k for k in SETTLEMENT_FIELDS if a[k] != b[k]]
            said = "; ".join(f"{k} recorded {a[k]!r}, rederived {b[k]!r}" for k in changed)
            lines.append((f"{h}: {said}", (h,)))
    # The settlements' differences first, then those of the other events' money.
    result.differences[:0] = [text for text, _ in lines]
    result.concerns[:0] = [hands for _, hands in lines]


def settlement(e: Any) -> dict[str, Any]:
    """The fields of a ``HandSettled`` that are compared."""
    return {
        k: (list(getattr(e, k)) if k == "clauses" else getattr(e, k)) for k in SETTLEMENT_FIELDS
    }


def _hand_order(hand: str) -> tuple[int, str]:
    return (int(hand[1:]), hand) if hand[1:].isdigit() else (10**6, hand)
