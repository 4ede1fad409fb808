"""The audit of a disputed round: everything an auditor (or a regulator) needs in one document.

``audit_round(app, round_id)`` only reads. It returns, as JSON-ready data:

- ``events``: every event of the round's stream in order, with its ``position`` in the
  application's notification log (the global order ``replay export`` and ``verify`` show),
  version, type, UTC time, its actor (``ledger`` for an event the rules write, which records
  none: ``replay.audit_events``), and the hand, card, amount and clause(s) when the event has
  them, plus the event's own fields (``data``); every other event the audit lists (a
  transfer, a shoe's) carries its position and actor too;
- ``hands`` (and ``dealer``): each hand's stakes, its totals as they moved (after each card,
  split or ace choice), and its settlement: outcome, the clauses with their texts
  (``replay/clauses.json``), the arithmetic ``stake × multiplier = raw``, the rounding as
  recorded and the net amount; the side payments between players' hands (VU-10, a natural
  collecting a stake from each other player: ``side_payments``); and the hand's ``net``, the
  settlement's plus the side payments' (a player's hands' nets sum to his wallet's change
  for the round, but for insurance, the pool and banking); after a Vingt-un dealer divides
  (VU-21), each settlement weighed against each of his hands (``by_dealer_hand``: derived,
  since the event records one net; ``replay.audit_divided``), summed up over the hands in
  ``divided_settlements``;
- ``balances``: each player's wallet (and the dealer's, in private families) before the round's
  first event and after its last, folded from the player's own stream, with the round's
  movements of that wallet (each with its actor: ``ledger``) and whether they are what the
  round's events say moved it (``reconciled``; over every wallet: ``money_reconciles``,
  ``replay.audit_reconcile``);
- ``shoes`` (``shoe`` is the round's first): commitment, client seed, nonce, packs, algorithm,
  cut and, once revealed, the seed and the check of every card of this round against the
  shuffle (``replay.verify_shuffle``'s rules); when, where in the log and by whom the
  commitment, cut and reveal were recorded (``recorded``; who caused a reveal:
  ``replay.audit_reveal``) and the shoe's own ``events``; and
  whether the commitment was recorded before the round's first card from the shoe
  (``committed_before_deal``, over all shoes at the top level: a fault when it was not);
- ``table_record``: whether the table's record of the round (its ``Table.RoundOpened`` and
  ``Table.RoundClosed``) and the round's own stream agree: a round its table closed has its
  ``Round.Ended``, and one that ended its table's closing (``replay.audit_table``); a stream's
  last events dropped leave its chain whole, but not this;
- ``chain``: ``verify_chain`` over the round's stream and every other stream whose events it
  shows (``chains_shown``); and
- ``rederived``: whether the round, replayed through today's rules engine from its recorded
  rules, cards and decisions, comes out as recorded, its settlements and every amount staked,
  held, covered or paid on insurance (``replay rederive``'s walk, ``replay.audit_rederived``):
  the one check that sees a settlement rewritten to contradict its cards with its transfers
  made to match and every hash recomputed.

Each stream is read once: the round's (checked as read, ``replay.checked_reads``), each
wallet's and the table's back to the round (``replay.stretch``), each shoe's, every one with
its events' positions in the log in the same query (``replay.log_positions``); the chains are
checked over what was read. An event of any of them that cannot be decoded is ``StoreDamaged``
naming that event's own stream and version. The parts live beside this module:
``audit_events`` (an event as listed), ``audit_hands``, ``audit_money`` (balances, the pool, a
wallet's parts) and ``audit_shoe``, ``audit_rederived``.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from ledger.domain.chain import verify_chain
from ledger.domain.round import Round
from ledger.domain.transfers import FundsTransferredBase
from ledger.errors import UnknownRound
from replay.audit_divided import add_dealer_parts, parts_verdict
from replay.audit_events import event_entry, plain, summarize, utc
from replay.audit_hands import Hands
from replay.audit_money import (
    balance_at_anchor,
    pool_transfers,
    table_stretch,
    wallet_balances,
    wallet_parts,
    wallet_stretch,
)
from replay.audit_reconcile import money_verdict, reconcile
from replay.audit_rederived import rederived
from replay.audit_reveal import reveal_cause
from replay.audit_shoe import shoe_audit
from replay.audit_table import table_record
from replay.checked_reads import fold, read_stream
from replay.damage import reported
from replay.stretch import Stretch, verify_stretch

__all__ = ["audit_of", "audit_round", "chains_shown", "chains_verdict", "read_round", "summarize"]
# The kinds of stream whose chain the audit checks (``chains_shown``; the API lists them).
ROUND, WALLET, TABLE, SHOE = CHAIN_KINDS = ("round", "wallet", "table", "shoe")
# Whose audit it is (``scope``): all of it, as an auditor or ``replay audit`` reads it, or a
# player's own part (the API masks it: api/resources/audit_view.py).
FULL_SCOPE, PLAYER_SCOPE = AUDIT_SCOPES = ("full", "player")


def read_round(app: Any, round_id: str) -> tuple[Round, list[Any]]:
    """The round and its events, from one read of its stream, checked as it is read (a
    missing or undecodable event raises ``StoreDamaged``). Raises the ledger's
    ``UnknownRound`` for an id that names no round."""
    try:
        uuid = UUID(str(round_id))
    except ValueError:
        raise UnknownRound(f"no round {round_id}") from None
    events = read_stream(app, uuid, positioned=True)
    with reported(uuid):
        rnd = fold(events) if events else None
    if not isinstance(rnd, Round):
        raise UnknownRound(f"no round {round_id}")
    return rnd, events


def audit_round(app: Any, round_id: str) -> dict[str, Any]:
    """The whole audit of one round (read only). Raises the ledger's ``UnknownRound``."""
    return audit_of(app, *read_round(app, round_id))


def audit_of(app: Any, rnd: Round, events: list[Any]) -> dict[str, Any]:
    """The audit of ``rnd`` from its stream's ``events`` (as :func:`read_round` gives them,
    with their positions in the log; a plain list's events get none). Every other stream it
    shows is read once, and its chain checked from what was read."""
    started, first, last = events[0], events[0], events[-1]
    rid = str(rnd.id)
    positions: dict[int, int] = getattr(events, "positions", {})

    tracker = Hands()
    cards: list[tuple[Any, str, int, str]] = []
    shoe_ids = [str(started.shoe_id)]
    transfers = []
    for e in events:
        tracker.feed(e)
        if isinstance(e, Round.CardDealt | Round.CardBurned):
            cards.append((e, str(e.shoe), e.shoe_index, e.card))
            if str(e.shoe) not in shoe_ids:
                shoe_ids.append(str(e.shoe))
        elif isinstance(e, Round.ShoeReplaced) and str(e.shoe) not in shoe_ids:
            shoe_ids.append(str(e.shoe))
        elif isinstance(e, FundsTransferredBase):
            transfers.append(event_entry(e, positions.get(e.originator_version)))
    hands, dealer = tracker.result()
    add_dealer_parts(rnd.family, rnd.dealer_order, hands, dealer)

    players = [str(pid) for _, pid in started.seats]
    if started.dealer != "house" and started.dealer not in players:
        players.append(started.dealer)
    wallets = {pid: wallet_stretch(app, pid, first) for pid in players}
    balances = [
        wallet_balances(rid, pid, first, last, stretch, balance_at_anchor(app, stretch))
        for pid, stretch in wallets.items()
    ]
    # The table's stream back to the round's opening: its record of the round (opened,
    # closed) and, at a Vingt-un table, the round's transfers into its pool.
    table = (str(rnd.table_id), table_stretch(app, rnd))
    if rnd.family == "vingt-un":
        transfers += pool_transfers(rnd, table[1])
    # In the log's order (the pool's legs are in the table's stream, the rest in the
    # round's), which is the order of commits; by time only where a position is not known.
    transfers.sort(key=lambda t: (t["position"] is None, t["position"] or 0, t["time"]))
    wallet_parts(hands, balances, transfers)
    reconcile(events, balances)

    shoe_events = {sid: read_stream(app, UUID(sid), positioned=True) for sid in shoe_ids}
    shoes = [
        shoe_audit(sid, read, cards, read.positions, positions) for sid, read in shoe_events.items()
    ]
    for shoe, read in zip(shoes, shoe_events.values(), strict=True):
        cause = reveal_cause(app, read, table[1])
        if cause is not None and shoe["recorded"]["revealed"] is not None:
            shoe["recorded"]["revealed"].update(cause)
            for entry in shoe["events"]:  # the reveal's entry names who retired the shoe too
                if entry["type"] == "Revealed":
                    entry["actor"] = cause["actor"]
    return {
        "scope": FULL_SCOPE,  # a player's own audit narrows it (api/resources/audit_view.py)
        "round_id": rid,
        "table_id": str(rnd.table_id),
        "number": rnd.number,
        "family": rnd.family,
        "rules": plain(rnd.rules_record),
        "dealer": rnd.dealer,
        "phase": rnd.phase,
        "ended": rnd.ended,
        "started_at": utc(first.timestamp),
        "last_event_at": utc(last.timestamp),
        "events": [event_entry(e, positions.get(e.originator_version)) for e in events],
        "hands": hands,
        "dealer_hands": dealer,
        "round_transfers": transfers,
        "balances": balances,
        "shoe": shoes[0],
        "shoes": shoes,
        "committed_before_deal": committed_first(shoes),
        "money_reconciles": money_verdict(balances),
        "divided_settlements": parts_verdict(hands),
        "table_record": table_record(rnd, events, positions, table[1]),
        "chain": chains_shown(events, wallets, table, shoe_events),
        "rederived": rederived(events),
    }


def committed_first(shoes: list[dict[str, Any]]) -> dict[str, Any]:
    """Over every shoe the round drew from: whether each one's commitment was recorded before
    the round's first card from it (``ok`` null when no shoe's order could be weighed), and
    the first shoe at fault."""
    verdicts = [s["committed_before_deal"] for s in shoes]
    bad = next((s for s in shoes if s["committed_before_deal"]["ok"] is False), None)
    weighed = [v["ok"] for v in verdicts if v["ok"] is not None]
    return {
        "ok": (bad is None) if weighed else None,
        "fault": None
        if bad is None
        else f"shoe {bad['shoe_id']}: {bad['committed_before_deal']['fact']}",
    }


def chains_shown(
    round_events: list[Any],
    wallets: dict[str, Stretch],
    table: tuple[str, Stretch] | None,
    shoes: dict[str, list[Any]],
) -> dict[str, Any]:
    """The hash chains of every stream whose events the audit shows, over the events the
    audit read (none is read again): the round's and each shoe's from their first event, and
    of each player's wallet (the round's transfers and the balances) and of the table (its
    record of the round, and a Vingt-un pool's transfers), the stretch the audit read back,
    from the event before it to the stream's end (the wallet's earlier balance comes from its
    snapshot, which ``replay verify`` checks). A chain shows an event changed, re-ordered or
    dropped from between two others; not a stream's last events dropped (``table_record``
    compares the round with its table; ``replay verify`` every stream with the others and
    with a checkpoint)."""
    rid = str(round_events[0].originator_id)
    streams: list[tuple[str, str, list[Any]]] = [(ROUND, rid, round_events)]
    streams += [(WALLET, pid, stretch.events) for pid, stretch in wallets.items()]
    if table is not None:
        streams.append((TABLE, table[0], table[1].events))
    streams += [(SHOE, sid, events) for sid, events in shoes.items()]
    checked = []
    for kind, stream, read in streams:
        ok, fault = verify_chain(read) if kind in (ROUND, SHOE) else verify_stretch(read)
        checked.append(
            {"kind": kind, "stream": stream, "events": len(read), "ok": ok, "fault": fault}
        )
    return chains_verdict(checked, len(round_events))


def chains_verdict(checked: list[dict[str, Any]], round_events: int) -> dict[str, Any]:
    """The audit's ``chain`` over the streams ``checked`` (each as ``chains_shown`` checks it):
    whole when every one is, else the first at fault named."""
    bad = next((c for c in checked if not c["ok"]), None)
    return {
        "ok": bad is None,
        "fault": None
        if bad is None
        else f"the {bad['kind']} stream {bad['stream']}: {bad['fault']}",
        "events": round_events,  # the round's own
        "events_checked": sum(c["events"] for c in checked),
        "streams": checked,
    }
