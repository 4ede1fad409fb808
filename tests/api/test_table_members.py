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


def test_a_table_beyond_the_bound_alone_is_still_remembered(memory_env):
    app = TwentyOneLedger(env=memory_env)
    try:
        big, small = (app.open_table("casino")["table_id"] for _ in range(2))
        app.seat_player(big, app.register_player("Ann")["player_id"], 1)
        app.fix_next_shoe(big, ["TC", "9D", "8H", "7C"])
        app.start_round(big, actor="admin")  # the big table: itself, a shoe and a round
        reads = []
        whole_get = app.events.get

        def get(stream, **kw):
            reads.append((str(stream), kw.get("gt")))
            return whole_get(stream, **kw)

        app.events.get = get
        members = TableMembers(max_streams=2)
        members.of(app, app.get_table(small))
        assert len(members.of(app, app.get_table(big)).streams) == 3
        members.of(app, app.get_table(big))
        assert reads == [(small, 0), (big, 0)], "the big table kept; the small one made room"
        members.of(app, app.get_table(small))
        members.of(app, app.get_table(big))
        assert reads[-1] == (big, 0), "a table forgotten to make room is read whole again"
    finally:
        app.close()
