"""The events table's rows read raw on PostgreSQL, as notifications: what ``replay`` reads
where eventsourcing's own reader would drop an event's position (one stream's events,
``replay.log_positions``) or stop at a damaged row (the whole log, ``replay.store``)."""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import Notification


def rows_where(recorder: Any, condition: str) -> Any:
    """``SELECT`` every column of the recorder's events table ``WHERE condition``: a fixed
    SQL text with ``%s`` placeholders only, never a value."""
    from psycopg.sql import SQL, Identifier

    return SQL(
        "SELECT notification_id, originator_id, originator_version, topic, state"
        " FROM {schema}.{table} WHERE "
    ).format(
        schema=Identifier(recorder.datastore.schema),
        table=Identifier(recorder.events_table_name),
    ) + SQL(condition)  # a fixed text from the callers, never a value


def fetch(recorder: Any, statement: Any, params: list[Any]) -> list[Notification]:
    """The rows ``statement`` selects, as notifications (a NULL state kept as None, for
    ``verify`` to name)."""
    from psycopg.rows import tuple_row

    with recorder.datastore.get_connection() as conn:
        with conn.cursor(row_factory=tuple_row) as cursor:
            cursor.execute(statement, params)
            rows = cursor.fetchall()
    return [
        Notification(
            id=row[0],
            originator_id=row[1],
            originator_version=row[2],
            topic=row[3],
            state=None if row[4] is None else bytes(row[4]),
        )
        for row in rows
    ]
