"""The replay tools read each stored event they need once: the check for damaged events is
made while reading (``replay.checked_reads.read_stream``), and the round's audit checks the chains
of the wallets, the table and the shoes over the events it read for its data."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID

from replay_history import play_fixed_casino
from store_reads import StoreReads

from replay.audit import audit_round
from replay.rederive import rederive_round
from replay.timetravel import round_at, table_at


def vingt_un_round(app) -> tuple[str, str, list[str]]:
    """An ended Vingt-un round with a pool ante (its legs in the table's stream)."""
    ids = [app.register_player(name)["player_id"] for name in ("Dee", "Ann")]
    for pid in ids:
        app.deposit(pid, 10_000)
    table = app.open_table("vingt-un", {"pool_ante": 25})["table_id"]
    for seat, pid in enumerate(ids, start=1):
        app.seat_player(table, pid, seat)
    app.choose_dealer(table, ids[0])
    app.fix_next_shoe(table, ["TC", "9C", "8C", "9D"])
    rid = app.start_round(table, actor=ids[0])["round_id"]
    app.place_stake(rid, ids[1], 200)
    app.act(rid, "dealer_double", actor=ids[0], called=False)
    app.act(rid, "stand", actor=ids[1], hand="h1")
    app.act(rid, "dealer_stand", actor=ids[0])
    return rid, table, ids


def test_a_round_audit_reads_every_stream_it_shows_once(app, monkeypatch):
    rid, table, players = vingt_un_round(app)
    app.close_table(table)  # the shoe revealed: its check reads the shoe's stream too
    reads = StoreReads(app, monkeypatch)

    report = audit_round(app, rid)

    assert report["chain"]["ok"] and report["shoe"]["check"]["ok"]
    kinds = {s["kind"]: s for s in report["chain"]["streams"]}
    assert set(kinds) == {"round", "wallet", "table", "shoe"}
    shown = {UUID(s["stream"]) for s in report["chain"]["streams"]}
    assert shown == {UUID(rid), UUID(table), UUID(report["shoe"]["shoe_id"])} | {
        UUID(p) for p in players
    }
    assert shown <= reads.streams()
    assert reads.twice() == {}


def test_round_and_rederive_fold_what_the_damage_check_read(app, monkeypatch):
    rid = play_fixed_casino(app)
    reads = StoreReads(app, monkeypatch)

    assert round_at(app, rid)["ended"]
    assert reads.twice() == {} and UUID(rid) in reads.streams()
    reads.rows.clear()
    assert round_at(app, rid, 5)["version"] == 5
    assert reads.twice() == {}
    reads.rows.clear()
    assert rederive_round(app, rid).matches
    assert reads.twice() == {}


def test_table_at_reads_the_round_in_play_once(app, monkeypatch):
    rid = play_fixed_casino(app)
    table = str(app.get_round(rid).table_id)
    app.fix_next_shoe(table, ["2C"] * 30)
    open_rid = app.start_round(table)["round_id"]
    reads = StoreReads(app, monkeypatch)

    state = table_at(app, table, datetime(2999, 1, 1, tzinfo=UTC))

    assert state["round_in_play"]["id"] == open_rid
    rows = [version for stream, version in reads.rows if stream == UUID(open_rid)]
    assert sorted(rows) == sorted(set(rows)) and max(rows) == state["round_in_play"]["version"]
