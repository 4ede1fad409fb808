"""``python -m replay verify``: prove the history is whole.

One pass over the notification log (global order; ``replay.verify_pass`` reads each event
once and feeds it to the checks below) checks:

- **chains**: every stream's versions run 1, 2, 3 … without gaps, in the order of the log
  (an event found after its stream's later ones is named as out of order, not as missing),
  each event's ``prev_hash`` is its predecessor's ``hash`` and its ``hash`` is the SHA-256 of
  its own canonical content (the rule ``ledger.domain.chain.verify_chain`` applies to one
  stream), and a stream's times never go back (``replay.verify_chain``);
- **shoes**: every revealed shoe's seed matches its commitment (a fixed test shoe: the
  SHA-256 of its order, ``ledger.shoes.fixed_commitment``), and every shoe names the
  algorithm SHUFFLE.md gives and a number of packs a table deals from;
- **cards**: every dealt, burned or cut card (``card``, ``shoe``, ``shoe_index``) is the card
  at that place of its shoe's dealing order (``ledger.shuffle.dealing_order``), and each
  shoe's places are drawn one after another from its start, none skipped or drawn twice, as
  many as its reveal counts. Cards of a shoe not yet revealed cannot be checked against the
  shuffle yet: they are counted, not failed (``replay.verify_shuffle``);
- **the shoes' order in the log**: every shoe's commitment and cut come before its first card,
  and a shoe its table closed on or replaced has been revealed (``replay.verify_shoe_log``;
  the shoes and cards are gathered for both by ``replay.verify_shoes``);
- **rounds**: a round its table opened or closed, or a transfer names, has its stream, and
  one its table closed has its ``Round.Ended``; the other way round, a round that started,
  and one that ended, has its table's ``Table.RoundOpened`` and ``Table.RoundClosed`` (and,
  when its end passed the deal, the ``Table.DealPassed`` after it), and a table opens no round
  while another is open (``replay.verify_rounds``); a shoe a table's
  closing retired has that ``Table.Closed``, and every shoe its ``Table.ShoeChanged``
  (``replay.verify_shoe_log``): each pair is written in one save, so a stream's last event
  dropped is named by the other stream;
- **positions** (SQLite and the memory store only, which leave no hole): a position missing
  from the log that no stream's skipped versions account for, the one trace of a stream's
  last event that no other stream records (``replay.verify_positions``);
- **money**: every transfer moves a positive amount, the balances of all accounts sum to
  zero, an ended round's escrow is empty, and no wallet is debited below zero, except by a
  round at a table that gives credit (such tables are listed as exempt); a transfer recorded
  in a wallet's or a table's stream touches that wallet or that table's pool, no pool goes
  below zero, a pool opens with the balance its earlier transfers fold to, and once open it
  moves only in its table's stream (``replay.verify_balances``); every round's transfers are
  what its own events say moved, per account and clause, and a table's deal sales and pool
  payouts likewise (``replay.verify_money``);
- **snapshots**: every stored snapshot of a table or a wallet is the state its stream's events
  fold to at its version (``replay.verify_snapshots``);
- **the checkpoint** (``--expect-head``): the log's running digest at a kept position is the
  same, so no event up to it changed in any stream (``replay.verify_head``,
  ``replay.log_digest``).

A stored row that holds what the ledger never writes (a NULL, text for bytes, a stream id that
is no UUID: ``replay.stored_row``), an event that cannot be decoded, or one whose fields are
not those its type records (all the export's schema asks, a time in UTC included:
``replay.event_shape``) is a fault itself (the ``decode`` check, the pass's own), and its
stream is then held neither to its money nor to its snapshots. Nothing a stored row holds stops
the pass.

Faults are reported in the order of the log; the first one names the event at fault
(``replay.verify_report``).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from replay.store import not_a, notifications, stream_kind
from replay.verify_head import parse_head
from replay.verify_pass import Verifier
from replay.verify_report import Report


class NotATable(LookupError):
    """``verify --table`` was given something that is not a table of this log."""


def verify(
    app: Any, table: str | None = None, expect_head: tuple[int, str] | str | None = None
) -> Report:
    """Check the whole log (or, with ``table``, report only on that table's streams: the
    table, its rounds and shoes, and the wallets of players seated there), and the stored
    snapshots of tables and wallets. ``expect_head``: a checkpoint from an earlier run (the
    report's ``head_position`` and ``head_digest``, as ``POSITION:DIGEST``) the log must
    still reach. Raises ``NotATable`` when ``table`` is no table of this log."""
    scope = None
    if table is not None:
        try:
            scope = str(UUID(str(table)))
        except ValueError:
            raise NotATable(f"{table!r} is not a table id") from None
        # Told before the pass over the whole log, from the stream's first stored event.
        kind = stream_kind(app, UUID(scope))
        if kind != "Table":
            raise NotATable(not_a(kind, scope, "table"))
    if isinstance(expect_head, str):
        expect_head = parse_head(expect_head)
    verifier = Verifier(app, expect_head)
    mapper = app.mapper
    for notification in notifications(app):
        verifier.feed(notification, mapper)
    verifier.finish()
    return verifier.report(scope)
