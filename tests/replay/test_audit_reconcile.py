"""The audit's money verdict (replay/audit_reconcile.py, auditor review): a wallet's transfers
for the round against what the round's own events say moved it. Every round of an honest
history of every family adds up; a punter's last transfer dropped, or its amount changed with
the wallet's hashes recomputed (both leave every chain whole), is a FAIL naming him."""

from __future__ import annotations

import dataclasses
import json

import pytest
import test_verify_money
from forgery import forge_stream
from replay_history import FAMILIES, round_ids
from store_checks import audited
from tampering import delete_event
from test_verify_money import _a_punter, _a_settlement, _env, _last_transfer

from ledger.application import TwentyOneLedger
from replay.audit import audit_round

# test_verify_money.py's fixtures: its history of every family (verified whole), and each
# test's own copy of it to edit.
played, store = test_verify_money.played, test_verify_money.store


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
    delete_event(store["SQLITE_DBNAME"], player, last.originator_version)

    reconciled = _fails_for(audited(store, last.round_id), player)

    assert reconciled["said"] - reconciled["moved"] == last.change(f"player:{player}")


@pytest.mark.parametrize("family", FAMILIES)
def test_an_amount_changed_with_the_chain_recomputed_fails_the_money_verdict(store, family):
    player, events = _a_punter(store, family)
    last = _last_transfer(events)
    altered = dataclasses.replace(last, amount=last.amount + 900)
    forge_stream(store, player, lambda events: [*events[:-1], altered])

    reconciled = _fails_for(audited(store, last.round_id), player)

    assert abs(reconciled["moved"] - reconciled["said"]) == 900


@pytest.mark.parametrize("family", FAMILIES)
def test_a_settlement_that_does_not_add_up_fails_the_money_verdict(store, family):
    """Its transfers match it (only its multiplier was rewritten, the round's chain
    recomputed), but what the events say can no longer be trusted: FAIL, saying why."""
    rid, events, index = _a_settlement(store, family)
    forged = dataclasses.replace(events[index], multiplier="7")
    forge_stream(store, rid, lambda events: [*events[:index], forged, *events[index + 1 :]])

    audit = audited(store, rid)

    money = audit["money_reconciles"]
    assert money["ok"] is False and audit["chain"]["ok"], money
    assert money["fault"].startswith(f"hand {events[index].hand} was settled "), money
    assert " × 7, rounded " in money["fault"]


def test_replay_audit_prints_the_rounds_audit_and_fails_on_a_failed_check(store, capsys):
    """The audit without a server or a key: the same document, exit 1 once a check fails."""
    from replay.__main__ import main

    rid, events, index = _a_settlement(store, FAMILIES[0])
    assert main(["audit", rid], env=store) == 0
    shown = json.loads(capsys.readouterr().out)
    # The document an auditor's key gets over HTTP, whose scope says it is the whole of it.
    assert shown == {**json.loads(json.dumps(audited(store, rid), default=str)), "scope": "full"}
    assert shown["money_reconciles"]["ok"] and shown["chain"]["ok"]

    forged = dataclasses.replace(events[index], multiplier="7")
    forge_stream(store, rid, lambda events: [*events[:index], forged, *events[index + 1 :]])
    assert main(["audit", rid], env=store) == 1
    assert json.loads(capsys.readouterr().out)["money_reconciles"]["ok"] is False

    assert main(["audit", "not-a-round"], env=store) == 1
    assert "not-a-round" in capsys.readouterr().err
