"""A round's audit reads the players' wallets and the table back from their streams' ends to
the round, never their whole history, and lists the round's transfers into the pool, which
the table's stream records."""

from __future__ import annotations

from datetime import timedelta
from uuid import UUID

from ledger import accounts
from replay import audit_money, log_positions, stretch
from replay.audit import audit_round


def test_an_audit_reads_back_to_the_round_and_lists_its_pool_transfers(app, monkeypatch):
    ids = {}
    for name in ("Dee", "Ann", "Bob"):
        ids[name] = app.register_player(name)["player_id"]
        app.deposit(ids[name], 100_000)
    for _ in range(5):  # history before the round, more than a page of it
        app.withdraw(ids["Ann"], 10)
    table = app.open_table("vingt-un", {"pool_ante": 25})["table_id"]
    for seat, name in enumerate(ids, start=1):
        app.seat_player(table, ids[name], seat)
    app.choose_dealer(table, ids["Dee"])

    before = {name: app.get_player(pid).balance for name, pid in ids.items()}
    app.fix_next_shoe(table, ["TC", "9C", "TD", "9D", "8C", "8D"])
    rid = app.start_round(table, actor=ids["Dee"])["round_id"]
    app.place_stake(rid, ids["Ann"], 200)
    app.place_stake(rid, ids["Bob"], 100)
    app.act(rid, "dealer_double", actor=ids["Dee"], called=False)
    app.act(rid, "stand", actor=ids["Ann"], hand="h1")  # 19
    app.act(rid, "stand", actor=ids["Bob"], hand="h2")  # 17
    app.act(rid, "dealer_stand", actor=ids["Dee"])  # 18
    after = {name: app.get_player(pid).balance for name, pid in ids.items()}
    for _ in range(5):  # history after the round, which its audit must not count
        app.deposit(ids["Ann"], 7)
    app.pay_from_pool(table, ids["Bob"], 20, "after the round")

    monkeypatch.setattr(stretch, "PAGE", 3)  # so the reads back take several pages
    # One process, one clock: read back only to the round (the balance before it then comes
    # from the wallet as it stood there).
    monkeypatch.setattr(audit_money, "CLOCK_SKEW", timedelta(0))
    reads: list[tuple[UUID, dict]] = []
    whole_select = app.recorder.select_events  # the audit's reads and the repository's

    def select_events(*args, **kw):
        stream = args[0] if args else kw["originator_id"]
        reads.append((stream, kw))
        return whole_select(*args, **kw)

    monkeypatch.setattr(app.recorder, "select_events", select_events)
    whole_positioned = log_positions.select

    def select(recorder, stream, **kw):  # the reads that come with the events' positions
        reads.append((stream, kw))
        return whole_positioned(recorder, stream, **kw)

    monkeypatch.setattr(log_positions, "select", select)
    report = audit_round(app, rid)

    balances = {b["player"]: (b["before"], b["after"]) for b in report["balances"]}
    assert balances == {ids[n]: (before[n], after[n]) for n in ids}
    pool = [t for t in report["round_transfers"] if t["stream"] == table]
    escrow = accounts.escrow(rid)
    assert [(t["data"]["from_account"], t["data"]["to_account"], t["amount"]) for t in pool] == [
        (escrow, accounts.pool(table), 25)
    ] * 2
    assert all(e["stream"] == rid for e in report["events"])
    # The wallets and the table: read back a page at a time, or a balance rebuilt from its
    # snapshot (a bounded stretch of versions); never a stream from its first event on.
    histories = {UUID(pid) for pid in ids.values()} | {UUID(table)}
    read = [kw for stream, kw in reads if stream in histories]
    assert read and all(
        kw.get("limit") or (kw.get("lte") and kw["lte"] - (kw.get("gt") or 0) <= 50) for kw in read
    ), read
    assert any(kw.get("desc") for kw in read)


def whole_stream_balances(app, rid: str, pid: str) -> tuple[int, int]:
    """The wallet's balance before and after the round, by time, over its whole stream."""
    events = list(app.events.get(UUID(rid)))
    first, last = events[0], events[-1]
    account = accounts.player(pid)
    moves = [e for e in app.events.get(UUID(pid)) if hasattr(e, "from_account")]

    def signed(e) -> int:
        return (e.amount if e.to_account == account else 0) - (
            e.amount if e.from_account == account else 0
        )

    before = sum(signed(e) for e in moves if e.timestamp < first.timestamp)
    ends = [i for i, e in enumerate(moves) if e.timestamp <= last.timestamp or e.round_id == rid]
    return before, sum(signed(e) for e in moves[: max(ends, default=-1) + 1])


def test_a_transfer_timed_before_the_round_but_written_after_it_counts_by_its_time(
    app, monkeypatch
):
    from ledger.domain.player import Player

    dee, ann = (app.register_player(n)["player_id"] for n in ("Dee", "Ann"))
    for pid in (dee, ann):
        app.deposit(pid, 10_000)
    table = app.open_table("vingt-un", {"pool_ante": 25})["table_id"]
    app.seat_player(table, dee, 1)
    app.seat_player(table, ann, 2)
    app.choose_dealer(table, dee)
    app.fix_next_shoe(table, ["TC", "9C", "8C", "9D"])
    rid = app.start_round(table, actor=dee)["round_id"]  # Ann's ante
    began = next(iter(app.events.get(UUID(rid)))).timestamp
    # A deposit from a process whose clock is 5 ms behind: written after the ante, timed
    # before the round began.
    with monkeypatch.context() as behind:
        behind.setattr(
            Player.FundsTransferred,
            "create_timestamp",
            staticmethod(lambda: began - timedelta(milliseconds=5)),
        )
        app.deposit(ann, 7)
    app.place_stake(rid, ann, 200)
    app.act(rid, "dealer_double", actor=dee, called=False)
    app.act(rid, "stand", actor=ann, hand="h1")  # 19
    app.act(rid, "dealer_stand", actor=dee)  # 17
    monkeypatch.setattr(stretch, "PAGE", 2)

    report = audit_round(app, rid)
    (ann_balances,) = [b for b in report["balances"] if b["player"] == ann]
    assert (ann_balances["before"], ann_balances["after"]) == whole_stream_balances(app, rid, ann)
