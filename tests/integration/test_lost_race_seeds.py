"""A new shoe's secret seed is sealed in the vault before the ledger saves the shoe's
commitment, so a shoe the ledger records never lacks it. A command whose save is then refused
(another command changed the table first, or its twin applied it) wrote nothing to the ledger,
and takes the seed back: the vault holds the seeds of recorded shoes only. On every store.

The race is made deterministic: the other command runs while the first one seals its seed,
after it loaded the table and before it saves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from eventsourcing.persistence import IntegrityError, OperationalError

from ledger.application import TwentyOneLedger
from ledger.domain.shoe import Shoe
from ledger.errors import ConcurrentUpdate
from ledger.shuffle import verify_seed
from ledger.vault import sealed_id


@pytest.fixture
def app(store_env):
    # Real shoes, with real seeds: the vault is what is checked.
    application = TwentyOneLedger(env={**store_env, "LEDGER_ALLOW_FIXED_SHOES": "false"})
    yield application
    application.close()


def table_with(app: TwentyOneLedger) -> tuple[str, str, str]:
    ann = app.register_player("Ann")["player_id"]
    bob = app.register_player("Bob")["player_id"]
    table = app.open_table("casino", {"decks": 1})["table_id"]
    app.seat_player(table, ann, 1)
    return table, ann, bob


def sealed(app: TwentyOneLedger) -> list[Any]:
    return [n.originator_id for n in app.vault.recorder.select_notifications(start=1, limit=10**6)]


def committed_shoes(app: TwentyOneLedger) -> list[Any]:
    topic = f"{Shoe.Committed.__module__}:{Shoe.Committed.__qualname__}"
    return [
        n.originator_id
        for n in app.recorder.select_notifications(start=1, limit=10**6)
        if n.topic == topic
    ]


def while_sealing(app: TwentyOneLedger, monkeypatch, other: Callable[[], Any]) -> None:
    """Run ``other`` once, right after the next command's seed is written to the vault."""
    prepare = app.vault.prepare
    pending = [other]

    def racing_prepare(*args: Any) -> Callable[[], Any]:
        write = prepare(*args)

        def write_then_race() -> None:
            write()
            if pending:
                pending.pop()()

        return write_then_race

    monkeypatch.setattr(app.vault, "prepare", racing_prepare)


def test_a_start_round_that_loses_its_race_takes_its_seed_back(app, monkeypatch):
    table, _ann, bob = table_with(app)
    before = sealed(app)
    while_sealing(app, monkeypatch, lambda: app.seat_player(table, bob, 2))

    with pytest.raises(ConcurrentUpdate):
        app.start_round(table)

    assert sealed(app) == before, "the refused start_round left its seed in the vault"
    assert committed_shoes(app) == []
    assert app.get_table(table).seats["2"] == bob  # the other command applied

    # Asked again, it applies, and the vault holds the seed of the shoe it recorded.
    app.start_round(table)
    shoe_id = app.get_table(table).shoe_id
    assert sealed(app) == [*before, sealed_id(shoe_id)]
    assert verify_seed(app.vault.open(shoe_id).server_seed, app.get_shoe(shoe_id).commitment)


def test_a_twin_that_loses_to_its_first_try_takes_its_seed_back(app, monkeypatch):
    table, _ann, _bob = table_with(app)
    before = sealed(app)
    first: list[dict] = []
    while_sealing(app, monkeypatch, lambda: first.append(app.start_round(table, command_id="s")))

    again = app.start_round(table, command_id="s")

    assert again["replayed"] is True and again["round_id"] == first[0]["round_id"]
    (shoe_id,) = committed_shoes(app)
    assert shoe_id == app.get_table(table).shoe_id
    assert sealed(app) == [*before, sealed_id(shoe_id)], "the twin's seed stayed in the vault"


def test_a_seed_the_vault_cannot_delete_stays_and_the_command_still_answers(
    app, monkeypatch, caplog
):
    """Deleting is tidying: a store error then must not hide the command's own answer."""
    table, _ann, bob = table_with(app)
    before = sealed(app)
    while_sealing(app, monkeypatch, lambda: app.seat_player(table, bob, 2))

    def fail(*_: Any) -> None:
        raise OperationalError("the vault's store went away")

    monkeypatch.setattr("ledger.vault.delete_stream", fail)
    with pytest.raises(ConcurrentUpdate):
        app.start_round(table)

    assert len(sealed(app)) == len(before) + 1
    assert committed_shoes(app) == []
    assert "its sealed secret stays" in caplog.text


def test_a_shoe_recorded_after_all_keeps_its_seed(app, monkeypatch):
    """Should a save report a conflict after writing (it never does today), the seed of the
    shoe it recorded is not taken back: a recorded shoe without its seed could never be
    revealed."""
    table, _ann, _bob = table_with(app)
    save = app.save

    def save_then_fail(*objs: Any, **kwargs: Any) -> Any:
        save(*objs, **kwargs)
        raise IntegrityError("reported after the write")

    monkeypatch.setattr(app, "save", save_then_fail)
    with pytest.raises(ConcurrentUpdate):
        app.start_round(table)

    (shoe_id,) = committed_shoes(app)
    assert verify_seed(app.vault.open(shoe_id).server_seed, app.get_shoe(shoe_id).commitment)


def test_a_refused_write_leaves_a_hole_in_the_positions_only_where_verify_never_names_one(
    app, monkeypatch
):
    """``verify`` names a hole in the positions of SQLite and the memory store as events
    deleted (``replay.verify_positions``): a write the store refused there leaves none. On
    PostgreSQL it uses up ids of the sequence, and the hole it leaves is no fault."""
    from replay.verify import verify
    from replay.verify_positions import gapless_store

    table, ann, bob = table_with(app)
    while_sealing(app, monkeypatch, lambda: app.seat_player(table, bob, 2))
    with pytest.raises(ConcurrentUpdate):  # the new shoe's events, then the table's conflict
        app.start_round(table)
    app.start_round(table)
    app.deposit(ann, 10)

    positions = [n.id for n in app.recorder.select_notifications(start=1, limit=10**6)]
    report = verify(app)

    assert report.ok, report.text()
    if gapless_store(app) is None:
        assert "postgres" in app.env["PERSISTENCE_MODULE"]
        assert positions != list(range(1, len(positions) + 1)), "no id used up: no test"
    else:
        assert positions == list(range(1, len(positions) + 1))
