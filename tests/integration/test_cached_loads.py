"""Cached aggregates (ledger/repository.py): a load copies the cached aggregate and folds what
was stored since onto the copy, never onto the cached object; a command brings its round, the
round's table and its players' wallets up to date with one read of the store; what another
application (another server worker) wrote in between is always seen."""

from __future__ import annotations

import copy
from uuid import UUID

import pytest

from ledger.application import TwentyOneLedger
from ledger.errors import LedgerError
from ledger.repository import select_newer

# Ann 5+6, Bob 9+T, the dealer 9 up and 8 in the hole; then small cards.
SHOE = ["5H", "9C", "9S", "6H", "TD", "8D", "2C", "3D", "4H", "2D", "3H", "4S", "7C", "7D"]
SHARED = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]


def scene(app: TwentyOneLedger) -> tuple[str, str, str, str]:
    """A casino table with Ann and Bob seated and staked: (table, round, ann, bob)."""
    table = app.open_table("casino", {"insurance": False})["table_id"]
    ann, bob = (app.register_player(name)["player_id"] for name in ("Ann", "Bob"))
    for seat, pid in enumerate((ann, bob), start=1):
        app.deposit(pid, 10_000)
        app.seat_player(table, pid, seat)
    app.fix_next_shoe(table, SHOE)
    rid = app.start_round(table)["round_id"]
    app.place_stake(rid, ann, 1_000)
    app.place_stake(rid, bob, 1_000)
    return table, rid, ann, bob


@pytest.fixture
def workers(store_env):
    """Two applications on one store, as two server workers are."""
    apps = TwentyOneLedger(env=store_env), TwentyOneLedger(env=store_env)
    yield apps
    for app in apps:
        app.close()


def rebuilds_of(app: TwentyOneLedger, monkeypatch) -> list[UUID]:
    """The ids ``app`` rebuilds from the store (snapshot and events) from now on."""
    rebuilt: list[UUID] = []
    real = app.repository._reconstruct_aggregate
    monkeypatch.setattr(
        app.repository,
        "_reconstruct_aggregate",
        lambda oid, *a: rebuilt.append(oid) or real(oid, *a),
    )
    return rebuilt


def state(aggregate) -> dict:
    return {k: copy.deepcopy(v) for k, v in vars(aggregate).items() if k != "_pending_events"}


@pytest.mark.parametrize("store_env", SHARED, indirect=True)
def test_a_command_sees_what_another_worker_wrote_after_this_one_cached_the_round(workers):
    first, second = workers
    table, rid, ann, bob = scene(first)  # ``first`` has the round and wallets cached
    cached = first.repository.cache.get(UUID(rid))
    before = state(cached)

    second.act(rid, "stand", actor=ann, hand="h1")

    with pytest.raises(LedgerError):  # Ann's hand is closed: ``first`` must know it
        first.act(rid, "stand", actor=ann, hand="h1")
    first.act(rid, "stand", actor=bob, hand="h2")  # Bob's turn, as ``second`` left it
    rnd = first.get_round(rid)
    # Ann's 11 and Bob's 19 against the dealer's 17
    assert rnd.ended and [h["result"] for h in rnd.hands.values()] == [-1_000, 1_000]
    assert second.get_round(rid).version == rnd.version
    assert second.get_player(bob).balance == first.get_player(bob).balance
    assert second.get_table(table).version == first.get_table(table).version
    assert state(cached) == before  # the object once cached was never written again


@pytest.mark.parametrize("store_env", SHARED, indirect=True)
def test_a_read_brings_the_cache_up_to_date_without_changing_the_object_it_held(workers):
    first, second = workers
    _table, rid, ann, _bob = scene(first)
    held = first.get_round(rid, copy=False)
    version = held.version
    second.act(rid, "stand", actor=ann, hand="h1")

    fresh = first.get_round(rid, copy=False)
    assert fresh.version == version + 1 and fresh.hands["h1"]["status"] == "stood"
    assert held.version == version and held.hands["h1"]["status"] == "open"
    assert first.repository.cache.get(UUID(rid)) is fresh  # kept for the next reader
    assert first.get_round(rid, copy=False) is fresh  # nothing newer: the same object


@pytest.mark.parametrize("store_env", SHARED, indirect=True)
def test_one_read_brings_a_round_its_table_and_its_wallets_up_to_date(workers, monkeypatch):
    first, second = workers
    table, rid, ann, bob = scene(first)
    second.act(rid, "stand", actor=ann, hand="h1")
    second.deposit(bob, 5)  # Bob's wallet moves too
    recorder = first.recorder
    asked: list[dict] = []
    real = select_newer

    def counted(rec, versions):
        asked.append(dict(versions))
        return real(rec, versions)

    monkeypatch.setattr("ledger.repository.select_newer", counted)
    first.act(rid, "stand", actor=bob, hand="h2")  # ends the round: all four written

    assert len(asked) == 1
    assert set(asked[0]) == {UUID(rid), UUID(table), UUID(ann), UUID(bob)}
    if hasattr(recorder, "select_events_after"):  # PostgreSQL: one query for all of them
        versions = {UUID(rid): 1, UUID(table): 0, UUID(ann): 3, UUID(bob): 10**6}
        together = recorder.select_events_after(versions, 100)
        apart = {oid: list(recorder.select_events(oid, gt=v)) for oid, v in versions.items()}
        assert together == apart and together[UUID(bob)] == []
        capped = recorder.select_events_after(versions, 2)
        assert (
            capped[UUID(rid)] == apart[UUID(rid)][:2] and capped[UUID(ann)] == apart[UUID(ann)][:2]
        )
        assert [e.originator_version for e in together[UUID(rid)]] == list(
            range(2, first.get_round(rid).version + 1)
        )


@pytest.mark.parametrize("store_env", SHARED, indirect=True)
def test_a_worker_that_never_saw_the_round_reads_it_whole_with_the_wallet_in_one_read(
    workers, monkeypatch
):
    first, second = workers
    _table, rid, ann, bob = scene(first)
    wallet = second.get_player(ann).version  # ``second`` knows Ann's wallet, not the round
    asked: list[dict] = []
    real = select_newer
    monkeypatch.setattr(
        "ledger.repository.select_newer",
        lambda rec, versions: asked.append(dict(versions)) or real(rec, versions),
    )
    reads = []
    monkeypatch.setattr(
        second.repository,
        "_reconstruct_aggregate",
        lambda *a, **k: reads.append(a) or pytest.fail("read the round on its own"),
    )

    second.act(rid, "stand", actor=ann, hand="h1")

    assert asked == [{UUID(rid): 0, UUID(ann): wallet}]
    assert reads == []
    assert first.get_round(rid).hands["h1"]["status"] == "stood"


def test_a_round_that_does_not_exist_is_refused_by_name(store_env):
    from ledger.errors import UnknownRound

    app = TwentyOneLedger(env=store_env)
    try:
        with pytest.raises(UnknownRound):
            app.act("00000000-0000-0000-0000-000000000001", "stand", actor="x", hand="h1")
        assert (app.recorder.max_notification_id() or 0) == 0
    finally:
        app.close()


@pytest.mark.parametrize("store_env", SHARED, indirect=True)
def test_an_aggregate_far_behind_is_rebuilt_from_its_snapshot_not_folded_event_by_event(
    workers, monkeypatch
):
    from ledger.errors import UnknownRound

    first, second = workers
    table, _rid, ann, _bob = scene(first)
    for _ in range(4):
        second.deposit(ann, 1)  # ``first``'s cached wallet falls four events behind
    monkeypatch.setattr("ledger.repository.MAX_FOLD", 3)
    rebuilt = rebuilds_of(first, monkeypatch)

    assert first.get_player(ann).balance == second.get_player(ann).balance
    assert rebuilt == [UUID(ann)]
    # A table's id where a round's is meant: refused, its history read no further than
    # the cap before the snapshot takes over.
    with pytest.raises(UnknownRound):
        first.act(table, "stand", actor=ann, hand="h1")


@pytest.mark.parametrize("store_env", SHARED, indirect=True)
def test_a_long_fold_moves_the_cache_forward_and_hands_out_a_copy(workers):
    from ledger.repository import REFOLD

    first, second = workers
    _table, _rid, ann, _bob = scene(first)
    was = first.repository.cache.get(UUID(ann)).version
    second.deposit(ann, 7)
    loaded = first.get_player(ann)  # a command's kind of load: a copy to change
    assert loaded.version == was + 1  # a short fold: cached when a command saves it
    assert first.repository.cache.get(UUID(ann)).version == was

    for _ in range(REFOLD):
        second.deposit(ann, 1)
    loaded = first.get_player(ann)
    cached = first.repository.cache.get(UUID(ann))
    assert cached.version == loaded.version == second.get_player(ann).version
    assert cached is not loaded and cached.balance == loaded.balance


@pytest.mark.parametrize("store_env", SHARED, indirect=True)
def test_a_tables_id_given_as_a_rounds_is_refused_and_read_from_its_snapshot(
    store_env, monkeypatch
):
    from ledger.errors import UnknownRound

    first = TwentyOneLedger(env=store_env)
    fresh = TwentyOneLedger(env=store_env)  # has seen nothing: the id is not cached
    try:
        table, _rid, ann, _bob = scene(first)
        rebuilt = rebuilds_of(fresh, monkeypatch)
        with pytest.raises(UnknownRound):
            fresh.act(table, "stand", actor=ann, hand="h1")
        assert rebuilt == [UUID(table)]  # not folded from the whole stream
    finally:
        first.close()
        fresh.close()


def test_the_cache_only_moves_forward(store_env):
    app = TwentyOneLedger(env=store_env)
    try:
        _table, _rid, ann, _bob = scene(app)
        newest = app.repository.cache.get(UUID(ann))
        older = app.repository.get(UUID(ann), version=newest.version - 1)
        app.repository.keep(older)  # say, a slow thread's fold arriving late
        assert app.repository.cache.get(UUID(ann)) is newest
        app.deposit(ann, 1)
        assert app.repository.cache.get(UUID(ann)).version == newest.version + 1
    finally:
        app.close()
