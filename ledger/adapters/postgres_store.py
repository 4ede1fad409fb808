"""The PostgreSQL store: eventsourcing's, but appending a command's events as four plain arrays.

eventsourcing inserts a command's events from one array of a composite row type, which psycopg
dumps field by field in Python; arrays of plain types (ids, versions, topics, states) it dumps
in C, and an append costs about a fifth less. Everything else is eventsourcing's: the table
lock that keeps notification ids in commit order (the projections rely on it), the ``NOTIFY``,
the ``RETURNING`` of the new ids, in one pipelined transaction. Selected with
``PERSISTENCE_MODULE=ledger.adapters.postgres_store`` (``LEDGER_STORE=postgres``). eventsourcing
imports this module only when PostgreSQL is chosen, so importing the ledger never imports
psycopg."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing import postgres
from eventsourcing.persistence import StoredEvent
from psycopg.sql import SQL, Identifier

# eventsourcing finds the factory as the one factory class in this module's namespace, so
# the base is reached through its module rather than imported by name.


class ArrayAppendRecorder(postgres.PostgresApplicationRecorder):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        id_type = "uuid" if self.datastore.originator_id_type == "uuid" else "text"
        self.insert_events_statement = SQL(
            "INSERT INTO {schema}.{table} (originator_id, originator_version, topic, state)"
            " SELECT * FROM unnest(%s::{ids}[], %s::bigint[], %s::text[], %s::bytea[])"
            " RETURNING notification_id"
        ).format(
            schema=Identifier(self.datastore.schema),
            table=Identifier(self.events_table_name),
            ids=SQL(id_type),
        )

    def _insert_stored_events(
        self, curs: Any, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> None:
        self._lock_table(curs)
        self._notify_channel(curs)
        curs.execute(
            self.insert_events_statement,
            (
                [e.originator_id for e in stored_events],
                [e.originator_version for e in stored_events],
                [e.topic for e in stored_events],
                [e.state for e in stored_events],
            ),
            prepare=True,
        )


class Factory(postgres.PostgresFactory):
    application_recorder_class = ArrayAppendRecorder
