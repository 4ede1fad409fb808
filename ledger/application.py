"""The use cases of Twenty-One Ledger, for all four families, as one event-sourced
application. Each public method is one command: it loads what it needs, lets the domain
decide, and saves every changed aggregate in one atomic write. A refused command raises a
``LedgerError`` and writes nothing.

The commands are grouped by what they act on, in ``ledger/use_cases/``: the bankroll, tables,
rounds, the pool and the deal. What they share is the command plumbing (``_run``, in
ledger/command_runner.py) and, in this module, the store and its configuration and the
queries."""

from __future__ import annotations

from collections.abc import Callable
from math import gcd
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application, Recording
from eventsourcing.persistence import Mapper, Transcoder

from ledger.command_runner import CommandRunner
from ledger.config import DEFAULT_CACHE_SIZE, sibling_store_env
from ledger.domain.chain import project, snapshot_state
from ledger.domain.player import Player
from ledger.domain.round import Round
from ledger.domain.shoe import Shoe
from ledger.domain.table import Table
from ledger.event_store import LedgerEventStore, LedgerMapper
from ledger.repository import LedgerRepository
from ledger.rules import RuleSet
from ledger.settings import env_bool
from ledger.shoes import ShoeService
from ledger.startup import ConcurrentStartup
from ledger.transcoder import OrjsonTranscoder
from ledger.unit_of_work import LedgerProcessingEvent, UnitOfWork
from ledger.use_cases.bankroll import Bankroll
from ledger.use_cases.choices import Choices
from ledger.use_cases.pool_and_deal import PoolAndDeal
from ledger.use_cases.retired_shoes import RetiredShoes
from ledger.use_cases.rounds import Rounds
from ledger.use_cases.tables import Tables
from ledger.vault import ShoeVault


class TwentyOneLedger(
    Bankroll,
    Tables,
    Rounds,
    Choices,
    PoolAndDeal,
    RetiredShoes,
    CommandRunner,
    ConcurrentStartup,
    Application,
):
    name = "TwentyOneLedger"
    snapshotting_intervals = {Table: 50, Player: 50}
    snapshotting_projectors = {Table: project, Player: project}
    env = {"AGGREGATE_CACHE_MAXSIZE": str(DEFAULT_CACHE_SIZE)}

    def __init__(self, env: dict[str, Any] | None = None) -> None:
        super().__init__(env)
        self.vault = ShoeVault(sibling_store_env(self.env, "vault"))
        allow_fixed = env_bool("LEDGER_ALLOW_FIXED_SHOES", False, self.env)
        self.shoes = ShoeService(self.vault, allow_fixed)
        # A round's rules, rebuilt from the record its Started event keeps (the table's, which
        # never change), by round id: actions need not load the table to read them.
        # A table's too (``table_rules``), by table id: a table's rules never change.
        self._rules: dict[str, RuleSet] = {}
        # Events this application has written, its own only (other writers to a shared store
        # are not counted, as the store's last position would count them). For the simulator,
        # which writes from one thread: threads sharing an application may miss a count.
        self.events_written = 0

    def close(self) -> None:
        self.vault.close()
        super().close()

    def save(self, *objs: Any, **kwargs: Any) -> list[Recording]:
        """eventsourcing's ``save``, collecting our aggregates' events without its runtime
        protocol checks (``LedgerProcessingEvent``); the rest is the library's own steps."""
        processing_event = LedgerProcessingEvent()
        processing_event.collect_events(*objs, **kwargs)
        recordings = self._record(processing_event)
        self.events_written += len(processing_event.events)
        self._take_snapshots(processing_event)
        self._notify(recordings)
        self.notify(processing_event.events)  # deprecated, but the library still calls it
        return recordings

    def _take_snapshots(self, processing_event: Any) -> None:
        """eventsourcing's, but taken from the aggregate just saved rather than rebuilt from the
        store at the interval's version (a snapshot a few events later is as good); about a
        twentieth of a command's time while tables and wallets snapshot every 50 events."""
        if not (self.snapshots and self.snapshotting_intervals):
            return
        intervals = self.snapshotting_intervals
        aggregates = processing_event.aggregates
        # One pass over the events, rather than one per aggregate saved; a version at a
        # multiple of any interval is at a multiple of their gcd, so most events stop there.
        step = gcd(*intervals.values())
        due = set()
        for e in processing_event.events:
            if e.originator_version % step == 0:
                interval = intervals.get(type(aggregates.get(e.originator_id)))
                if interval is not None and e.originator_version % interval == 0:
                    due.add(e.originator_id)
        for aggregate_id, aggregate in aggregates.items():
            if aggregate_id in due:
                self.snapshots.put([type(aggregate).Snapshot.take(snapshot_state(aggregate))])

    def construct_transcoder(self) -> Transcoder:
        """The library's JSON transcoder, writing the same bytes faster (ledger/transcoder.py);
        or, when TRANSCODER_TOPIC names one, that one."""
        if self.factory.env.get(self.factory.TRANSCODER_TOPIC):
            return super().construct_transcoder()
        transcoder = OrjsonTranscoder()
        self.register_transcodings(transcoder)
        return transcoder

    def construct_mapper(self) -> Mapper:
        """eventsourcing's, making its stored events for less (ledger/event_store.py); or,
        when MAPPER_TOPIC names one, that one."""
        if self.factory.env.get(self.factory.MAPPER_TOPIC):
            return super().construct_mapper()
        return self.factory.mapper(
            transcoder=self.construct_transcoder(), mapper_class=LedgerMapper
        )

    def construct_event_store(self) -> LedgerEventStore:
        # eventsourcing's, making its recordings for less (see ledger/event_store.py).
        return LedgerEventStore(mapper=self.mapper, recorder=self.recorder)

    def construct_repository(self) -> LedgerRepository:
        # eventsourcing's, configured from the same settings (see ledger/repository.py).
        base = super().construct_repository()
        repository = LedgerRepository(
            event_store=base.event_store,
            snapshot_store=base.snapshot_store,
            fastforward=base.fastforward,
            fastforward_skipping=base.fastforward_skipping,
            # Always: a command changes the aggregates it loads, and the cached ones must never
            # change (DEEPCOPY_FROM_AGGREGATE_CACHE=n is not honoured).
            deepcopy_from_cache=True,
        )
        repository.cache = base.cache
        return repository

    # -- queries -------------------------------------------------------------------------------

    def _remembered_rules(self, aggregate_id: str, make: Callable[[], RuleSet]) -> RuleSet:
        rules = self._rules.get(aggregate_id)
        if rules is None:
            if len(self._rules) >= 2000:
                self._rules.clear()
            rules = self._rules[aggregate_id] = make()
        return rules

    def table_rules(self, table_id: str) -> RuleSet:
        """A table's rules, fixed when it opened: read from the store once per table."""
        return self._remembered_rules(str(table_id), lambda: self.get_table(table_id).rules)

    def get_table(self, table_id: str, version: int | None = None, *, copy: bool = True) -> Table:
        """The table now, or as it stood at ``version``. ``copy=False`` as for ``get_round``."""
        if version is not None:
            return self.repository.get(UUID(str(table_id)), version=version)
        if not copy:
            table = self._cached(table_id)
            if isinstance(table, Table):
                return table
        return UnitOfWork(self).table(table_id)

    def get_round(self, round_id: str, version: int | None = None, *, copy: bool = True) -> Round:
        """The round now, or as it stood at ``version``. ``copy=False`` returns the cached
        object itself: faster, for callers that only read it (the simulator)."""
        if version is not None:
            return self.repository.get(UUID(str(round_id)), version=version, projector_func=project)
        if not copy:
            rnd = self._cached(round_id)
            if isinstance(rnd, Round):
                return rnd
        return UnitOfWork(self).round(round_id)

    def _cached(self, aggregate_id: str) -> Any:
        """The aggregate up to date, as the cache shares it (not copied: only to be read), or
        None where ``UnitOfWork`` should load it and say what is wrong."""
        try:
            return self.repository.get(
                UUID(str(aggregate_id)), projector_func=project, deepcopy_from_cache=False
            )
        except (AggregateNotFoundError, ValueError):
            return None

    def get_player(self, player_id: str) -> Player:
        return UnitOfWork(self).player(player_id)

    def get_shoe(self, shoe_id: str) -> Shoe:
        return self.repository.get(UUID(str(shoe_id)))

    def account_balance(self, account: str) -> int:
        """Any account's balance, folded from every transfer recorded (slow: for checks)."""
        from ledger.balances import fold_balances

        return fold_balances(self).get(account, 0)
