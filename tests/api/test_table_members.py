"""Which streams make up a table, remembered per process within a bound."""

from __future__ import annotations

import pytest

from api.table_members import TableMembers


@pytest.fixture
def ledger(app):
    """The ledger of the API's app (tests/api/conftest.py), on the in-memory store."""
    return app.extensions["ledger"]


@pytest.fixture
def reads(ledger, monkeypatch):
    """Every read of a stream the members make: (stream, the version read after)."""
    seen: list[tuple[str, int | None]] = []
    whole_get = ledger.events.get

    def get(stream, **kw):
        seen.append((str(stream), kw.get("gt")))
        return whole_get(stream, **kw)

    monkeypatch.setattr(ledger.events, "get", get)
    return seen


def test_members_are_read_once_then_only_newer_and_forgotten_beyond_the_bound(ledger, reads):
    tables = [ledger.open_table("casino")["table_id"] for _ in range(3)]
    members = TableMembers(max_streams=2)
    first = ledger.get_table(tables[0])
    assert members.of(ledger, first).streams == {tables[0]}
    assert members.of(ledger, first).streams == {tables[0]}  # nothing newer: no read
    assert reads == [(tables[0], 0)]
    members.of(ledger, ledger.get_table(tables[1]))
    members.of(ledger, ledger.get_table(tables[2]))  # three ids held: the oldest goes
    members.of(ledger, first)
    assert reads[-1] == (tables[0], 0), "read whole again once forgotten"


def test_a_table_beyond_the_bound_alone_is_still_remembered(ledger, reads):
    big, small = (ledger.open_table("casino")["table_id"] for _ in range(2))
    ledger.seat_player(big, ledger.register_player("Ann")["player_id"], 1)
    ledger.fix_next_shoe(big, ["TC", "9D", "8H", "7C"])
    ledger.start_round(big, actor="admin")  # the big table: itself, a shoe and a round
    reads.clear()
    members = TableMembers(max_streams=2)
    members.of(ledger, ledger.get_table(small))
    assert len(members.of(ledger, ledger.get_table(big)).streams) == 3
    members.of(ledger, ledger.get_table(big))
    assert reads == [(small, 0), (big, 0)], "the big table kept; the small one made room"
    members.of(ledger, ledger.get_table(small))
    members.of(ledger, ledger.get_table(big))
    assert reads[-1] == (big, 0), "a table forgotten to make room is read whole again"
