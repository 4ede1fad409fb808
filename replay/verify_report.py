"""What ``replay verify`` reports: the place of an event in the log (``Where``), a fault found
there (``Fault``, of one of ``CHECKS``), and the whole report, as text or as JSON."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

CHECKS = ("decode", "chain", "positions", "shuffle", "money", "rounds", "snapshot", "head")


@dataclass(frozen=True)
class Where:
    position: int
    stream: str
    version: int | None  # None: a stored row whose version is no version (replay.stored_row)
    type: str  # "": a stored row whose topic is no text

    def snapshot(self, version: int | None = None) -> Where:
        """The stored snapshot of this stream at ``version`` (default: this event's)."""
        return Where(
            self.position, self.stream, self.version if version is None else version, "Snapshot"
        )


# How a check reports a fault of its own kind: fault(where, problem).
OnFault = Callable[[Where, str], None]


@dataclass
class Fault:
    position: int
    stream: str
    version: int | None
    type: str
    check: str  # one of CHECKS
    problem: str

    @classmethod
    def at(cls, where: Where, check: str, problem: str) -> Fault:
        return cls(where.position, where.stream, where.version, where.type, check, problem)

    def describe(self) -> str:
        if not self.stream:  # a fault of the whole log, not of one event
            return f"the log (position {self.position}): {self.problem}"
        # A row whose topic or version cannot be read: "event v4", "Round.Ended".
        version = "" if self.version is None else f" v{self.version}"
        return (
            f"{self.type or 'event'}{version} of stream {self.stream} "
            f"(position {self.position}): {self.problem}"
        )


@dataclass
class Report:
    scope: str
    events: int = 0
    streams: int = 0
    shoes_checked: int = 0
    cards_checked: int = 0
    unrevealed: list[dict[str, Any]] = field(default_factory=list)
    credit_exempt: list[str] = field(default_factory=list)
    balances_sum: int = 0
    snapshots_checked: int = 0
    # The log's last position, the hash of the event there, and the log's digest up to it
    # (replay.log_digest): ``POSITION:DIGEST`` is the checkpoint to keep, and to give a later
    # run as ``--expect-head``.
    head_position: int = 0
    head_hash: str | None = None
    head_digest: str | None = None
    expected_head: str | None = None
    expected_head_note: str = ""  # how a checkpoint that holds was weaker than a digest
    faults: list[Fault] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.faults

    @property
    def first(self) -> Fault | None:
        return self.faults[0] if self.faults else None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["ok"] = self.ok
        out["first_fault"] = asdict(self.first) if self.first else None
        return out

    def text(self) -> str:
        lines = []
        if self.ok:
            lines.append(f"verify ({self.scope}): OK")
        else:
            lines.append(f"verify ({self.scope}): FAILED at {self.first.describe()}")
        lines.append(f"  {self.events} events in {self.streams} streams: hash chains checked")
        lines.append(
            f"  {self.shoes_checked} revealed shoes checked against their commitments; "
            f"{self.cards_checked} cards checked against the shuffle"
        )
        for shoe in self.unrevealed:
            lines.append(
                f"  shoe {shoe['shoe']}: not yet revealed ({shoe['cards']} cards wait for the "
                "reveal)"
            )
        lines.append(f"  balances of all accounts sum to {self.balances_sum}")
        lines.append(
            f"  {self.snapshots_checked} stored snapshots checked against their streams' events"
        )
        lines.append(f"  log head: {self.head_position}:{self.head_digest or '-'}")
        if self.expected_head:
            held = not any(f.check == "head" for f in self.faults)
            verdict = "holds" if held else "does NOT hold (see the fault)"
            if held and self.expected_head_note:
                verdict += f" ({self.expected_head_note})"
            lines.append(f"  expected head {self.expected_head}: {verdict}")
        for table in self.credit_exempt:
            lines.append(f"  table {table} gives credit: its wallets may go below zero")
        if len(self.faults) > 1:
            lines.append(f"  {len(self.faults)} faults in all:")
            lines.extend(f"    [{f.check}] {f.describe()}" for f in self.faults)
        return "\n".join(lines)
