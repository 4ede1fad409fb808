"""How a batch is read and written: the shortcuts a rebuild takes must never change a row.

- Tables empty when the caches were cleared are known whole from then on: a rebuild reads
  none of its own rows back and inserts new rows plainly, until another process writes the
  projections or the cache overflows, when rows are read (and upserted) again.
- The next page may be read while a batch folds; it is used only where the next batch starts.
- No cyclic garbage collection runs in the middle of a batch, and it is back on after one,
  even one that failed.
- On PostgreSQL the trail's long entries are stored lz4-compressed.
"""

from __future__ import annotations

import gc

import pytest
from environment import under_ci
from test_projection_concurrency import SHARED
from test_projections import play_simulations, play_vingt_un_pool, rebuilt, snapshot

from ledger.application import TwentyOneLedger
from replay.projections import audit_trail, open_projections, rows


@pytest.fixture
def app(store_env):
    application = TwentyOneLedger(env=store_env)
    play_simulations(application, rounds=1)
    play_vingt_un_pool(application)
    yield application
    application.close()


def count_reads(proj, monkeypatch) -> list[str]:
    """The tables whose rows the projectors read back, one entry per query."""
    tables: list[str] = []
    select = proj.views.select_keys

    def counted(table, *args, **kwargs):
        tables.append(table)
        return select(table, *args, **kwargs)

    monkeypatch.setattr(proj.views, "select_keys", counted)
    return tables


def test_a_rebuild_into_empty_tables_reads_none_of_its_rows_back(app, store_env, monkeypatch):
    proj = open_projections(app, store_env, batch=30)
    try:
        reads = count_reads(proj, monkeypatch)
        proj.rebuild()
        assert reads == []
        assert all(r.complete for p in proj.projectors for r in p.rows)
        assert snapshot(proj) == rebuilt(app, store_env)
    finally:
        proj.close()


@pytest.mark.parametrize("store_env", SHARED, indirect=True)
def test_rows_another_projector_wrote_are_read_back_and_updated(app, store_env, monkeypatch):
    first = open_projections(app, store_env, batch=30)
    second = open_projections(app, store_env, batch=30)
    try:
        first.catch_up(until=first.head() // 2)
        reads = count_reads(second, monkeypatch)
        second.catch_up(until=second.head() * 3 // 4)  # starts on rows it did not write
        assert {"view_rounds", "view_accounts"} <= set(reads)
        known_whole = {r.table for p in second.projectors for r in p.rows if r.complete}
        assert not known_whole & {"view_rounds", "view_accounts", "view_round_hands"}
        first.catch_up()  # and the first finds the second's rows, not its stale cache
        assert snapshot(first) == rebuilt(app, store_env)
    finally:
        first.close()
        second.close()


def test_rows_dropped_from_a_full_cache_are_read_back(app, store_env, monkeypatch):
    monkeypatch.setattr(rows, "MAX_CACHED", 3)
    monkeypatch.setattr(audit_trail, "MAX_WRITTEN", 2)
    proj = open_projections(app, store_env, batch=25)
    try:
        reads = count_reads(proj, monkeypatch)
        proj.rebuild()
        assert "view_rounds" in reads  # the overflow ended the shortcut
        trail = proj.projectors[2]
        assert trail.name == "audit_trail" and not trail.complete
        assert snapshot(proj) == rebuilt(app, store_env)
    finally:
        proj.close()


def test_a_page_read_ahead_is_used_where_the_next_batch_starts(app, store_env, monkeypatch):
    proj = open_projections(app, store_env, batch=40)
    try:
        proj.read_ahead = True
        starts: list[int] = []
        read = proj.read_page

        def counted(start, limit, stop):
            starts.append(start)
            return read(start, limit, stop)

        monkeypatch.setattr(proj, "read_page", counted)
        head = proj.rebuild()
        assert starts == list(range(1, head + 1, 40))  # each page read once, none skipped
        assert snapshot(proj) == rebuilt(app, store_env)
    finally:
        proj.close()


@pytest.mark.parametrize("store_env", SHARED, indirect=True)
def test_a_page_read_ahead_is_dropped_when_another_projector_moved_on(app, store_env):
    mine = open_projections(app, store_env, batch=40)
    other = open_projections(app, store_env, batch=40)
    try:
        mine.read_ahead = True
        assert mine.catch_up(stop=lambda: True) == 40  # one batch, and events 41… read ahead
        assert mine._ahead is not None and mine._ahead[0][0] == 41
        other.catch_up(until=100)
        assert mine.catch_up() == mine.head()
        assert snapshot(mine) == rebuilt(app, store_env)
    finally:
        mine.close()
        other.close()
    assert mine._reader is None  # the reading thread ends with the projections


def test_no_garbage_collection_runs_inside_a_batch_and_it_resumes_after(app, store_env):
    proj = open_projections(app, store_env, batch=50)
    seen: list[bool] = []
    history = proj.projectors[1]
    original = history.flush

    def flush() -> None:
        seen.append(gc.isenabled())
        original()
        if len(seen) == 2:
            raise RuntimeError("the second batch fails")

    history.flush = flush
    try:
        assert gc.isenabled()
        with pytest.raises(RuntimeError, match="the second batch fails"):
            proj.catch_up()
        assert gc.isenabled()  # back on after the failed batch
        history.flush = original
        proj.catch_up()
        assert seen == [False, False] and gc.isenabled()
    finally:
        proj.close()


@pytest.mark.parametrize("store_env", ["postgres"], indirect=True)
def test_the_trails_long_entries_are_stored_lz4_compressed_on_postgresql(app, store_env):
    proj = open_projections(app, store_env)
    try:
        (setting,) = proj.views.read("SHOW default_toast_compression")[0]
        if setting != "lz4":
            reason = f"this PostgreSQL server cannot compress with lz4 (it uses {setting})"
            # Under CI the PostgreSQL half must run whole, not quietly lose a test.
            if under_ci():
                pytest.fail(f"CI=true: {reason}")
            pytest.skip(reason)
        proj.rebuild()
        methods = proj.views.read(
            "SELECT DISTINCT pg_column_compression(entries) FROM view_audit_trail"
            " WHERE octet_length(entries) > 4000"
        )
        assert methods == [("lz4",)]
    finally:
        proj.close()
