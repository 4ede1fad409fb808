"""``python -m replay verify``: prove the history is whole.

One pass over the notification log (global order) checks:

- **chains**: every stream's versions run 1, 2, 3 … without gaps, each event's ``prev_hash``
  is its predecessor's ``hash`` and its ``hash`` is the SHA-256 of its own canonical content
  (``ledger.domain.chain``, the rule ``verify_chain`` applies to one stream);
- **shoes**: every revealed shoe's seed matches its commitment (a fixed test shoe: the
  SHA-256 of its order, ``ledger.shoes.fixed_commitment``);
- **cards**: every dealt, burned or cut card (``card``, ``shoe``, ``shoe_index``) is the card
  at that place of its shoe's dealing order (``ledger.shuffle.dealing_order``), and each
  shoe's places are drawn one after another from its start, none skipped or drawn twice, as
  many as its reveal counts. Cards of a shoe not yet revealed cannot be checked against the
  shuffle yet: they are counted, not failed (``replay.verify_shuffle``);
- **the shoes' order in the log**: every shoe's commitment and cut come before its first card,
  and a shoe its table closed on or replaced has been revealed (``replay.verify_shoe_log``);
- **money**: every transfer moves a positive amount, the balances of all accounts sum to
  zero, an ended round's escrow is empty, and no wallet is debited below zero, except by a
  round at a table that gives credit (such tables are listed as exempt); a transfer recorded
  in a wallet's or a table's stream touches that wallet or that table's pool, no pool goes
  below zero, a pool opens with the balance its earlier transfers fold to, and once open it
  moves only in its table's stream; every round's transfers are what its own events say
  moved, per account and clause, and a table's deal sales and pool payouts likewise
  (``replay.verify_money``).

- **the checkpoint** (``--expect-head``): the log's running digest at a kept position is the
  same, so no event up to it changed in any stream (``replay.log_digest``).

Faults are reported in the order of the log; the first one names the event at fault
(``replay.verify_report``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any
from uuid import UUID

from ledger import accounts
from ledger.domain.chain import GENESIS, event_fields, hash_matches
from ledger.domain.player import Player
from ledger.domain.round import Round
from ledger.domain.shoe import Shoe
from ledger.domain.table import Table
from ledger.domain.transfers import FundsTransferredBase
from replay.audit_events import utc
from replay.damage import ALTERED
from replay.event_shape import misshapen
from replay.log_digest import START, next_digest, raw_hash
from replay.store import not_a, notifications, stream_kind
from replay.verify_money import MoneyMoved
from replay.verify_report import CHECKS, Fault, Report, Where
from replay.verify_shoe_log import check_fixed_first, check_retired
from replay.verify_shuffle import ShoeRecord, check_cards, check_stocks
from replay.verify_snapshots import Snapshots

CARD_EVENTS = (Round.CardDealt, Round.CardBurned, Table.CutForDeal)
# The transfers recorded in the stream of the account they guard, and that account.
GUARDED = {Player.FundsTransferred: accounts.player, Table.FundsTransferred: accounts.pool}


class NotATable(LookupError):
    """``verify --table`` was given something that is not a table of this log."""


class Verifier:
    def __init__(self, app: Any = None, expect_head: tuple[int, str] | None = None) -> None:
        """``app``: the application whose snapshots to check (none without it);
        ``expect_head``: a checkpoint (position, hash) the log must still reach."""
        self.faults: list[Fault] = []
        self.snapshots = None if app is None else Snapshots(app, self.snapshot_fault)
        self.expect_head = expect_head
        self.expected_found: Where | None = None
        self.expected_hash: str | None = None
        self.expected_digest: str | None = None
        self.digest = START  # the log's running digest (replay.log_digest)
        self.head_note = ""
        self.head: Where | None = None
        self.last: dict[str, Where] = {}  # each stream's last event read
        self.stream_events: Counter[str] = Counter()
        # Rounds as other streams name them: closed by their table, opened by it, and named
        # by a transfer (its round_id or the round's escrow); the first such event each.
        self.closed: dict[str, Where] = {}
        self.opened: dict[str, Where] = {}
        self.named: dict[str, Where] = {}
        self.in_hands: dict[str, Counter[str]] = defaultdict(Counter)  # cards in a round's hands
        self.replaced: list[tuple[Where, str, str, Counter[str]]] = []  # ShoeReplaced
        self.chains: dict[str, tuple[str | None, int]] = {}
        self.times: dict[str, Any] = {}  # each stream's latest event time so far
        self.events = 0
        self.round_table: dict[str, str] = {}
        self.round_credit: dict[str, bool] = {}
        self.table_credit: dict[str, bool] = {}
        self.table_players: dict[str, set[str]] = defaultdict(set)
        self.shoes: dict[str, ShoeRecord] = {}
        self.table_shoe: dict[str, str] = {}  # each table's shoe in use
        self.shoe_replaced: dict[str, tuple[Where, str]] = {}  # by the ShoeChanged, to shoe
        self.table_closed: dict[str, Where] = {}
        self.cards: list[tuple[Where, str, int, str]] = []
        self.balances: dict[str, int] = defaultdict(int)
        self.wallets: dict[str, int] = defaultdict(int)
        self.overdrawn: list[tuple[Where, str, int]] = []  # (where, round id, balance)
        self.ended: dict[str, Where] = {}
        self.escrow_last: dict[str, Where] = {}  # the latest transfer touching each escrow
        self.pools_open: set[str] = set()  # pools kept in their table's stream from here on
        self.moved = MoneyMoved(self.money_fault)  # transfers against what the events say
        self.unread: set[str] = set()  # streams with an event that cannot be read

    def fault(self, where: Where, check: str, problem: str) -> None:
        self.faults.append(Fault.at(where, check, problem))

    def snapshot_fault(self, where: Where, problem: str) -> None:
        self.fault(where, "snapshot", problem)

    def money_fault(self, where: Where, problem: str) -> None:
        self.fault(where, "money", problem)

    def shuffle_fault(self, where: Where, problem: str) -> None:
        self.fault(where, "shuffle", problem)

    # -- one event ------------------------------------------------------------------------

    def feed(self, notification: Any, mapper: Any) -> None:
        self.events += 1
        stream = str(notification.originator_id)
        version = notification.originator_version
        type_name = notification.topic.rsplit(":", 1)[-1]
        self.stream_events[stream] += 1
        try:
            event = mapper.to_domain_event(notification)
        except Exception as error:  # a stored row that no longer decodes is itself a fault
            where = Where(notification.id, stream, version, type_name)
            self.fault(where, "decode", f"the stored event cannot be decoded ({error})")
            self.unreadable(stream)
            self.chains[stream] = (None, version + 1)
            self.last[stream] = self.head = where
            self.add_to_digest(notification, where, None)
            return
        where = Where(notification.id, stream, version, type(event).__qualname__)
        intact = self.chain(where, event)
        self.last[stream] = self.head = where
        self.add_to_digest(notification, where, self.chains[stream][0])
        # JSON that still parses but lost a field, or holds text for a number, decodes without
        # complaint: every later check would meet it as an AttributeError or a wrong sum.
        wrong = misshapen(event)
        if wrong is not None:
            problem = (
                f"the stored event was altered: {ALTERED} ({wrong})"
                if not intact
                # Its hash fits: it was written so (by a forger who hashed it, or a bug).
                else f"the event's fields are not those its type records ({wrong})"
            )
            self.fault(where, "decode", problem)
            self.unreadable(stream)
            return
        self.facts(where, stream, event)
        if self.snapshots is not None:
            if version == 1:
                self.snapshots.first_event(where, event)
            self.snapshots.feed(where, event)

    def unreadable(self, stream: str) -> None:
        """A stream with an event that cannot be read (a fault names it) is not held to its
        money nor to its snapshots: every such fault would follow from that one."""
        self.moved.unreadable(stream)
        self.unread.add(stream)
        if self.snapshots is not None:
            self.snapshots.forget(stream)

    def add_to_digest(self, notification: Any, where: Where, event_hash: str | None) -> None:
        if not isinstance(event_hash, str):
            event_hash = raw_hash(notification.state)
        self.digest = next_digest(
            self.digest, where.position, where.stream, where.version, event_hash
        )
        if self.expect_head is not None and where.position == self.expect_head[0]:
            self.expected_found, self.expected_hash = where, event_hash
            self.expected_digest = self.digest

    def chain(self, where: Where, event: Any) -> bool:
        """Check the event's place in its stream's chain; whether its content fits its hash."""
        fields = event_fields(event)
        prev, expected = self.chains.get(where.stream, (GENESIS, 1))
        if where.version != expected:
            self.fault(where, "chain", f"version gap: expected v{expected}, found v{where.version}")
        elif prev is not None and fields.get("prev_hash") != prev:
            self.fault(where, "chain", "prev_hash does not match the preceding event's hash")
        intact = "hash" in fields and hash_matches(where.type, fields)
        if "hash" not in fields:
            self.fault(where, "chain", "the event carries no hash")
        elif not intact:
            self.fault(where, "chain", "content does not match its hash (the event was altered)")
        moment = fields.get("timestamp")
        last = self.times.get(where.stream)
        if last is not None and moment is not None and moment < last:
            self.fault(
                where,
                "chain",
                f"recorded at {utc(moment)}, before the stream's previous event ({utc(last)}): "
                "a stream's times never go back",
            )
        self.times[where.stream] = moment if last is None or moment is None else max(moment, last)
        self.chains[where.stream] = (fields.get("hash"), where.version + 1)
        return intact

    def facts(self, where: Where, stream: str, event: Any) -> None:
        self.moved.event(where, stream, event)
        if isinstance(event, FundsTransferredBase):
            self.money(where, stream, event)
        elif isinstance(event, CARD_EVENTS):
            self.cards.append((where, str(event.shoe), event.shoe_index, event.card))
            if type(event) is Round.CardDealt:
                self.in_hands[stream][event.card] += 1
        elif isinstance(event, Round.TwoCardsResolved):
            if event.rejected:
                self.in_hands[stream][event.rejected] -= 1
        elif isinstance(event, Round.ShoeReplaced):
            self.replaced.append((where, stream, str(event.shoe), +self.in_hands[stream]))
        elif isinstance(event, Table.RoundOpened):
            self.opened.setdefault(str(event.round_id), where)
        elif isinstance(event, Table.RoundClosed):
            self.closed.setdefault(str(event.round_id), where)
        elif isinstance(event, Round.Started):
            self.round_table[stream] = str(event.table_id)
            self.round_credit[stream] = bool(event.rules.get("credit"))
        elif isinstance(event, Round.Ended):
            self.ended[stream] = where
        elif isinstance(event, Table.PoolOpened):
            self.pool_opened(where, stream, event)
        elif isinstance(event, Table.Opened):
            self.table_credit[stream] = bool(event.rules.get("credit"))
        elif isinstance(event, Table.PlayerSeated):
            self.table_players[stream].add(event.player_id)
        elif isinstance(event, Shoe.Committed):
            self.shoes[stream] = ShoeRecord.committed_by(event, where)
        elif isinstance(event, Shoe.Cut) and stream in self.shoes:
            self.shoes[stream].cut = event.cut
            self.shoes[stream].cut_where = where
        elif isinstance(event, Shoe.Revealed) and stream in self.shoes:
            shoe = self.shoes[stream]
            shoe.revealed = where
            shoe.server_seed = event.server_seed
            shoe.fixed_order = list(event.fixed_order)
            shoe.cards_dealt = event.cards_dealt
        elif isinstance(event, Table.ShoeChanged):
            self.shoe_changed(where, stream, event)
        elif isinstance(event, Table.Closed):
            self.table_closed.setdefault(stream, where)

    def shoe_changed(self, where: Where, table: str, event: Any) -> None:
        shoe_id = str(event.shoe_id)
        previous = self.table_shoe.get(table)
        if previous is not None and previous != shoe_id:
            self.shoe_replaced.setdefault(previous, (where, shoe_id))
        self.table_shoe[table] = shoe_id
        if shoe_id in self.shoes:
            self.shoes[shoe_id].start = event.start

    def money(self, where: Where, stream: str, event: Any) -> None:
        amount = event.amount
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            self.fault(where, "money", f"a transfer of {amount!r}: amounts are positive integers")
            return
        self.balances[event.from_account] -= amount
        self.balances[event.to_account] += amount
        self.moved.transfer(where, event)
        if event.round_id and event.round_id not in self.named:
            self.named[event.round_id] = where
        for account in (event.from_account, event.to_account):
            round_id = accounts.escrow_owner(account)
            if round_id is not None:
                self.escrow_last[account] = where
                self.named.setdefault(round_id, where)
        if event.from_account.startswith("pool:") and self.balances[event.from_account] < 0:
            self.fault(where, "money", f"{event.from_account} went below zero")
        for account in (event.from_account, event.to_account):
            if account in self.pools_open and not (
                type(event) is Table.FundsTransferred and account == accounts.pool(stream)
            ):
                self.fault(where, "money", f"a transfer of {account} outside its table's stream")
        own_account = GUARDED.get(type(event))
        if own_account is None:
            return
        own = own_account(stream)
        if own not in (event.from_account, event.to_account):
            self.fault(where, "money", f"a transfer recorded in {own}'s stream misses it")
            return
        if own_account is accounts.player and stream not in self.unread:
            change = event.change(own)
            self.wallets[stream] += change
            # A debit overdraws; money paid into a wallet a credit table left short does not.
            if change < 0 and self.wallets[stream] < 0:
                self.overdrawn.append((where, event.round_id, self.wallets[stream]))

    def pool_opened(self, where: Where, stream: str, event: Any) -> None:
        """A pool opens with the balance its transfers so far fold to: 0 for a new table,
        the carried balance for one opened before the pool kept its own stream."""
        folded = self.balances.get(accounts.pool(stream), 0)
        self.pools_open.add(accounts.pool(stream))
        if event.balance != folded:
            self.fault(
                where, "money", f"the pool opened with {event.balance}, its transfers give {folded}"
            )

    # -- after the last event ---------------------------------------------------------------

    def finish(self) -> None:
        check_cards(self.shoes, self.cards, self.shuffle_fault)
        check_fixed_first(self.shoes, self.cards, self.shuffle_fault)
        check_retired(self.shoes, self.shoe_replaced, self.table_closed, self.shuffle_fault)
        self.rounds()
        self.moved.finish()
        check_stocks(self.shoes, self.replaced, self.shuffle_fault)
        for rid in sorted(self.ended.keys() | self.closed.keys()):
            ended = self.ended.get(rid) or self.closed[rid]
            escrow = accounts.escrow(rid)
            left = self.balances.get(escrow, 0)
            if left:
                # Named at whichever comes last, the round's end (or its table's closing it)
                # or its last escrow transfer (one save may log them in either order): an edit
                # earlier stays the first.
                where = max(ended, self.escrow_last.get(escrow, ended), key=lambda w: w.position)
                how = "ended" if rid in self.ended else "was closed by its table"
                self.fault(
                    where, "money", f"round {rid} {how} with {left} left in its escrow {escrow}"
                )
        for where, round_id, balance in self.overdrawn:
            if round_id and self.round_credit.get(round_id):
                continue
            self.fault(where, "money", f"the wallet went below zero ({balance})")
        total = sum(self.balances.values())
        if total:
            last = max((f.position for f in self.faults), default=0)
            self.faults.append(
                Fault(last, "", 0, "", "money", f"the balances sum to {total}, not 0")
            )
        if self.snapshots is not None:
            self.snapshots.finish(self.last.__getitem__)
        self.check_head()

    def rounds(self) -> None:
        """Cross-stream: the rounds other streams name must be there, and whole. Dropping a
        stream's last events leaves its own chain intact; the table's record of the round and
        the transfers naming it do not go with them."""
        for rid, where in self.closed.items():
            if rid not in self.round_table:
                self.fault(where, "rounds", f"the table closed round {rid}, which has no stream")
            elif rid not in self.ended:
                end = self.last[rid]
                self.fault(
                    where,
                    "rounds",
                    f"the table closed round {rid}, whose stream has no Round.Ended (it ends "
                    f"at {end.type} v{end.version})",
                )
        for rid, where in self.opened.items():
            if rid not in self.round_table and rid not in self.closed:
                self.fault(where, "rounds", f"the table opened round {rid}, which has no stream")
        for rid, where in self.named.items():
            if rid not in self.round_table and rid not in self.closed and rid not in self.opened:
                self.fault(where, "rounds", f"a transfer names round {rid}, which has no stream")

    def check_head(self) -> None:
        if self.expect_head is None:
            return
        position, expected = self.expect_head
        found = self.expected_found
        if found is None:
            at = self.head or Where(0, "", 0, "")
            problem = (
                f"the checkpoint {position}:{expected} is gone: the log ends at position "
                f"{at.position}"
                if at.position < position
                else f"the checkpoint {position}:{expected} is gone: no event at position "
                f"{position}"
            )
            self.faults.append(Fault(max(position, at.position), "", 0, "", "head", problem))
        elif expected == self.expected_hash and expected != self.expected_digest:
            # A checkpoint kept before the log had a digest: it holds the one event.
            self.head_note = (
                "an event's own hash, which holds that event but not the log before it; "
                "keep this run's log head instead"
            )
        elif expected != self.expected_digest:
            self.fault(
                found,
                "head",
                f"the checkpoint {position}:{expected} does not hold: the log's digest there "
                f"is {self.expected_digest}, so an event at or before position {position} was "
                "changed, added or removed",
            )
        # The digest is made of the stored hashes: an event edited without its hash keeps it,
        # and its own check (chain, decode) names it. The checkpoint does not hold over it.
        altered = next(
            (
                f
                for f in sorted(self.faults, key=lambda f: f.position)
                if f.check in ("chain", "decode") and f.position <= position
            ),
            None,
        )
        head_faulted = any(f.check == "head" for f in self.faults)
        if found is not None and altered is not None and not head_faulted:
            self.head_note = ""
            self.fault(
                found,
                "head",
                f"the checkpoint {position}:{expected} does not hold: its digest is made of the "
                f"stored hashes, and the event at position {altered.position}, before it, no "
                f"longer fits its own ({altered.problem})",
            )

    # -- the report -------------------------------------------------------------------------

    def report(self, table: str | None) -> Report:
        faults = sorted(self.faults, key=lambda f: (f.position, CHECKS.index(f.check)))
        shoes = self.shoes
        events, streams_seen = self.events, len(self.chains)
        streams = None if table is None else self.table_streams(table)
        if streams is not None:
            events = sum(self.stream_events[s] for s in streams)
            streams_seen = sum(1 for s in streams if s in self.stream_events)
            faults = [f for f in faults if f.stream in streams or not f.stream]
            shoes = {k: v for k, v in shoes.items() if v.table == table}
        waiting: dict[str, int] = defaultdict(int)
        for _, shoe_id, _, _ in self.cards:
            shoe = shoes.get(shoe_id)
            if shoe is not None and shoe.revealed is None:
                waiting[shoe_id] += 1
        checked = sum(
            1
            for _, shoe_id, _, _ in self.cards
            if shoe_id in shoes and shoes[shoe_id].revealed is not None
        )
        credit = sorted(t for t, c in self.table_credit.items() if c)
        return Report(
            scope="all streams" if table is None else f"table {table}",
            events=events,
            streams=streams_seen,
            shoes_checked=sum(1 for s in shoes.values() if s.revealed is not None),
            cards_checked=checked,
            unrevealed=[
                {"shoe": k, "table": v.table, "cards": waiting.get(k, 0)}
                for k, v in shoes.items()
                if v.revealed is None
            ],
            credit_exempt=credit if table is None else [t for t in credit if t == table],
            balances_sum=sum(self.balances.values()),
            snapshots_checked=self.snapshots_checked(streams),
            head_position=0 if self.head is None else self.head.position,
            head_hash=None if self.head is None else self.chains[self.head.stream][0],
            head_digest=None if self.head is None else self.digest,
            expected_head_note=self.head_note,
            expected_head=None
            if self.expect_head is None
            else ":".join(map(str, self.expect_head)),
            faults=faults,
        )

    def snapshots_checked(self, streams: set[str] | None) -> int:
        """How many stored snapshots were checked: of every stream, or only of ``streams``."""
        if self.snapshots is None:
            return 0
        if streams is None:
            return self.snapshots.checked
        return sum(self.snapshots.checked_in[s] for s in streams)

    def table_streams(self, table: str) -> set[str]:
        streams = {table}
        streams.update(r for r, t in self.round_table.items() if t == table)
        streams.update(s for s, rec in self.shoes.items() if rec.table == table)
        streams.update(self.table_players.get(table, ()))
        return streams


def parse_head(text: str) -> tuple[int, str]:
    """``POSITION:DIGEST`` (as the report prints the log's head) to (position, digest); an
    older checkpoint's ``POSITION:HASH`` (the event's own hash) reads the same."""
    position, sep, digest = text.strip().partition(":")
    if not sep or not position.isdigit() or int(position) < 1 or len(digest) != 64:
        raise ValueError(f"a checkpoint is POSITION:DIGEST (a 64-digit SHA-256), got {text!r}")
    try:
        int(digest, 16)
    except ValueError:
        raise ValueError(f"{digest!r} is not a SHA-256 in hex") from None
    return int(position), digest.lower()


def verify(
    app: Any, table: str | None = None, expect_head: tuple[int, str] | str | None = None
) -> Report:
    """Check the whole log (or, with ``table``, report only on that table's streams: the
    table, its rounds and shoes, and the wallets of players seated there), and the stored
    snapshots of tables and wallets. ``expect_head``: a checkpoint from an earlier run (the
    report's ``head_position`` and ``head_hash``) the log must still reach. Raises
    ``NotATable`` when ``table`` is no table of this log."""
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
