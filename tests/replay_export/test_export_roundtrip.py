"""Export, import into an empty store, export again: the same bytes (positions included) and
the same hashes, on memory, SQLite and PostgreSQL."""

from __future__ import annotations

from uuid import UUID

import orjson
import pytest
from export_scenario import build_history

from ledger.application import TwentyOneLedger
from ledger.balances import fold_balances
from ledger.config import store_kind
from ledger.domain.chain import verify_chain
from replay.export import export_lines
from replay.import_checks import ImportRefused
from replay.importer import import_lines


@pytest.fixture
def source(store_env):
    app = TwentyOneLedger(env=store_env)
    tables = build_history(app)
    yield app, tables
    app.close()


@pytest.fixture
def target(target_env):
    app = TwentyOneLedger(env=target_env)
    yield app
    app.close()


def test_export_import_export_gives_the_same_bytes(source, target):
    app, tables = source
    first = b"".join(export_lines(app))

    summary = import_lines(target, first.splitlines(keepends=True), batch=97)
    second = b"".join(export_lines(target))

    assert second == first
    lines = [orjson.loads(line) for line in first.splitlines()]
    assert summary["events"] == len(lines) == target.recorder.max_notification_id()
    assert [line["position"] for line in lines] == list(range(1, len(lines) + 1))
    for family_tables in tables.values():
        for table in family_tables:
            assert b"".join(export_lines(target, table)) == b"".join(export_lines(app, table))


def test_the_imported_store_rebuilds_the_same_aggregates(source, target):
    app, tables = source
    import_lines(target, list(export_lines(app)))

    assert fold_balances(target) == fold_balances(app)
    streams = {orjson.loads(line)["stream"] for line in export_lines(app)}
    for stream in streams:
        events = list(target.events.get(UUID(stream)))
        assert verify_chain(events) == (True, None)
        original = list(app.events.get(UUID(stream)))
        assert [vars(e) for e in events] == [vars(e) for e in original]
    table = tables["vingt-un"][0]
    assert target.get_table(table).dealer == app.get_table(table).dealer


def test_import_refuses_a_store_that_is_not_empty(source, target):
    app, _ = source
    lines = list(export_lines(app))
    import_lines(target, lines)

    with pytest.raises(ImportRefused, match="not empty"):
        import_lines(target, lines)
    with pytest.raises(ImportRefused, match="not empty"):
        import_lines(app, lines)


def test_gaps_in_positions_are_kept_where_the_store_can_keep_them(source, target, target_env):
    app, _ = source
    lines = []
    for line in export_lines(app):
        obj = orjson.loads(line)
        if obj["position"] > 5:
            obj["position"] += 10  # a gap, as a rolled-back PostgreSQL insert leaves (not hashed)
        lines.append(orjson.dumps(obj, option=orjson.OPT_SORT_KEYS) + b"\n")

    if store_kind(target_env) == "postgres":
        import_lines(target, lines)
        assert list(export_lines(target)) == lines
    else:
        with pytest.raises(ImportRefused, match="--renumber"):
            import_lines(target, lines)
        assert not target.recorder.max_notification_id()  # nothing written
        summary = import_lines(target, lines, renumber=True)
        assert list(export_lines(target)) == list(export_lines(app))
        # The positions the store gave, not the file's (whose last is 10 beyond them).
        last = target.recorder.max_notification_id()
        assert (summary["first_position"], summary["last_position"]) == (1, last)
        assert summary["contiguous"] and summary["events"] == last
