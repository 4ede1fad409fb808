"""The use cases of Twenty-One Ledger, for all four families, as one event-sourced
application. Each public method is one command: it loads what it needs, lets the domain
decide, and saves every changed aggregate in one atomic write. A refused command raises a
``LedgerError`` and writes nothing.

The commands are grouped by what they act on, in ``ledger/use_cases/``: the bankroll, tables,
rounds, the pool and the deal. This module holds what they share: the store and its
configuration, the command plumbing (``_run``) and the queries."""

from __future__ import annotations

from collections.abc import Callable
from math import gcd
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application, Recording
from eventsourcing.persistence import IntegrityError, Mapper, Transcoder

from ledger.config import DEFAULT_CACHE_SIZE, sibling_store_env
from ledger.domain.acted_for import record_given_by
from ledger.domain.chain import project, snapshot_state
from ledger.domain.command import CommandRecord, command_record_id, fingerprint
from ledger.domain.player import Player
from ledger.domain.round import Round
from ledger.domain.shoe import Shoe
from ledger.domain.table import Table
from ledger.errors import ConcurrentUpdate, IdempotencyConflict, InvalidCommand, LedgerError
from ledger.event_store import LedgerEventStore, LedgerMapper
from ledger.given_by import current_giver, given_by
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
    ConcurrentStartup,
    Application,
):
    name = "TwentyOneLedger"
    snapshotting_intervals = {Table: 50, Player: 50}
    snapshotting_projectors = {Table: project, Player: project}
    env = {"AGGREGATE_CACHE_MAXSIZE": str(DEFAULT_CACHE_SIZE)}
    # Told the id of each command answered from its record instead of run, whatever the
    # caller makes of the result (the API marks such an answer a replay; api/idempotency.py).
    on_replay: Callable[[str], Any] | None = None
    # How many times a command that lost a race is decided again before ``ConcurrentUpdate``
    # reaches the caller (``_run``). 0 by default, so a caller sees every race; the HTTP API
    # retries (api/__init__.py), as its clients would, with the same outcome.
    conflict_retries = 0
    # ``with app.given_by("ops: refund script"):`` records who gives the commands run inside
    # (ledger/given_by.py), as the API does for an admin key.
    given_by = staticmethod(given_by)

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

    # -- command plumbing ----------------------------------------------------------------

    def _run(
        self,
        name: str,
        payload: dict[str, Any],
        command_id: str | None,
        actor: str,
        body: Callable[[UnitOfWork], dict[str, Any]],
    ) -> dict[str, Any]:
        """Run a command: decide it (``body``) and save what it changed in one write. One that
        loses a race (another command changed what it read first) wrote nothing, so it is
        decided again against what it now meets, up to ``conflict_retries`` times, then
        refused with ``ConcurrentUpdate``."""
        retries = self.conflict_retries
        while True:
            try:
                return self._run_once(name, payload, command_id, actor, body)
            except ConcurrentUpdate:
                if retries <= 0:
                    raise
                retries -= 1

    def _run_once(
        self,
        name: str,
        payload: dict[str, Any],
        command_id: str | None,
        actor: str,
        body: Callable[[UnitOfWork], dict[str, Any]],
    ) -> dict[str, Any]:
        same = _Same(name, payload, actor) if command_id is not None else None
        if same is not None:
            earlier = self._recorded(command_id, same)
            if earlier is not None:
                return earlier
        uow = UnitOfWork(self)
        try:
            result = body(uow)
        except LedgerError:
            if same is not None:  # the first try may have committed meanwhile
                earlier = self._recorded(command_id, same)
                if earlier is not None:
                    return earlier
            raise
        if same is not None:
            uow.add(CommandRecord.record(command_id, name, same.print_, result, actor))
        for effect in uow.before_save:
            effect()
        pending = uow.pending()
        giver = current_giver()
        if giver is not None and giver != actor:
            for aggregate in pending:
                if hasattr(aggregate, "ActedFor"):  # a command's own record names its actor
                    record_given_by(aggregate, giver, actor, name)
        try:
            recordings = self.save(*pending)
        except IntegrityError:
            # Nothing of the command was written (another wrote first): neither may the
            # secrets it sealed for new shoes stay.
            for undo in uow.if_refused:
                undo()
            if same is not None:
                earlier = self._recorded(command_id, same)
                if earlier is not None:
                    return earlier
            raise ConcurrentUpdate(
                f"{name}: another command changed the same table, round or wallet first; "
                "reload and try again"
            ) from None
        for effect in uow.after_save:
            effect()
        # The saved aggregates are the newest versions: cache them so the next command does
        # not re-read and re-apply the events it just wrote.
        for aggregate in uow.loaded.values():
            self.repository.keep(aggregate)
        if recordings:
            result = {**result, "position": recordings[-1].notification.id}
        return result

    def _recorded(self, command_id: str, same: _Same) -> dict[str, Any] | None:
        if not isinstance(command_id, str) or not 1 <= len(command_id) <= 200:
            raise InvalidCommand("a command id is a string of 1 to 200 characters")
        try:
            record = self.repository.get(command_record_id(command_id), projector_func=project)
        except AggregateNotFoundError:
            return None
        if not same.matches(record):
            raise IdempotencyConflict(
                f"command id {command_id!r} was first used for another command ({record.command})"
            )
        if self.on_replay is not None:
            self.on_replay(command_id)
        # The first write's exact position is not kept; the newest one is as good for
        # read-your-writes, since it can only be at or after it.
        return {
            **record.result,
            "replayed": True,
            "position": self.recorder.max_notification_id() or 0,
        }

    def _remembered_rules(self, aggregate_id: str, make: Callable[[], RuleSet]) -> RuleSet:
        rules = self._rules.get(aggregate_id)
        if rules is None:
            if len(self._rules) >= 2000:
                self._rules.clear()
            rules = self._rules[aggregate_id] = make()
        return rules

    # -- queries -------------------------------------------------------------------------------

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


class _Same:
    """What tells a command record of the command being run: its fingerprint, which holds
    the actor for every command (a seller withdrawing his offer and the buyer declining it are
    two commands), so that no command can leave him out; or, for a record written before the
    actor was in every fingerprint (of the payload alone), that fingerprint and the actor the
    record names beside it."""

    def __init__(self, name: str, payload: dict[str, Any], actor: str) -> None:
        self.print_ = fingerprint(name, {**payload, "actor": actor})
        self.legacy = fingerprint(name, payload)
        self.actor = actor

    def matches(self, record: CommandRecord) -> bool:
        if record.fingerprint == self.print_:
            return True
        return record.fingerprint == self.legacy and record.actor == self.actor
