"""The audit's money verdict (replay/audit_reconcile.py, auditor review): a wallet's transfers
for the round against what the round's own events say moved it. Every round of an honest
history of every family adds up; a punter's last transfer dropped, or its amount changed with
the wallet's hashes recomputed (both leave every chain whole), is a FAIL naming him."""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
from uuid import UUID

import pytest
from replay_history import FAMILIES, play_history, round_ids
from test_verify_money import _a_punter, _env, _last_transfer, _rewrite

from ledger.application import TwentyOneLedger
from replay.audit import audit_round


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    path = tmp_path_factory.mktemp("reconcile") / "played.sqlite3"
    app = TwentyOneLedger(env=_env(path))
    try:
        play_history(app, rounds=3)
    finally:
        app.close()
    return path


@pytest.fixture
def store(played, tmp_path):
    copy = tmp_path / "ledger.sqlite3"
    shutil.copy(played, copy)
    return _env(copy)


def _audit(env: dict, rid: str) -> dict:
    app = TwentyOneLedger(env=env)
    try:
        return audit_round(app, rid)
    finally:
        app.close()


def test_every_round_of_every_family_adds_up(played):
    app = TwentyOneLedger(env=_env(played))
    try:
        audits = [audit_round(app, rid) for rid in round_ids(app)]
    finally:
        app.close()
    assert {a["family"] for a in audits} == set(FAMILIES)
    for a in audits:
        assert a["money_reconciles"] == {"ok": True, "wallets": len(a["balances"]), "fault": None}
        for b in a["balances"]:
            assert b["reconciled"]["ok"] is True, b
            assert b["reconciled"]["said"] == b["reconciled"]["moved"]


def _fails_for(audit: dict, player: str) -> dict:
    money = audit["money_reconciles"]
    assert money["ok"] is False, money
    assert money["fault"].startswith(f"player {player}: ")
    mine = next(b for b in audit["balances"] if b["player"] == player)
    assert mine["reconciled"]["ok"] is False
    others = [b for b in audit["balances"] if b["player"] != player]
    assert all(b["reconciled"]["ok"] for b in others)
    assert audit["chain"]["ok"]  # what the chain alone cannot show
    return mine["reconciled"]


@pytest.mark.parametrize("family", FAMILIES)
def test_a_punters_dropped_last_transfer_fails_the_money_verdict(store, family):
    player, events = _a_punter(store, family)
    last = _last_transfer(events)
    with sqlite3.connect(store["SQLITE_DBNAME"]) as db:
        db.execute(
            "DELETE FROM stored_events WHERE originator_id=? AND originator_version=?",
            (UUID(player).hex, last.originator_version),
        )

    reconciled = _fails_for(_audit(store, last.round_id), player)

    assert reconciled["said"] - reconciled["moved"] == last.change(f"player:{player}")


@pytest.mark.parametrize("family", FAMILIES)
def test_an_amount_changed_with_the_chain_recomputed_fails_the_money_verdict(store, family):
    player, events = _a_punter(store, family)
    last = _last_transfer(events)
    _rewrite(store, [*events[:-1], dataclasses.replace(last, amount=last.amount + 900)])

    reconciled = _fails_for(_audit(store, last.round_id), player)

    assert abs(reconciled["moved"] - reconciled["said"]) == 900
