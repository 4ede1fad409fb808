"""``replay verify``: the rounds other streams name must be there, and whole.

Dropping a stream's last events leaves its own chain intact; the table's record of the round
(``Table.RoundOpened``, ``Table.RoundClosed``) and the transfers naming it (their ``round_id``,
or the round's escrow) do not go with them. A round its table closed must have its stream, and
that stream its ``Round.Ended``; a round its table opened, or a transfer names, its stream.
"""

from __future__ import annotations

from typing import Any

from ledger import accounts
from replay.verify_report import OnFault, Where


class Rounds:
    """The rounds as their own streams and other streams record them, fed by the one pass;
    ``check`` calls ``fault(where, problem)`` for each round named but not there, or not whole."""

    def __init__(self, fault: OnFault) -> None:
        self.fault = fault
        self.table: dict[str, str] = {}  # each round stream's table, from its Round.Started
        self.credit: dict[str, bool] = {}  # whether the round's table gives credit
        self.ended: dict[str, Where] = {}
        # Rounds as other streams name them: closed by their table, opened by it, and named
        # by a transfer (its round_id or the round's escrow); the first such event each.
        self.closed: dict[str, Where] = {}
        self.opened: dict[str, Where] = {}
        self.named: dict[str, Where] = {}

    def started(self, stream: str, event: Any) -> None:
        self.table[stream] = str(event.table_id)
        self.credit[stream] = bool(event.rules.get("credit"))

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
