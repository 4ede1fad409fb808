"""Which streams make up a table, remembered per process within a bound."""

from __future__ import annotations

from api.table_members import TableMembers
from ledger.application import TwentyOneLedger


def test_members_are_read_once_then_only_newer_and_forgotten_beyond_the_bound(memory_env):
    app = TwentyOneLedger(env=memory_env)
    try:
        tables = [app.open_table("casino")["table_id"] for _ in range(3)]
        reads = []
        whole_get = app.events.get

        def get(stream, **kw):
            reads.append((str(stream), kw.get("gt")))
            return whole_get(stream, **kw)

        app.events.get = get
        members = TableMembers(max_streams=2)
        first = app.get_table(tables[0])
        assert members.of(app, first).streams == {tables[0]}
        assert members.of(app, first).streams == {tables[0]}  # nothing newer: no read
        assert reads == [(tables[0], 0)]
        members.of(app, app.get_table(tables[1]))
        members.of(app, app.get_table(tables[2]))  # three ids held: the oldest goes
        members.of(app, first)
        assert reads[-1] == (tables[0], 0), "read whole again once forgotten"
    finally:
        app.close()
