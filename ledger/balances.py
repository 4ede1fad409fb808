"""Balances folded from every recorded transfer: the proof that the books balance."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

from eventsourcing.utils import get_topic

from ledger.domain.transfers import FundsTransferredBase


def transfer_topics() -> list[str]:
    """The topics of every aggregate's transfer event: a fold reads and decodes only these."""
    from ledger.domain.player import Player
    from ledger.domain.round import Round
    from ledger.domain.table import Table

    return [get_topic(c.FundsTransferred) for c in (Player, Round, Table)]


def transfers(app: Any) -> list[Any]:
    out = []
    for notification in notifications(app, transfer_topics()):
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


def notifications(app: Any, topics: Sequence[str] = (), batch: int = 1000) -> Iterator[Any]:
    """Every stored event (or those of ``topics``) in global order, read in pages."""
    start = 1
    while True:
        items = app.recorder.select_notifications(start=start, limit=batch, topics=topics)
        if not items:
            return
        yield from items
        start = items[-1].id + 1
