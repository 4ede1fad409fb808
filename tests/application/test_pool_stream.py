"""A Vingt-un table's pool (VU-27/28) is guarded in its table's stream, as a wallet is in its
player's: a payout checks the balance the table keeps and reads nothing else, however long
the log. A table opened before the pool kept its own stream carries its balance over once."""

from __future__ import annotations

from uuid import UUID

import pytest

from ledger import accounts
from ledger.balances import fold_balances
from ledger.domain.chain import snapshot_state
from ledger.domain.table import Table
from ledger.domain.transfers import record_transfer
from ledger.errors import RuleViolation
from ledger.rules import rules_for


def names(app, stream: str) -> list[str]:
    return [type(e).__name__ for e in app.events.get(UUID(stream))]


def pool_of(app, table_id: str) -> int:
    folded = fold_balances(app).get(accounts.pool(table_id), 0)
    assert app.get_table(table_id).pool == folded
    return folded


def forbid_log_reads(app, monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("a pool payout read the whole log")

    monkeypatch.setattr(app.recorder, "select_notifications", refuse)


def old_table(app, payer: str, ante: int) -> str:
    """A Vingt-un table as an earlier version recorded it: no PoolOpened, and an ante into its
    pool recorded in the payer's stream only."""
    rules = rules_for("vingt-un").to_dict()
    table = Table._create(Table.Opened, name="old", rules=rules, actor="admin")
    player = app.repository.get(UUID(payer))
    record_transfer(player, player.account, accounts.pool(table.id), ante, "VU-27", "ante")
    app.save(table, player)
    return str(table.id)


def test_a_vingt_un_table_opens_its_pool_empty_and_other_families_have_none(app):
    vu = app.open_table("vingt-un")["table_id"]
    assert names(app, vu) == ["Opened", "PoolOpened"]
    (opened,) = [e for e in app.events.get(UUID(vu)) if isinstance(e, Table.PoolOpened)]
    assert (opened.balance, opened.clause) == (0, "VU-27")
    assert app.get_table(vu).pool == 0
    for family in ("hoyle-1913", "ochko", "casino"):
        other = app.open_table(family)["table_id"]
        assert names(app, other) == ["Opened"]
        assert app.get_table(other).pool is None


def test_a_payout_checks_the_balance_the_table_keeps_without_reading_the_log(
    app, fund, monkeypatch
):
    dealer, ann = fund("Dealer"), fund("Ann")
    table = app.open_table("vingt-un", {"pool_ante": 40})["table_id"]
    app.seat_player(table, dealer, 1)
    app.seat_player(table, ann, 2)
    app.choose_dealer(table, dealer)
    app.start_round(table, actor=dealer)  # Ann's ante: 40 into the pool
    assert pool_of(app, table) == 40

    forbid_log_reads(app, monkeypatch)
    with pytest.raises(RuleViolation) as refused:
        app.pay_from_pool(table, ann, 41, "too much")
    assert refused.value.clause == "VU-28" and "holds 40" in str(refused.value)
    app.pay_from_pool(table, ann, 30, "best hand")
    assert app.get_table(table).pool == 10
    monkeypatch.undo()
    assert pool_of(app, table) == 10


def test_a_table_opened_before_the_pool_kept_its_stream_carries_the_balance_over_once(
    app, fund, monkeypatch
):
    ann = fund("Ann")
    table = old_table(app, ann, 300)
    assert app.get_table(table).pool is None

    app.pay_from_pool(table, ann, 100, "best hand")
    events = list(app.events.get(UUID(table)))
    carried = [e for e in events if isinstance(e, Table.PoolOpened)]
    assert [(e.balance, e.clause) for e in carried] == [(300, "VU-27")]
    assert "carried over" in carried[0].basis
    assert names(app, table) == ["Opened", "PoolOpened", "PoolPaid", "FundsTransferred"]
    assert pool_of(app, table) == 200

    forbid_log_reads(app, monkeypatch)  # carried once: from here on the table knows
    app.pay_from_pool(table, ann, 150, "second best hand")
    with pytest.raises(RuleViolation, match="holds 50") as refused:
        app.pay_from_pool(table, ann, 51, "too much")
    assert refused.value.clause == "VU-28"
    monkeypatch.undo()
    assert pool_of(app, table) == 50


def test_a_snapshot_from_before_tables_kept_their_pool_loads_with_the_pool_not_open(app, fund):
    ann = fund("Ann")
    old = UUID(old_table(app, ann, 90))
    snapshot = snapshot_state(app.repository.get(old))
    del snapshot.__dict__["pool"]  # as Table.Opened applied it then
    app.snapshots.put([Table.Snapshot.take(snapshot)])
    app.repository.cache.get(old, evict=True)  # loaded from the snapshot next

    table = app.get_table(str(old))
    assert "pool" not in vars(table) and table.pool is None
    app.pay_from_pool(str(old), ann, 40, "best hand")
    assert pool_of(app, str(old)) == 50


def test_a_pool_opens_once(app):
    table = app.get_table(app.open_table("vingt-un")["table_id"])
    with pytest.raises(RuleViolation) as refused:
        table.open_pool(0, "again")
    assert refused.value.clause == "VU-27"


def test_open_pools_opens_every_old_table_with_one_fold_of_the_log(app, fund, monkeypatch):
    import ledger.balances

    ann = fund("Ann")
    old = [old_table(app, ann, 30), old_table(app, ann, 45)]
    new = app.open_table("vingt-un")["table_id"]
    app.open_table("casino")
    folds = []
    fold = ledger.balances.fold_balances
    monkeypatch.setattr(ledger.balances, "fold_balances", lambda a: folds.append(1) or fold(a))

    opened = [(o["table_id"], o["pool"]) for o in app.open_pools()]
    assert opened == [(old[0], 30), (old[1], 45)]
    assert len(folds) == 1
    assert [pool_of(app, t) for t in (*old, new)] == [30, 45, 0]
    assert app.open_pools() == [] and len(folds) == 1, "nothing left to open: no fold"


def test_the_open_pools_command_prints_what_it_opened(tmp_path):
    import io
    import json

    from ledger.application import TwentyOneLedger
    from ledger.cli.open_pools import open_pools
    from ledger.config import store_env

    environ = {"LEDGER_STORE": "sqlite", "LEDGER_SQLITE_PATH": str(tmp_path / "old.sqlite3")}
    before = TwentyOneLedger(env=store_env(environ=environ))
    ann = before.register_player("Ann")["player_id"]
    before.deposit(ann, 100)
    table = old_table(before, ann, 60)
    before.close()

    out, err = io.StringIO(), io.StringIO()
    assert open_pools(out, err, environ) == 0, err.getvalue()
    printed = json.loads(out.getvalue())
    assert [(o["table_id"], o["pool"]) for o in printed["opened"]] == [(table, 60)]
    assert printed["store_description"].startswith("SQLite")
    bad = {"LEDGER_STORE": "nowhere"}
    assert open_pools(io.StringIO(), err, bad) == 2 and "LEDGER_STORE" in err.getvalue()
