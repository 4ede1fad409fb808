"""``replay verify``: the rounds as their own streams and as their tables record them must
agree, and the rounds other streams name must be there.

Dropping a stream's last events leaves its own chain intact, but not the other streams that
recorded the same facts in the same write. A round starts in the write that records it in
its table's stream (``Table.RoundOpened``), and ends in the write that closes it there
(``Table.RoundClosed``); a table opens a round only once its last one has closed; a transfer
names the round it is for (its ``round_id``, or the round's escrow). So:

- a round its table closed has its stream, and that stream its ``Round.Ended``;
- a round its table opened, or a transfer names, has its stream;
- a round that started (``Round.Started``) has its table's ``Table.RoundOpened``, and one
  that ended (``Round.Ended``) its table's ``Table.RoundClosed``: the table's last events
  dropped are named so;
- a round its table opened another round after has its ``Table.RoundClosed`` before it;
- a round that ended passing the deal (its ``Round.Ended`` says so: a natural under VU-10,
  H13-4 on a natural or every round) has its table's ``Table.DealPassed`` right after its
  ``Table.RoundClosed``, written with it.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ledger import accounts
from replay.verify_report import OnFault, Where


class Rounds:
    """The rounds as their own streams and other streams record them, fed by the one pass;
    ``check`` calls ``fault(where, problem)`` for each round named but not there, or not whole,
    and each record of a table's that is missing though its rounds show it was made."""

    def __init__(self, fault: OnFault) -> None:
        self.fault = fault
        self.table: dict[str, str] = {}  # each round stream's table, from its Round.Started
        self.credit: dict[str, bool] = {}  # whether the round's table gives credit
        self.started_at: dict[str, Where] = {}  # each round stream's Round.Started
        self.ended: dict[str, Where] = {}
        # Rounds whose Round.Ended passed the deal, with the clause; each table's DealPassed
        # versions (the passing follows the round's closing in the table's stream).
        self.passes: dict[str, tuple[Where, str]] = {}
        self.deal_passed: dict[str, set[int | None]] = defaultdict(set)
        # Rounds as other streams name them: closed by their table, opened by it, and named
        # by a transfer (its round_id or the round's escrow); the first such event each.
        self.closed: dict[str, Where] = {}
        self.opened: dict[str, Where] = {}
        self.named: dict[str, Where] = {}

    def started(self, stream: str, event: Any, where: Where | None = None) -> None:
        self.table[stream] = str(event.table_id)
        self.credit[stream] = bool(event.rules.get("credit"))
        if where is not None:
            self.started_at[stream] = where

    def ended_at(self, stream: str, event: Any, where: Where) -> None:
        self.ended[stream] = where
        if getattr(event, "passes_deal", False):
            self.passes[stream] = (where, str(event.clause))

    def named_by(self, where: Where, transfer: Any) -> None:
        if transfer.round_id and transfer.round_id not in self.named:
            self.named[transfer.round_id] = where
        for account in (transfer.from_account, transfer.to_account):
            round_id = accounts.escrow_owner(account)
            if round_id is not None:
                self.named.setdefault(round_id, where)

    def check(self, last: dict[str, Where]) -> None:
        """``last``: each stream's last event read."""
        for rid, where in self.closed.items():
            if rid not in self.table:
                self.fault(where, f"the table closed round {rid}, which has no stream")
            elif rid not in self.ended:
                end = last[rid]
                self.fault(
                    where,
                    f"the table closed round {rid}, whose stream has no Round.Ended (it ends "
                    f"at {end.type} v{end.version})",
                )
        for rid, where in self.opened.items():
            if rid not in self.table and rid not in self.closed:
                self.fault(where, f"the table opened round {rid}, which has no stream")
        for rid, where in self.named.items():
            if rid not in self.table and rid not in self.closed and rid not in self.opened:
                self.fault(where, f"a transfer names round {rid}, which has no stream")
        self.check_tables()

    def check_tables(self) -> None:
        """Each table's record of its rounds against the rounds' own streams: what the
        rounds show was written in the same write as a record the table no longer holds."""
        for rid, where in self.started_at.items():
            if rid not in self.opened:
                self.fault(
                    where,
                    f"table {self.table[rid]}'s Table.RoundOpened for round {rid} is missing: "
                    f"the round started at position {where.position}, and a round is opened "
                    "in its table's stream in the same write",
                )
        for rid, where in self.ended.items():
            if rid not in self.closed and rid in self.table:
                self.fault(
                    where,
                    f"table {self.table[rid]}'s Table.RoundClosed for round {rid} is missing: "
                    f"the round ended at position {where.position}, and a round is closed in "
                    "its table's stream in the same write",
                )
        for rid, (_, clause) in self.passes.items():
            closing = self.closed.get(rid)
            if closing is None or closing.version is None:
                continue  # a round its table did not close is named above
            if closing.version + 1 not in self.deal_passed.get(closing.stream, ()):
                self.fault(
                    closing,
                    f"table {closing.stream}'s Table.DealPassed after round {rid} is missing: "
                    f"the round ended passing the deal ({clause}), and the deal passes in its "
                    "table's stream in the same write, right after the round's closing",
                )
        by_table: dict[str, list[tuple[Where, str]]] = defaultdict(list)
        for rid, where in self.opened.items():
            by_table[where.stream].append((where, rid))
        for table, rounds in by_table.items():
            rounds.sort(key=lambda opened: opened[0].position)
            for (_, earlier), (later, rid) in zip(rounds, rounds[1:], strict=False):
                # A round that ended without its closing is named at its end (above).
                if earlier not in self.closed and earlier not in self.ended:
                    self.fault(
                        later,
                        f"table {table}'s Table.RoundClosed for round {earlier} is missing: "
                        f"the table opened round {rid} after it (position {later.position}), "
                        "and a table opens a round only once its last one has closed",
                    )
