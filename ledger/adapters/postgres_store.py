"""The PostgreSQL store: eventsourcing's, but appending a command's events in one statement, and
reading with statements rendered once.

eventsourcing appends a command's events in a pipelined transaction of four statements (set the
lock timeout, lock the table, ``NOTIFY``, insert from an array of a composite row type, which
psycopg dumps field by field in Python). Here one call of a server-side function does the same
four things: the client sends one statement with four plain arrays (ids, versions, topics,
states) in binary, and the server runs it as one implicit transaction. An append costs about a
third of the client's CPU time and half the wall-clock time it did.

Kept exactly: the table lock that keeps notification ids in commit order (the projections and
the table feed rely on it), held until the commit; the ``NOTIFY``; the ids returned in the
order of the events; a duplicate version refused with ``IntegrityError`` and nothing written.
The function is created with the tables; a database whose tables were created before it
existed (and is opened with ``CREATE_TABLE=false``) is appended to eventsourcing's way, with
the same guarantees, until a start with ``CREATE_TABLE=true`` installs it. An application whose
log no one follows by position (the API's store) appends with a plain ``INSERT`` instead
(``append_unordered``): no lock, no ``NOTIFY``.

Selected with ``PERSISTENCE_MODULE=ledger.adapters.postgres_store`` (``LEDGER_STORE=postgres``).
eventsourcing imports this module only when PostgreSQL is chosen, so importing the ledger never
imports psycopg."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import psycopg
from eventsourcing import postgres
from eventsourcing.persistence import InterfaceError, OperationalError, StoredEvent
from eventsourcing.utils import retry
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier

logger = logging.getLogger(__name__)
_APPEND_CURSOR = "_ledger_append_cursor"  # attribute of a psycopg connection

# eventsourcing finds the factory as the one factory class in this module's namespace, so
# the base is reached through its module rather than imported by name.


def columns(stored_events: Sequence[StoredEvent]) -> list[list[Any]]:
    """The events as four arrays: ids, versions, topics, states."""
    return [
        [e.originator_id for e in stored_events],
        [e.originator_version for e in stored_events],
        [e.topic for e in stored_events],
        [e.state for e in stored_events],
    ]


class RenderedSelects(postgres.PostgresAggregateRecorder):
    """eventsourcing's ``select_events``, with each shape of its statement rendered once.

    eventsourcing composes the statement anew on every call, so psycopg renders it to text
    and looks it up in its query cache every time: a quarter of a cached aggregate's
    fast-forward check, which every command does for every aggregate it loads."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.schema = Identifier(self.datastore.schema)
        self.table = SQL("{}.{}").format(self.schema, Identifier(self.events_table_name))
        self.id_type = SQL("uuid" if self.datastore.originator_id_type == "uuid" else "text")
        self._rendered: dict[tuple[bool, bool, bool, bool], bytes] = {}

    def _select_query(self, conn: Any, shape: tuple[bool, bool, bool, bool]) -> bytes:
        query = self._rendered.get(shape)
        if query is None:
            gt, lte, desc, limit = shape
            statement = SQL(
                "SELECT originator_id, originator_version, topic, state FROM {table}"
                " WHERE originator_id = %s"
            ).format(table=self.table)
            if gt:
                statement += SQL(" AND originator_version > %s")
            if lte:
                statement += SQL(" AND originator_version <= %s")
            order = (
                " ORDER BY originator_version DESC" if desc else " ORDER BY originator_version ASC"
            )
            statement += SQL(order)
            if limit:
                statement += SQL(" LIMIT %s")
            query = self._rendered[shape] = statement.as_bytes(conn)
        return query

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def select_events(
        self,
        originator_id: Any,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        params = [originator_id, *(p for p in (gt, lte, limit) if p is not None)]
        shape = (gt is not None, lte is not None, bool(desc), limit is not None)
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            curs.execute(self._select_query(conn, shape), params, prepare=True)
            return [StoredEvent(row[0], row[1], row[2], bytes(row[3])) for row in curs.fetchall()]

    def delete_stream(self, originator_id: Any) -> None:
        """Delete one stream's events (eventsourcing's recorders only append): for the shoe
        vault's sealed secret of a shoe the ledger never recorded (ledger/vault.py)."""
        statement = SQL("DELETE FROM {table} WHERE originator_id = %s").format(table=self.table)
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(statement, (originator_id,))


class NewerSelect(RenderedSelects):
    """The events after given versions of several aggregates, in one query
    (``ledger.repository.select_newer``): one branch per aggregate, each the same index scan
    as a single ``select_events``. A join on arrays of ids would be one statement for any
    number of aggregates, but PostgreSQL plans it anew on every call (its generic plan looks
    dearer than a custom one), which cost the server more than the queries it saved."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._newer_branch = SQL(
            "(SELECT originator_id, originator_version, topic, state FROM {table}"
            " WHERE originator_id = %s AND originator_version > %s"
            " ORDER BY originator_version LIMIT %s)"
        ).format(table=self.table)
        self._newer_queries: dict[int, bytes] = {}

    def _newer_query(self, conn: Any, count: int) -> bytes:
        query = self._newer_queries.get(count)
        if query is None:
            statement = SQL(" UNION ALL ").join([self._newer_branch] * count)
            statement += SQL(" ORDER BY originator_id, originator_version")
            query = self._newer_queries[count] = statement.as_bytes(conn)
        return query

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def select_events_after(
        self, versions: dict[Any, int], limit: int
    ) -> dict[Any, list[StoredEvent]]:
        """At most ``limit`` events of each aggregate, in version order."""
        found: dict[Any, list[StoredEvent]] = {oid: [] for oid in versions}
        asked = {str(oid): oid for oid in versions}  # rows name text ids as text
        params = [p for oid, version in versions.items() for p in (oid, version, limit)]
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            curs.execute(self._newer_query(conn, len(versions)), params, prepare=True)
            for oid, version, topic, state in curs.fetchall():
                found[asked[str(oid)]].append(StoredEvent(oid, version, topic, bytes(state)))
        return found


class ArrayAppendRecorder(NewerSelect, postgres.PostgresApplicationRecorder):
    # Appends take the table lock and NOTIFY, which keeps notification ids in commit order
    # for those who follow the log by position. An application whose log no one follows so
    # (the API's keys and stored replies) turns that off with ``append_unordered()``.
    ordered = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        name = f"ledger_append_{self.events_table_name}"
        self.check_identifier_length(name)
        function = SQL("{}.{}").format(self.schema, Identifier(name))
        self.sql_create_statements.append(
            SQL(
                "CREATE OR REPLACE FUNCTION {function}("
                "ids {ids}[], versions bigint[], topics text[], states bytea[], wait text) "
                "RETURNS SETOF bigint LANGUAGE plpgsql AS $BODY$ "
                "BEGIN "
                "PERFORM set_config('lock_timeout', wait, true); "
                "LOCK TABLE {table} IN EXCLUSIVE MODE; "
                "NOTIFY {channel}; "
                "RETURN QUERY INSERT INTO {table} "
                "(originator_id, originator_version, topic, state) "
                "SELECT * FROM unnest(ids, versions, topics, states) "
                "RETURNING notification_id; "
                "END; $BODY$"
            ).format(
                function=function,
                ids=self.id_type,
                table=self.table,
                channel=Identifier(self.channel_name),
            )
        )
        self.append_statement = SQL(
            "SELECT n AS notification_id FROM {function}("
            "%b::{ids}[], %b::bigint[], %b::text[], %b::bytea[], %b::text) AS n"
        ).format(function=function, ids=self.id_type)
        # eventsourcing's way, for a database without the function (``_insert_stored_events``)
        self.fallback_statement = SQL(
            "INSERT INTO {table} (originator_id, originator_version, topic, state)"
            " SELECT * FROM unnest(%s::{ids}[], %s::bigint[], %s::text[], %s::bytea[])"
            " RETURNING notification_id"
        ).format(table=self.table, ids=self.id_type)
        # without the lock and the NOTIFY (``append_unordered``)
        self.unordered_statement = SQL(
            "INSERT INTO {table} (originator_id, originator_version, topic, state)"
            " SELECT * FROM unnest(%b::{ids}[], %b::bigint[], %b::text[], %b::bytea[])"
            " RETURNING notification_id"
        ).format(table=self.table, ids=self.id_type)
        self._append_query: bytes | None = None  # rendered on first use, with a connection
        self._unordered_query: bytes | None = None
        self.has_append_function = True

    def append_unordered(self) -> None:
        """Append without the table lock and without ``NOTIFY``: appends commit side by side
        (PostgreSQL flushes concurrent commits together) instead of one after the other, and
        no longer wait for the lock every notifying commit holds until it is flushed (one for
        the whole server, taken by every application's appends). Notification ids may then
        commit out of order, so this is only for an application whose notification log no one
        reads by position, nor listens to. A duplicate version is still refused
        (``IntegrityError``, the primary key), and nothing of the command is written."""
        self.ordered = False

    @staticmethod
    def _append_cursor(conn: Any) -> Any:
        """The cursor that appends on ``conn``, made on its first append and kept on the
        connection (a pooled connection serves one thread at a time, and goes with its cursor
        when the pool drops it). psycopg chooses the dumpers of a statement's parameters per
        cursor and keeps them while the cursor runs the same statement again: a cursor made
        for every append chose them anew each time, walking the four arrays, about a fifth of
        an append's client CPU. Its last result is a few notification ids: nothing large."""
        curs = getattr(conn, _APPEND_CURSOR, None)
        if curs is None or curs.closed:
            curs = conn.cursor(row_factory=tuple_row)
            setattr(conn, _APPEND_CURSOR, curs)
        return curs

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        if not stored_events or (self.ordered and not self.has_append_function):
            return self._library_insert(stored_events, **kwargs)
        if not self.ordered:
            return self._insert_unordered(stored_events)
        # POSTGRES_LOCK_TIMEOUT, as this process has it
        arrays = (*columns(stored_events), f"{self.datastore.lock_timeout}s")
        with self.datastore.get_connection() as conn:
            curs = self._append_cursor(conn)
            try:
                if self._append_query is None:
                    self._append_query = self.append_statement.as_bytes(conn)
                curs.execute(self._append_query, arrays, prepare=True)
            except psycopg.errors.UndefinedFunction as missing:
                self.has_append_function = False
                logger.warning(
                    "%s: appending eventsourcing's way until a start creates the tables "
                    "(CREATE_TABLE=true) and with them the append function (%s)",
                    self.events_table_name,
                    str(missing).strip().splitlines()[0],
                )
            else:
                return [row[0] for row in curs.fetchall()]
        return self._library_insert(stored_events, **kwargs)

    def _insert_unordered(self, stored_events: Sequence[StoredEvent]) -> list[int]:
        with self.datastore.get_connection() as conn:
            curs = self._append_cursor(conn)
            if self._unordered_query is None:
                self._unordered_query = self.unordered_statement.as_bytes(conn)
            curs.execute(self._unordered_query, columns(stored_events), prepare=True)
            return [row[0] for row in curs.fetchall()]

    def _library_insert(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Any:
        # eventsourcing's own, without its retry: this method's retry already covers it
        library = postgres.PostgresApplicationRecorder.insert_events
        return library.__wrapped__(self, stored_events, **kwargs)  # type: ignore[attr-defined]

    def _insert_stored_events(
        self, curs: Any, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> None:
        """eventsourcing's transaction, for a database without the function."""
        self._lock_table(curs)
        self._notify_channel(curs)
        curs.execute(self.fallback_statement, columns(stored_events), prepare=True)


class SnapshotRecorder(RenderedSelects):
    """The snapshot store's recorder (and any other aggregate recorder of the application)."""


class Factory(postgres.PostgresFactory):
    aggregate_recorder_class = SnapshotRecorder
    application_recorder_class = ArrayAppendRecorder
