"""Running the projectors: pull the notification log, fold each batch, commit the rows and the
position read together (each projection's version and position: ``tracking``).

Exactly once: a batch's rows and each projector's new position (``view_projections``) commit
in one transaction, taken under the projections' lock, so a crash loses the whole batch or none
of it, and the next run (in this process or another) starts where the last commit left off.

No event is skipped: the batch stops at the log's head as read before the batch, and every
event at or below that head is already committed (SQLite has one writer at a time; the
PostgreSQL recorder allocates positions under ``LOCK TABLE … EXCLUSIVE``, so a position is
never visible before every lower one is). The projectors' row caches are trusted only while
the positions in ``view_projections`` are the ones this process last committed.

A stored event a projector needs that cannot be read, or that lacks a field its class records
or holds one of another type (``FactDecoder`` checks every event it reads against its class,
as every replay tool does; ``fold.py`` folds a page), is ``replay.damage.StoreDamaged`` and
stops the fold there: the events before it in its batch are committed as any batch is, and the
error, naming the event, is raised; every later catch-up stops at the same place until the
store is repaired.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from replay.damage import StoreDamaged
from replay.event_rows import page_reader
from replay.projections.audit_trail import AuditTrail
from replay.projections.bankroll import Bankroll
from replay.projections.database import ProjectionBusy, ViewDatabase
from replay.projections.facts import FactDecoder
from replay.projections.fold import Folder, Misread, gc_paused
from replay.projections.history import History
from replay.projections.projector import Projector
from replay.projections.tracking import TRACKING, checked_positions, create_tables

BATCH = 1000
Progress = Callable[[int, int, int], None]  # (position, head, events folded so far)


def default_projectors() -> list[Projector]:
    return [Bankroll(), History(), AuditTrail()]


class ProjectionLag(Exception):
    """A read asked for a position the projections have not reached in the time allowed."""

    def __init__(self, wanted: int, reached: int, waited: float) -> None:
        self.wanted, self.reached, self.waited = wanted, reached, waited
        super().__init__(
            f"the read models have reached position {reached}, not the requested {wanted} "
            f"(lag {wanted - reached} events) after waiting {waited:.1f} s; retry shortly"
        )


class Projections:
    """The read models of one ledger application, kept in ``views``."""

    def __init__(
        self,
        app: Any,
        views: ViewDatabase,
        projectors: Sequence[Projector] | None = None,
        batch: int = BATCH,
    ) -> None:
        self.app = app
        self.views = views
        self.projectors = list(projectors) if projectors is not None else default_projectors()
        self.batch = batch
        self.decode = FactDecoder(app.mapper)
        self.read_page = page_reader(app.recorder)
        for projector in self.projectors:
            projector.db = views
            projector.decoder = self.decode
        self.folder = Folder(self.projectors, self.decode)
        self._committed: dict[str, int] | None = None
        self._ready = False
        # Reading the next page while a batch folds pays where the read waits on a server;
        # SQLite's reads are this process's own work, and a second thread only contends.
        self.read_ahead = views.kind == "postgres"
        self._reader: ThreadPoolExecutor | None = None
        self._ahead: tuple[tuple[int, int], Future] | None = None

    def _create_tables(self) -> None:
        """Create the tables on first use (so merely building the API opens no connection);
        a projection recorded at another version than its projector's is dropped, to be
        rebuilt from the first event by the next catch-up."""
        if self._ready:
            return
        views = self.views
        with views._lock:
            try:
                create_tables(views, self.projectors)
            except BaseException:
                views.rollback()
                raise
        self._ready = True

    # -- where the projections stand -------------------------------------------------------

    def positions(self) -> dict[str, int]:
        """How far each projection has folded; ``ProjectionSuperseded`` if newer code has
        rebuilt one, so that no read of this process is answered from tables of a shape it
        does not know."""
        self._create_tables()
        rows = self.views.read(f"SELECT name, version, position FROM {TRACKING}")
        return checked_positions(rows, self.projectors)

    def position(self) -> int:
        """The position every projection has reached (the lowest of them)."""
        return min(self.positions().values())

    def head(self) -> int:
        return self.app.recorder.max_notification_id() or 0

    # -- folding ---------------------------------------------------------------------------

    def catch_up(
        self,
        until: int | None = None,
        *,
        lock_timeout: float = 5.0,
        progress: Progress | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> int:
        """Fold every event up to ``until`` (default: the head now); return the position all
        projections have reached. Raises :class:`ProjectionBusy` if another projector holds
        the lock longer than ``lock_timeout``. ``stop()``, asked after every batch, ends the
        catch-up early (a worker told to shut down)."""
        self._create_tables()
        head = self.head()
        target = head if until is None else min(until, head)
        reached = self.position()
        if reached >= target:
            return reached  # nothing new: no lock taken, no writer kept waiting
        folded = 0
        while True:
            reached, count = self._one_batch(target, lock_timeout)
            folded += count
            if progress is not None:
                progress(reached, target, folded)
            if reached >= target or (stop is not None and stop()):
                return reached

    def _one_batch(self, target: int, lock_timeout: float) -> tuple[int, int]:
        # The process-wide lock is held until the bookkeeping below is done: a thread that
        # took it between a rollback and the reset would trust caches the failed batch left.
        with self.views._lock, gc_paused():
            try:
                return self._fold_batch(target, lock_timeout)
            except Misread as misread:
                # The batch was rolled back part-way through an event: what came before the
                # damaged event is folded again below and kept, as for undecodable bytes.
                self._forget()
                damaged, cause = misread.damaged, misread.__cause__
            except BaseException:
                self._forget()
                raise
            try:
                self._fold_batch(damaged.position - 1, lock_timeout)
            except BaseException:
                self._forget()
                raise
            raise damaged from cause

    def _forget(self) -> None:
        """After a rolled-back batch: trust no cached row and no remembered position."""
        self._committed = None
        for projector in self.projectors:
            projector.clear()

    def _fold_batch(self, target: int, lock_timeout: float) -> tuple[int, int]:
        with self.views.transaction(lock_timeout) as db:
            # Checked under the lock every batch: a worker that started before newer code
            # rebuilt the tables stops before folding into them.
            positions = checked_positions(
                db.execute(f"SELECT name, version, position FROM {TRACKING}"), self.projectors
            )
            if positions != self._committed:
                for projector in self.projectors:
                    projector.clear()
                    projector.begin(db)
            start = min(positions[p.name] for p in self.projectors)
            if start >= target:
                self._committed = positions
                return start, 0
            page = self._page(start + 1, target)
            end = page[-1].id if len(page) == self.batch else target
            if end < target and self.read_ahead:
                self._read_ahead(end + 1, target)
            count, damaged = self.folder.fold(page, positions)
            if damaged is not None:
                end = damaged.position - 1
            for projector in self.projectors:
                projector.flush()
            moved = {name: max(pos, end) for name, pos in positions.items()}
            db.executemany(
                f"UPDATE {TRACKING} SET position = ? WHERE name = ?",
                [(moved[p.name], p.name) for p in self.projectors],
            )
        self._committed = moved
        if damaged is not None:
            raise damaged
        return end, count

    def _page(self, start: int, target: int) -> list[Any]:
        """The events from ``start`` to ``target`` (a batch of them at most): the page read
        ahead while the last batch was folded when it is the one wanted, else read now."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            if ahead[0] == (start, target):
                return ahead[1].result()
            ahead[1].cancel()
        return self.read_page(start, self.batch, target)

    def _read_ahead(self, start: int, target: int) -> None:
        """Read the next page in another thread while this batch folds and commits (the
        read waits on the database, not on Python). The events up to ``target`` are all
        committed (see the module), so the page is the same whenever it is read; it is used
        only if the next batch starts where this one ends."""
        if self._reader is None:
            self._reader = ThreadPoolExecutor(1, thread_name_prefix="projections-read")
        self._ahead = (
            (start, target),
            self._reader.submit(self.read_page, start, self.batch, target),
        )

    # -- reads that must see a write -------------------------------------------------------

    def ensure(self, position: int | None, timeout: float, *, inline: bool = True) -> int:
        """Return once every projection has reached ``position`` (when given), folding the
        missing events here when ``inline``; otherwise wait for the projector worker. After
        ``timeout`` seconds, :class:`ProjectionLag`. Without a position an inline read folds
        what it can right away and never waits on another projector."""
        if position is None:
            if inline:
                try:
                    return self.catch_up(lock_timeout=0.05)
                except ProjectionBusy:
                    pass
            return self.position()
        started = time.monotonic()
        while True:
            reached = self.position()
            if reached >= position:
                return reached
            left = timeout - (time.monotonic() - started)
            if inline and left > 0:
                with contextlib.suppress(ProjectionBusy):
                    reached = self.catch_up(until=position, lock_timeout=max(0.05, left))
                if reached >= position:
                    return reached
            if left <= 0:
                if not inline:
                    # The worker runs elsewhere: the only sign of why it stopped is the event
                    # it could not pass, which is the next one after where it stands.
                    damaged = self.damaged_next()
                    if damaged is not None:
                        raise damaged
                raise ProjectionLag(position, reached, time.monotonic() - started)
            time.sleep(min(0.02, left))

    def damaged_next(self) -> StoreDamaged | None:
        """The next event after the projections' position when it is one they stop at (bytes
        that cannot be decoded, fields not of its class's shape or that no longer match its
        hash), else ``None``."""
        reached = self.position()
        page = self.read_page(reached + 1, 1, self.head())
        if not page or not self.folder.route(page[0].topic)[0]:
            return None
        return self.folder.misread(page[0])

    # -- from scratch ----------------------------------------------------------------------

    def names(self) -> list[str]:
        return [p.name for p in self.projectors]

    def reset(self, names: Iterable[str] | None = None) -> list[str]:
        """Empty the chosen projections' tables and set them back to position 0."""
        self._create_tables()
        chosen = self.names() if names is None else list(names)
        unknown = sorted(set(chosen) - set(self.names()))
        if unknown:
            raise ValueError(f"unknown projection(s) {', '.join(unknown)}; have {self.names()}")
        with self.views.transaction() as db:
            for projector in self.projectors:
                if projector.name in chosen:
                    for table in projector.tables:
                        db.execute(f"DELETE FROM {table}")
                    db.execute(f"UPDATE {TRACKING} SET position = 0 WHERE name = ?",
                               (projector.name,))  # fmt: skip
        self._committed = None
        return chosen

    def rebuild(self, names: Iterable[str] | None = None, progress: Progress | None = None) -> int:
        self.reset(names)
        return self.catch_up(progress=progress)

    def close(self) -> None:
        if self._reader is not None:
            self._reader.shutdown(cancel_futures=True)
            self._reader = None
        self._ahead = None
        self.views.close()
