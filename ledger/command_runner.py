"""How every command of ``TwentyOneLedger`` runs (``_run``): decided against what it loads,
and all it changed saved in one atomic write, or nothing when it is refused; answered from its
record when its command id was seen before (idempotency); decided again when it loses a race,
up to ``conflict_retries`` times; and marked with who gave it, when not its actor."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError

from ledger.domain.acted_for import record_given_by
from ledger.domain.chain import project
from ledger.domain.command import CommandRecord, command_record_id, fingerprint
from ledger.errors import ConcurrentUpdate, IdempotencyConflict, InvalidCommand, LedgerError
from ledger.given_by import current_giver, given_by
from ledger.unit_of_work import UnitOfWork


class CommandRunner:
    """Mixed into ``TwentyOneLedger`` (ledger/application.py), whose use cases run each of
    their commands through ``_run``; the application supplies ``save`` and the store."""

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
