"""What each caller may see of a round's audit (``replay.audit``): all of it for auditors and
admins; for the round's own players once it has ended, their own hands, balance and
transfers, with every card, total and seed of ``api.visibility`` and ``api.shoe_secrets``
masked; for anyone else nothing (``NotPermitted``). The JSON view and the HTML page
(``api.audit_page``) both call :func:`audit_for`, so they can never show a caller different
things."""

from __future__ import annotations

from typing import Any

from api.resources.common import ledger, permit
from api.shoe_secrets import burns_shown, mask_audited_shoe, withheld_shoes
from api.visibility import (
    HIDDEN,
    burn_shoes,
    dealer_total_hidden,
    event_views,
    owns,
    sees_all,
)
from ledger import accounts
from replay.audit import PLAYER_SCOPE, WALLET, audit_of, chains_verdict, read_round, summarize
from replay.audit_divided import parts_verdict
from replay.audit_reconcile import money_verdict
from replay.audit_rederived import shown_to_player
from replay.damage import reported


def audit_for(round_id: str, viewer: Any) -> dict:
    """The audit as ``viewer`` may see it. The round's stream is read once, checked as it is
    read: a damaged or missing stored event is named (``StoreDamaged``: a 500
    "stored-events-damaged" problem, see api/errors.py), never left to surface as the
    library's error. Each read names its own stream (``replay.audit``); what the library
    raises past them is named as it can be, never as an event of this round. A player is
    refused before anything else is read."""
    app = ledger()
    rnd, events = read_round(app, round_id)
    if not sees_all(viewer):
        _check_player(rnd, viewer)
    with reported():
        report = audit_of(app, rnd, events)
    if sees_all(viewer):
        return report
    with reported(rnd.table_id):
        table = app.get_table(str(rnd.table_id))
    secret = {str(s) for s in withheld_shoes(app, table, viewer)}
    return player_audit(rnd, report, viewer, secret)


def _check_player(rnd: Any, viewer: Any) -> None:
    me = viewer.player_id
    in_round = {h["player"] for h in rnd.hands.values()} | {rnd.dealer}
    permit(me is not None and me in in_round, "only the round's own players may see its audit")
    permit(rnd.ended, "a round's players and dealer see its audit once it has ended")


def player_audit(rnd: Any, report: dict, viewer: Any, withheld: set[str]) -> dict:
    """``report`` as one of the round's players may see it; the shoes in ``withheld`` (ids)
    without their seeds and card checks (``api.shoe_secrets``)."""
    me = viewer.player_id
    records = [{**e, "data": dict(e["data"])} for e in report["events"]]
    revealed = {s["shoe_id"] for s in report["shoes"] if s["revealed"]}
    shown = burns_shown(None, rnd, viewer, burn_shoes(records), withheld, revealed)
    events = [summarize(e) for e in event_views(rnd, records, viewer, shown)]
    masked = {e["version"] for e in events if e["data"].get("card") == HIDDEN}
    dealer_hands = []
    for hand in report["dealer_hands"]:
        up = rnd.rules_hand(hand["id"])["face_up"]
        if not (owns(viewer, rnd, hand["id"]) or all(up)):
            hidden = [c if shown else HIDDEN for c, shown in zip(hand["cards"], up, strict=False)]
            hand = {**hand, "cards": hidden, "aces": {}, "totals": []}
        dealer_hands.append(hand)
    hide_dealer = dealer_total_hidden(rnd, viewer)
    hands = [
        _without_dealer_total(h) if hide_dealer else h
        for h in report["hands"]
        if owns(viewer, rnd, h["id"])
    ]
    shoes = [
        mask_audited_shoe(shoe) if shoe["shoe_id"] in withheld else _masked_shoe(shoe, masked)
        for shoe in report["shoes"]
    ]
    mine = accounts.player(me)
    balances = [b for b in report["balances"] if b["player"] == me]
    return {
        **report,
        "scope": PLAYER_SCOPE,
        "events": events,
        "hands": hands,
        "dealer_hands": dealer_hands,
        "round_transfers": [
            t
            for t in report["round_transfers"]
            if mine in (t["data"].get("from_account"), t["data"].get("to_account"))
        ],
        "balances": balances,
        # Over his own wallet only: the verdict over all would tell of the others'.
        "money_reconciles": money_verdict(balances),
        # Over his own hands only, as the money: the verdict over all would tell of others'.
        "divided_settlements": parts_verdict(hands),
        # Without the other players' wallets: their lengths tell of their play since.
        "chain": own_chains(report["chain"], me),
        # Over the whole round, but the lines of his own hands only (no card of another's).
        "rederived": shown_to_player(report["rederived"], lambda hand: _owns(viewer, rnd, hand)),
        "shoe": shoes[0],
        "shoes": shoes,
    }


def own_chains(chain: dict, me: str) -> dict:
    """The audit's hash-chain check over the streams a player may weigh: the round's, the
    table's, the shoes' and his own wallet's, not another player's wallet."""
    mine = [c for c in chain["streams"] if c["kind"] != WALLET or c["stream"] == me]
    return chains_verdict(mine, chain["events"])


def _owns(viewer: Any, rnd: Any, hand: str) -> bool:
    """Whether ``viewer`` holds ``hand`` (a hand the round does not know: no)."""
    try:
        return owns(viewer, rnd, hand)
    except KeyError:
        return False


def _without_dealer_total(hand: dict) -> dict:
    """A hand whose settlement weighed a dealer's total the viewer may not know (his cards
    did not all lie face up): the total (and each divided hand's, VU-21, in the settlement and
    in its parts against each) withheld, as its ``HandSettled`` event has it, and
    ``dealer_played`` kept (the page then says 'not shown to you')."""
    settled = hand["settlement"]
    if settled is None or settled["dealer_total"] is None:
        return hand
    masked = {**settled, "dealer_total": None, "dealer_totals": None}
    if settled["by_dealer_hand"] is not None:
        parts = settled["by_dealer_hand"]
        # A fault's sentence may name a total: its verdict stays, the sentence goes.
        masked["by_dealer_hand"] = {
            **parts,
            "parts": [{**p, "dealer_total": None} for p in parts["parts"]],
            "fault": None if parts["fault"] is None else "not shown to you",
        }
    return {**hand, "settlement": masked}


def _masked_shoe(shoe: dict, masked: set[int]) -> dict:
    """The card check without the cards the player may not see (only whether each matched)."""
    check = dict(shoe["check"])
    check["cards"] = [
        {**c, "card": HIDDEN, "expected": HIDDEN} if c["version"] in masked else c
        for c in check.get("cards", [])
    ]
    return {**shoe, "check": check}
