"""The one pass of ``python -m replay verify`` over the notification log (``replay.verify``
lists what it checks): each stored event is read once, and a row that cannot be read, an
event that cannot be decoded, or one whose fields are not those its type records is a fault of
its own (the ``decode`` check); every other event is fed to the checks that want it (the
``verify_*`` modules beside this one), which ``finish`` ends and ``report`` reports on.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any
from uuid import UUID

from ledger.domain.round import Round
from ledger.domain.shoe import Shoe
from ledger.domain.table import Table
from ledger.domain.transfers import FundsTransferredBase
from replay.damage import ALTERED
from replay.event_shape import foreign_topic, misshapen
from replay.stored_row import row_problem, stream_text, type_name, version_of
from replay.verify_balances import Balances
from replay.verify_chain import Chains
from replay.verify_head import LogHead
from replay.verify_money import MoneyMoved
from replay.verify_positions import Positions, gapless_store
from replay.verify_report import CHECKS, Fault, Report, Where
from replay.verify_rounds import Rounds
from replay.verify_shoes import ShoesAndCards
from replay.verify_snapshots import Snapshots

CARD_EVENTS = (Round.CardDealt, Round.CardBurned, Table.CutForDeal)


class Verifier:
    """The one pass over the log: each event is read once and fed to the checks that want it
    (``feed``); ``finish`` ends them, ``report`` tells what they found."""

    def __init__(self, app: Any = None, expect_head: tuple[int, str] | None = None) -> None:
        """``app``: the application whose snapshots to check (none without it);
        ``expect_head``: a checkpoint (position, digest) the log must still reach."""
        self.faults: list[Fault] = []
        self.snapshots = None if app is None else Snapshots(app, self.snapshot_fault)
        self.log_head = LogHead(expect_head)
        self.chains = Chains(self.chain_fault)
        self.positions = Positions(gapless_store(app), self.positions_fault)  # SQLite, memory
        self.rounds = Rounds(self.rounds_fault)
        self.shoes = ShoesAndCards(self.shuffle_fault)
        self.balances = Balances(self.faults)
        self.moved = MoneyMoved(self.money_fault)  # transfers against what the events say
        self.last: dict[str, Where] = {}  # each stream's last event read
        self.stream_events: Counter[str] = Counter()
        self.events = 0
        self.table_credit: dict[str, bool] = {}
        self.table_players: dict[str, set[str]] = defaultdict(set)

    def fault(self, where: Where, check: str, problem: str) -> Fault:
        found = Fault.at(where, check, problem)
        self.faults.append(found)
        return found

    def chain_fault(self, where: Where, problem: str) -> Fault:
        return self.fault(where, "chain", problem)

    def positions_fault(self, where: Where, problem: str) -> None:
        self.fault(where, "positions", problem)

    def rounds_fault(self, where: Where, problem: str) -> None:
        self.fault(where, "rounds", problem)

    def snapshot_fault(self, where: Where, problem: str) -> None:
        self.fault(where, "snapshot", problem)

    def money_fault(self, where: Where, problem: str) -> None:
        self.fault(where, "money", problem)

    def shuffle_fault(self, where: Where, problem: str) -> None:
        self.fault(where, "shuffle", problem)

    # -- one event ------------------------------------------------------------------------

    def feed(self, notification: Any, mapper: Any) -> None:
        self.events += 1
        self.positions.feed(notification)
        problem = row_problem(notification)
        if problem is not None:  # a row the ledger never writes: NULL, text, no UUID …
            where = Where(
                notification.id,
                stream_text(notification.originator_id),
                version_of(notification.originator_version),
                type_name(notification.topic),
            )
            self.cannot_read(notification, where, f"the stored event cannot be decoded ({problem})")
            return
        stream = str(notification.originator_id)
        version = notification.originator_version
        try:
            event = mapper.to_domain_event(notification)
        except Exception as error:  # a stored row that no longer decodes is itself a fault
            where = Where(notification.id, stream, version, type_name(notification.topic))
            self.cannot_read(notification, where, f"the stored event cannot be decoded ({error})")
            return
        self.stream_events[stream] += 1
        where = Where(notification.id, stream, version, type(event).__qualname__)
        intact = self.chains.check(where, event)
        self.read(where)
        self.log_head.add(notification, where, self.chains.own_hash)
        # JSON that still parses but lost a field, or holds text for a number, decodes without
        # complaint: every later check would meet it as an AttributeError or a wrong sum.
        wrong = foreign_topic(notification.topic, event) or misshapen(event)
        if wrong is not None:
            problem = (
                f"the stored event was altered: {ALTERED} ({wrong})"
                if not intact
                # Its hash fits: it was written so (by a forger who hashed it, or a bug).
                else f"the event's fields are not those its type records ({wrong})"
            )
            self.fault(where, "decode", problem)
            self.unreadable(stream)
            return
        snapshots = self.snapshots
        if snapshots is not None and not self.chains.in_order:
            # After a gap, or read after later events of its stream: a fold that skipped an
            # event, or took them out of order, weighs nothing (the chain's fault names it).
            snapshots.forget(stream)
            snapshots = None
        try:
            self.facts(where, stream, event)
            if snapshots is not None:
                if version == 1:
                    snapshots.first_event(where, event)
                snapshots.feed(where, event)
        except Exception as error:  # a value no check expects: named, and the pass goes on
            self.fault(
                where, "decode", f"the event cannot be checked ({type(error).__name__}: {error})"
            )
            self.unreadable(stream)

    def cannot_read(self, notification: Any, where: Where, problem: str) -> None:
        """A stored event that cannot be read or decoded: a fault, and its stream no longer
        held to its money and snapshots; the chain and the log's digest go on past it."""
        self.stream_events[where.stream] += 1
        self.fault(where, "decode", problem)
        self.unreadable(where.stream)
        if isinstance(notification.originator_id, UUID):  # else of no stream the log holds
            self.chains.undecodable(where)
        self.read(where)
        self.log_head.add(notification, where, None)

    def read(self, where: Where) -> None:
        """``where`` is the stream's last event read, unless a later version was read before."""
        last = self.last.get(where.stream)
        if last is None or last.version is None or (where.version or 0) > last.version:
            self.last[where.stream] = where

    def unreadable(self, stream: str) -> None:
        """A stream with an event that cannot be read (a fault names it) is not held to its
        money nor to its snapshots: every such fault would follow from that one."""
        self.moved.unreadable(stream)
        self.balances.unreadable(stream)
        if self.snapshots is not None:
            self.snapshots.forget(stream)

    def facts(self, where: Where, stream: str, event: Any) -> None:
        self.moved.event(where, stream, event)
        shoes = self.shoes
        if isinstance(event, FundsTransferredBase):
            self.money(where, stream, event)
        elif isinstance(event, CARD_EVENTS):
            shoes.card(where, stream, event, dealt=type(event) is Round.CardDealt)
        elif isinstance(event, Round.TwoCardsResolved):
            if event.rejected:
                shoes.rejected(stream, event.rejected)
        elif isinstance(event, Round.ShoeReplaced):
            shoes.shoe_replaced_in(where, stream, event)
        elif isinstance(event, Table.RoundOpened):
            self.rounds.opened.setdefault(str(event.round_id), where)
        elif isinstance(event, Table.RoundClosed):
            self.rounds.closed.setdefault(str(event.round_id), where)
        elif isinstance(event, Round.Started):
            self.rounds.started(stream, event, where)
        elif isinstance(event, Round.Ended):
            self.rounds.ended_at(stream, event, where)
        elif isinstance(event, Table.DealPassed):
            self.rounds.deal_passed[stream].add(where.version)
        elif isinstance(event, Table.PoolOpened):
            self.balances.pool_opened(where, stream, event)
        elif isinstance(event, Table.Opened):
            self.table_credit[stream] = bool(event.rules.get("credit"))
        elif isinstance(event, Table.PlayerSeated):
            self.table_players[stream].add(event.player_id)
        elif isinstance(event, Shoe.Committed):
            shoes.committed(where, stream, event)
        elif isinstance(event, Shoe.Cut):
            shoes.cut(where, stream, event)
        elif isinstance(event, Shoe.Revealed):
            shoes.revealed(where, stream, event)
        elif isinstance(event, Table.ShoeChanged):
            shoes.shoe_changed(where, stream, event)
        elif isinstance(event, Table.Closed):
            shoes.table_closed_at(where, stream)

    def money(self, where: Where, stream: str, event: Any) -> None:
        if not self.balances.transfer(where, event):
            return
        self.moved.transfer(where, event)
        self.rounds.named_by(where, event)
        self.balances.guard(where, stream, event)

    # -- after the last event ---------------------------------------------------------------

    def finish(self) -> None:
        # Each check's faults keep their order; the report sorts by position, then check.
        # Not free: the balances' sum fault is placed after every fault found before it, so
        # it comes after the checks it follows, and the checkpoint reads every fault: last.
        self.chains.finish()
        self.positions.finish()
        self.shoes.finish()
        self.rounds.check(self.last)
        self.moved.finish()
        self.balances.finish(self.rounds)
        if self.snapshots is not None:
            self.snapshots.finish(self.last.__getitem__)
        self.log_head.check(self.faults)

    # -- the report -------------------------------------------------------------------------

    def report(self, table: str | None) -> Report:
        faults = sorted(self.faults, key=lambda f: (f.position, CHECKS.index(f.check)))
        events, streams_seen = self.events, len(self.chains)
        streams = None if table is None else self.table_streams(table)
        if streams is not None:
            events = sum(self.stream_events[s] for s in streams)
            streams_seen = sum(1 for s in streams if s in self.stream_events)
            # A fault of the whole log, or of a row whose stream id is unread (it may be any
            # table's), is every table's.
            faults = [f for f in faults if f.stream in streams or f.stream not in self.chains]
        shoes_checked, cards_checked, unrevealed = self.shoes.summary(table)
        credit = sorted(t for t, c in self.table_credit.items() if c)
        log = self.log_head
        head = log.head
        return Report(
            scope="all streams" if table is None else f"table {table}",
            events=events,
            streams=streams_seen,
            shoes_checked=shoes_checked,
            cards_checked=cards_checked,
            unrevealed=unrevealed,
            credit_exempt=credit if table is None else [t for t in credit if t == table],
            balances_sum=self.balances.total,
            snapshots_checked=self.snapshots_checked(streams),
            head_position=0 if head is None else head.position,
            head_hash=log.head_hash,
            head_digest=None if head is None else log.digest,
            expected_head_note=log.note,
            expected_head=None if log.expect is None else ":".join(map(str, log.expect)),
            faults=faults,
        )

    def snapshots_checked(self, streams: set[str] | None) -> int:
        """How many stored snapshots were checked: of every stream, or only of ``streams``."""
        if self.snapshots is None:
            return 0
        if streams is None:
            return self.snapshots.checked
        return sum(self.snapshots.checked_in[s] for s in streams)

    def table_streams(self, table: str) -> set[str]:
        streams = {table}
        streams.update(r for r, t in self.rounds.table.items() if t == table)
        streams.update(s for s, rec in self.shoes.shoes.items() if rec.table == table)
        streams.update(self.table_players.get(table, ()))
        return streams
