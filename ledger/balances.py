"""Balances folded from every recorded transfer: the proof that the books balance."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ledger.domain.transfers import FundsTransferredBase


def transfers(app: Any) -> list[Any]:
    out = []
    for notification in _notifications(app):
        event = app.mapper.to_domain_event(notification)
        if isinstance(event, FundsTransferredBase):
            out.append(event)
    return out


def fold_balances(app: Any) -> dict[str, int]:
    balances: dict[str, int] = defaultdict(int)
    for t in transfers(app):
        balances[t.from_account] -= t.amount
        balances[t.to_account] += t.amount
    return dict(balances)


def _notifications(app: Any, batch: int = 1000) -> Any:
    start = 1
    while True:
        items = app.recorder.select_notifications(start=start, limit=batch)
        if not items:
            return
        yield from items
        start = items[-1].id + 1
