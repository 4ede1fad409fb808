"""Tables and wallets are snapshotted from the aggregate just saved (``_take_snapshots`` in
ledger/application.py), not rebuilt from the store first: each snapshot must hold exactly what
folding the aggregate's events up to its version gives, memos left out."""

from __future__ import annotations

from uuid import UUID

from ledger.domain.player import Player
from ledger.domain.table import Table
from ledger.simulate import Settings, run


def test_every_snapshot_equals_the_aggregate_rebuilt_from_its_events(app):
    run(Settings(rounds=60, seed=7, players=2, strategy="basic", one_command=False), app)
    snapshots = [
        s
        for n in app.recorder.select_notifications(start=1, limit=10**6)
        for s in app.snapshots.get(n.originator_id, desc=True, limit=1)
        if n.originator_version == 1
    ]
    kinds = {s.topic.rsplit(":", 1)[-1] for s in snapshots}
    assert kinds == {"Table", "Player"}  # both kinds snapshotted in 60 rounds
    for snapshot in snapshots:
        rebuilt = app.repository.get(snapshot.originator_id, version=snapshot.originator_version)
        expected = type(rebuilt).Snapshot.take(rebuilt)
        assert snapshot.originator_version == rebuilt.version
        assert snapshot.state == expected.state, snapshot.topic
        assert "_rules_cache" not in snapshot.state


def test_a_snapshot_leaves_out_the_tables_rule_set_memo(app):
    table_id = app.open_table("casino", {"insurance": False})["table_id"]
    for n in range(60):  # a table's events: opened, then two per seat change
        pid = app.register_player(f"p{n}")["player_id"]
        app.seat_player(table_id, pid, 1)
        assert app.get_table(table_id).rules.decks > 0  # the memo is set on loaded copies
        app.unseat_player(table_id, 1)
    (snapshot,) = app.snapshots.get(UUID(table_id), desc=True, limit=1)
    assert snapshot.originator_version >= 50 and "_rules_cache" not in snapshot.state
    table = app.get_table(table_id)
    assert isinstance(table, Table) and table.version == 121 and table.seats == {}
    assert isinstance(app.get_player(pid), Player)


def test_a_save_snapshots_each_aggregate_whose_events_reach_a_multiple_of_its_interval():
    from ledger.application import TwentyOneLedger
    from ledger.config import store_env

    expected: list[tuple[UUID, int]] = []

    class Often(TwentyOneLedger):
        snapshotting_intervals = {Table: 4, Player: 6}

        def save(self, *objs, **kwargs):
            for aggregate in objs:
                interval = self.snapshotting_intervals.get(type(aggregate))
                versions = [e.originator_version for e in aggregate.pending_events]
                if interval and any(v % interval == 0 for v in versions):
                    expected.append((aggregate.id, versions[-1]))
            return super().save(*objs, **kwargs)

    app = Often(env=store_env("memory", environ={}))
    run(Settings(rounds=12, seed=7, players=2, strategy="mimic", one_command=True), app)
    rows = app.snapshots.recorder._stored_events  # the in-memory store's rows, in order
    kinds = {type(app.repository.get(oid)) for oid, _ in expected}
    assert kinds == {Table, Player} and len(expected) > 6
    assert [(s.originator_id, s.originator_version) for s in rows] == expected
