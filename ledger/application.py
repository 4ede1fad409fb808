"""The use cases of Twenty-One Ledger, for all four families, as one event-sourced
application. Each public method is one command: it loads what it needs, lets the domain
decide, and saves every changed aggregate in one atomic write. A refused command raises a
``LedgerError`` and writes nothing."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application, Recording
from eventsourcing.persistence import IntegrityError, Transcoder
from eventsourcing.utils import get_topic

from ledger import accounts, deal_sales
from ledger.accounts import MAX_AMOUNT
from ledger.config import env_bool, sibling_store_env
from ledger.domain.chain import project, snapshot_state
from ledger.domain.command import CommandRecord, command_record_id, fingerprint
from ledger.domain.player import Player
from ledger.domain.round import Round
from ledger.domain.shoe import Shoe
from ledger.domain.table import POOL_CARRIED_OVER, Table
from ledger.errors import (
    ConcurrentUpdate,
    IdempotencyConflict,
    InvalidCommand,
    LedgerError,
    NotPermitted,
    RuleViolation,
    WrongPhase,
)
from ledger.games import casino, flow
from ledger.games.books import Books
from ledger.games.play import Play
from ledger.repository import LedgerRepository
from ledger.rules import RuleSet, rules_for, rules_from_record
from ledger.shoes import RoundCards, ShoeService
from ledger.startup import ConcurrentStartup
from ledger.text import check_text
from ledger.transcoder import OrjsonTranscoder
from ledger.unit_of_work import LedgerProcessingEvent, UnitOfWork
from ledger.vault import ShoeVault

BUY_IN, CASH_OUT, POOL_PAYOUT, DEAL_SALE = "L-BUY-IN", "L-CASH-OUT", "VU-28", "VU-31"
ADMIN = "admin"

# Player actions on a hand, and the dealer's own decisions, by the names the API uses.
PLAYER_ACTIONS = (
    "hit",
    "stand",
    "split",
    "double_down",
    "surrender",
    "insurance",
    "ace_value",
    "take",
    "reject",
    "throw_up",
)
DEALER_ACTIONS = (
    "dealer_split",
    "dealer_double",
    "dealer_draw",
    "dealer_stand",
    "serve_two",
    "serve_out_of_order",
    "false_division",
)
# Dealer actions that name a hand (VU-23..25).
HAND_DEALER_ACTIONS = ("serve_two", "serve_out_of_order", "false_division")


def _positive_amount(amount: Any, what: str) -> int:
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= MAX_AMOUNT:
        raise InvalidCommand(
            f"{what} must be a positive whole number of minor units up to {MAX_AMOUNT}, "
            f"got {amount!r}"
        )
    return amount


class TwentyOneLedger(ConcurrentStartup, Application):
    name = "TwentyOneLedger"
    snapshotting_intervals = {Table: 50, Player: 50}
    snapshotting_projectors = {Table: project, Player: project}
    env = {"AGGREGATE_CACHE_MAXSIZE": "2000"}

    def __init__(self, env: dict[str, Any] | None = None) -> None:
        super().__init__(env)
        self.vault = ShoeVault(sibling_store_env(self.env, "vault"))
        allow_fixed = env_bool("LEDGER_ALLOW_FIXED_SHOES", False, self.env)
        self.shoes = ShoeService(self.vault, allow_fixed)
        # A round's rules, rebuilt from the record its Started event keeps (the table's, which
        # never change), by round id: actions need not load the table to read them.
        # A table's too (``table_rules``), by table id: a table's rules never change.
        self._rules: dict[str, RuleSet] = {}

    def close(self) -> None:
        self.vault.close()
        super().close()

    def save(self, *objs: Any, **kwargs: Any) -> list[Recording]:
        """eventsourcing's ``save``, collecting our aggregates' events without its runtime
        protocol checks (``LedgerProcessingEvent``); the rest is the library's own steps."""
        processing_event = LedgerProcessingEvent()
        processing_event.collect_events(*objs, **kwargs)
        recordings = self._record(processing_event)
        self._take_snapshots(processing_event)
        self._notify(recordings)
        self.notify(processing_event.events)  # deprecated, but the library still calls it
        return recordings

    def _take_snapshots(self, processing_event: Any) -> None:
        """eventsourcing's, but taken from the aggregate just saved rather than rebuilt from the
        store at the interval's version (a snapshot a few events later is as good); about a
        twentieth of a command's time while tables and wallets snapshot every 50 events."""
        if not (self.snapshots and self.snapshotting_intervals):
            return
        for aggregate_id, aggregate in processing_event.aggregates.items():
            interval = self.snapshotting_intervals.get(type(aggregate))
            if interval is not None and any(
                e.originator_id == aggregate_id and e.originator_version % interval == 0
                for e in processing_event.events
            ):
                self.snapshots.put([type(aggregate).Snapshot.take(snapshot_state(aggregate))])

    def construct_transcoder(self) -> Transcoder:
        """The library's JSON transcoder, writing the same bytes faster (ledger/transcoder.py);
        or, when TRANSCODER_TOPIC names one, that one."""
        if self.factory.env.get(self.factory.TRANSCODER_TOPIC):
            return super().construct_transcoder()
        transcoder = OrjsonTranscoder()
        self.register_transcodings(transcoder)
        return transcoder

    def construct_repository(self) -> LedgerRepository:
        # eventsourcing's, configured from the same settings (see ledger/repository.py).
        base = super().construct_repository()
        repository = LedgerRepository(
            event_store=base.event_store,
            snapshot_store=base.snapshot_store,
            fastforward=base.fastforward,
            fastforward_skipping=base.fastforward_skipping,
            # Always: a command changes the aggregates it loads, and the cached ones must never
            # change (DEEPCOPY_FROM_AGGREGATE_CACHE=n is not honoured).
            deepcopy_from_cache=True,
        )
        repository.cache = base.cache
        return repository

    # -- command plumbing ----------------------------------------------------------------

    def _run(
        self,
        name: str,
        payload: dict[str, Any],
        command_id: str | None,
        actor: str,
        body: Callable[[UnitOfWork], dict[str, Any]],
    ) -> dict[str, Any]:
        print_ = fingerprint(name, payload) if command_id is not None else ""
        if command_id is not None:
            earlier = self._recorded(command_id, print_)
            if earlier is not None:
                return earlier
        uow = UnitOfWork(self)
        try:
            result = body(uow)
        except LedgerError:
            if command_id is not None:  # the first try may have committed meanwhile
                earlier = self._recorded(command_id, print_)
                if earlier is not None:
                    return earlier
            raise
        if command_id is not None:
            uow.add(CommandRecord.record(command_id, name, print_, result, actor))
        for effect in uow.before_save:
            effect()
        try:
            recordings = self.save(*uow.pending())
        except IntegrityError:
            if command_id is not None:
                earlier = self._recorded(command_id, print_)
                if earlier is not None:
                    return earlier
            raise ConcurrentUpdate(
                f"{name}: another command changed the same table, round or wallet first; "
                "reload and try again"
            ) from None
        for effect in uow.after_save:
            effect()
        # The saved aggregates are the newest versions: cache them so the next command does
        # not re-read and re-apply the events it just wrote.
        for aggregate in uow.loaded.values():
            self.repository.keep(aggregate)
        if recordings:
            result = {**result, "position": recordings[-1].notification.id}
        return result

    def _recorded(self, command_id: str, print_: str) -> dict[str, Any] | None:
        if not isinstance(command_id, str) or not 1 <= len(command_id) <= 200:
            raise InvalidCommand("a command id is a string of 1 to 200 characters")
        try:
            record = self.repository.get(command_record_id(command_id), projector_func=project)
        except AggregateNotFoundError:
            return None
        if record.fingerprint != print_:
            raise IdempotencyConflict(
                f"command id {command_id!r} was first used for another command ({record.command})"
            )
        # The first write's exact position is not kept; the newest one is as good for
        # read-your-writes, since it can only be at or after it.
        return {
            **record.result,
            "replayed": True,
            "position": self.recorder.max_notification_id() or 0,
        }

    # -- players and money -----------------------------------------------------------------

    def register_player(
        self, name: str, *, actor: str = ADMIN, command_id: str | None = None
    ) -> dict:
        check_text(name, "a player's name", max_length=100)

        def body(uow: UnitOfWork) -> dict:
            player = uow.add(Player.register(name=name.strip(), actor=actor))
            return {"player_id": str(player.id)}

        return self._run("register_player", {"name": name}, command_id, actor, body)

    def deposit(
        self, player_id: str, amount: int, *, actor: str = ADMIN, command_id: str | None = None
    ) -> dict:
        """A buy-in: the cashier (the world outside) pays into the wallet."""
        return self._cash("deposit", player_id, amount, actor, command_id)

    def withdraw(
        self, player_id: str, amount: int, *, actor: str = ADMIN, command_id: str | None = None
    ) -> dict:
        """A cash-out: the wallet pays the cashier; refused when the balance is short."""
        return self._cash("withdraw", player_id, amount, actor, command_id)

    def _cash(
        self, name: str, player_id: str, amount: int, actor: str, command_id: str | None
    ) -> dict:
        inbound = name == "deposit"
        amount = _positive_amount(amount, "a deposit" if inbound else "a withdrawal")

        def body(uow: UnitOfWork) -> dict:
            player = uow.player(player_id)
            books = Books(uow.player, player, asker=actor)
            if inbound:
                books.transfer(accounts.CASHIER, player.account, amount, BUY_IN, "buy-in")
            else:
                books.transfer(player.account, accounts.CASHIER, amount, CASH_OUT, "cash-out")
            return {"player_id": str(player.id), "balance": player.balance}

        return self._run(
            name, {"player": str(player_id), "amount": amount}, command_id, actor, body
        )

    # -- tables ------------------------------------------------------------------------------

    def open_table(
        self,
        family: str,
        options: dict[str, Any] | None = None,
        *,
        name: str = "",
        actor: str = ADMIN,
        command_id: str | None = None,
    ) -> dict:
        check_text(name, "a table's name", max_length=100, visible=name != "")
        rules = rules_for(family, options)

        def body(uow: UnitOfWork) -> dict:
            table = uow.add(Table.open(name=name or family, rules=rules, actor=actor))
            return {"table_id": str(table.id), "rules": table.rules_record}

        return self._run(
            "open_table",
            {"family": family, "options": options or {}, "name": name},
            command_id,
            actor,
            body,
        )

    def seat_player(
        self,
        table_id: str,
        player_id: str,
        seat: int,
        *,
        actor: str = ADMIN,
        command_id: str | None = None,
    ) -> dict:
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise InvalidCommand(f"a seat is a whole number, got {seat!r}")

        def body(uow: UnitOfWork) -> dict:
            table = uow.table(table_id)
            player = uow.player(player_id)
            table.seat(str(player.id), seat, actor)
            return {"table_id": str(table.id), "seat": seat, "player_id": str(player.id)}

        return self._run(
            "seat_player",
            {"table": str(table_id), "player": str(player_id), "seat": seat},
            command_id,
            actor,
            body,
        )

    def unseat_player(
        self, table_id: str, seat: int, *, actor: str = ADMIN, command_id: str | None = None
    ) -> dict:
        def body(uow: UnitOfWork) -> dict:
            table = uow.table(table_id)
            player_id = table.unseat(seat, actor)
            return {"table_id": str(table.id), "seat": seat, "player_id": player_id}

        return self._run(
            "unseat_player", {"table": str(table_id), "seat": seat}, command_id, actor, body
        )

    def choose_dealer(
        self,
        table_id: str,
        player_id: str | None = None,
        *,
        actor: str = ADMIN,
        command_id: str | None = None,
    ) -> dict:
        """VU-2 (and the private games generally): the dealer is chosen before play."""

        def body(uow: UnitOfWork) -> dict:
            table = uow.table(table_id)
            rules = table.rules
            clause = {"vingt-un": "VU-2", "hoyle-1913": "H13-4", "ochko": "OC-2"}.get(table.family)
            if clause is None:
                raise RuleViolation("in casino Blackjack the house deals", "CB-9")
            if table.current_round is not None:
                raise WrongPhase("the dealer is chosen between rounds", clause)
            if player_id is None:
                if getattr(rules, "dealer_choice", "seat") == "named":
                    raise InvalidCommand("this table names its dealer: give player_id", clause)
                if not table.seats:
                    raise RuleViolation("nobody is seated to deal", clause)
                if getattr(rules, "dealer_choice", "seat") == "cut":
                    chosen, method = self._cut_for_deal(uow, table, actor), "cut"
                else:
                    chosen, method = table.seated_in_order(None)[0][1], "seat"
            else:
                chosen, method = str(uow.player(player_id).id), "named"
                if table.seat_of(chosen) is None:
                    raise NotPermitted(f"player {chosen} is not seated at this table", clause)
            table.trigger_event(
                Table.DealerChosen, player_id=chosen, method=method, clause=clause, actor=actor
            )
            return {"table_id": str(table.id), "dealer": chosen, "method": method}

        return self._run(
            "choose_dealer",
            {"table": str(table_id), "player": str(player_id)},
            command_id,
            actor,
            body,
        )

    def close_table(
        self, table_id: str, *, actor: str = ADMIN, command_id: str | None = None
    ) -> dict:
        """Close a table between rounds; its shoe is retired and its seed revealed."""

        def body(uow: UnitOfWork) -> dict:
            table = uow.table(table_id)
            table.close(actor)
            if table.shoe_id is not None:
                self.shoes.retire(uow.shoe(table.shoe_id), table.shoe_next, "the table closed")
            return {"table_id": str(table.id), "closed": True}

        return self._run("close_table", {"table": str(table_id)}, command_id, actor, body)

    def _cut_for_deal(self, uow: UnitOfWork, table: Table, actor: str) -> str:
        """VU-2 by cut: each seated player cuts one card from a freshly committed shoe, in
        seat order; the lowest card deals (ace low), the earlier seat on equal cards."""
        from ledger.cards import pip_value

        shoe = uow.add(self.shoes.new_shoe(table, actor, "VU-2", uow))
        order = self.shoes.order(shoe)
        cuts = []
        for index, (seat, player) in enumerate(table.seated_in_order(None)):
            card = order[index]
            table.trigger_event(
                Table.CutForDeal,
                player_id=player,
                card=card,
                shoe=shoe.id,
                shoe_index=index,
                clause="VU-2",
            )
            cuts.append((pip_value(card), "A23456789TJQK".index(card[0]), seat, player))
        self.shoes.retire(shoe, len(cuts), "cut for the deal")
        return min(cuts)[3]

    def fix_next_shoe(self, table_id: str, order: list[str]) -> None:
        """For tests and demonstrations only (refused unless LEDGER_ALLOW_FIXED_SHOES)."""
        self.shoes.queue_fixed(UUID(str(table_id)), order)

    # -- rounds --------------------------------------------------------------------------------

    def start_round(
        self,
        table_id: str,
        *,
        actor: str = ADMIN,
        cut: int | None = None,
        command_id: str | None = None,
        with_round: bool = False,
    ) -> Any:
        """The result; with ``with_round``, ``(result, round)`` as ``place_stake`` gives them."""
        saved: list[Round] = []

        def body(uow: UnitOfWork) -> dict:
            from ledger.round_start import start_round

            rnd = start_round(self, uow, table_id, actor, cut).rnd
            if with_round:
                self._keep_round(uow, rnd, saved)
            return {
                "round_id": str(rnd.id),
                "number": rnd.number,
                "phase": rnd.phase,
                "dealer": rnd.dealer,
            }

        result = self._run(
            "start_round", {"table": str(table_id), "cut": cut}, command_id, actor, body
        )
        return self._with_round(result, result["round_id"], saved) if with_round else result

    def play_round(
        self,
        table_id: str,
        stakes: dict[str, int],
        decide: Callable[[Round, str | None], dict],
        *,
        actor: str = ADMIN,
        command_id: str | None = None,
    ) -> dict:
        """A whole round as one command, for bots and the simulator: start it, place
        ``stakes`` (player id -> amount), then ask ``decide(round, hand_id)`` for each
        decision (``hand_id`` None for the dealer's) and apply it, until the round ends. The
        events are exactly those of the step-by-step commands, written in one atomic save."""
        from ledger.round_start import start_round

        def body(uow: UnitOfWork) -> dict:
            play = start_round(self, uow, table_id, actor, None)
            rnd = play.rnd
            for hand_id in list(rnd.order):
                player = rnd.hands[hand_id]["player"]
                play.actor = player
                flow.place_stake(play, player, _positive_amount(stakes[player], "a stake"))
            while not rnd.ended:
                turn = rnd.current_turn() if rnd.phase == "play" else None
                if turn is not None and flow.awaits_stand(play, rnd.hands[turn]):
                    # holder_ends_turn: stand is the one move left, and within one write
                    # nobody sees when it was made: stand for him, as his own command would.
                    play.actor = rnd.hands[turn]["player"]
                    flow.stand(play, turn, play.actor)
                    continue
                step = dict(decide(rnd, turn))
                action = step.pop("action")
                hand = step.get("hand", turn)
                play.actor = rnd.hands[hand]["player"] if hand in rnd.hands else rnd.dealer
                if action in IRREGULAR:
                    IRREGULAR[action](play, hand, play.actor, step.get("card"))
                else:
                    self._dispatch(
                        play,
                        action,
                        play.actor,
                        hand,
                        step.get("amount"),
                        step.get("index"),
                        step.get("value"),
                        step.get("called"),
                    )
            return self._after(uow, play, {})

        return self._run(
            "play_round", {"table": str(table_id), "stakes": stakes}, command_id, actor, body
        )

    def place_stake(
        self,
        round_id: str,
        player_id: str,
        amount: int,
        *,
        actor: str | None = None,
        command_id: str | None = None,
        with_round: bool = False,
    ) -> Any:
        """The result; with ``with_round``, ``(result, round)``: the round as this command
        left it (or as it is now, when the command id replays an earlier result)."""
        amount = _positive_amount(amount, "a stake")
        actor = actor or str(player_id)
        if actor != str(player_id):
            raise NotPermitted("a player stakes only his own money", None)
        saved: list[Round] = []

        def body(uow: UnitOfWork) -> dict:
            play = self._play(uow, round_id, actor)
            hand = flow.place_stake(play, str(player_id), amount)
            if with_round:
                self._keep_round(uow, play.rnd, saved)
            return self._after(uow, play, {"hand": hand})

        result = self._run(
            "place_stake",
            {"round": str(round_id), "player": str(player_id), "amount": amount},
            command_id,
            actor,
            body,
        )
        return self._with_round(result, round_id, saved) if with_round else result

    def act(
        self,
        round_id: str,
        action: str,
        *,
        actor: str,
        hand: str | None = None,
        amount: int | None = None,
        index: int | None = None,
        value: int | None = None,
        called: bool | None = None,
        card: str | None = None,
        command_id: str | None = None,
        with_round: bool = False,
    ) -> Any:
        """Every decision of a round, by name: see PLAYER_ACTIONS and DEALER_ACTIONS. The
        result; with ``with_round``, ``(result, round)`` as ``place_stake`` gives them."""
        if action not in PLAYER_ACTIONS + DEALER_ACTIONS:
            raise InvalidCommand(
                f"unknown action {action!r}; one of {', '.join(PLAYER_ACTIONS + DEALER_ACTIONS)}"
            )
        needs_hand = (
            action in PLAYER_ACTIONS and action != "ace_value"
        ) or action in HAND_DEALER_ACTIONS
        if needs_hand and not hand:
            raise InvalidCommand(f"action {action} needs the hand it applies to")
        if hand is not None and not isinstance(hand, str):
            raise InvalidCommand(f"a hand is named like 'h1', got {hand!r}")
        payload = {
            "round": str(round_id),
            "action": action,
            "hand": hand,
            "amount": amount,
            "index": index,
            "value": value,
            "called": called,
            "card": card,
            "actor": actor,
        }
        saved: list[Round] = []

        def body(uow: UnitOfWork) -> dict:
            play = self._play(uow, round_id, actor)
            if action in IRREGULAR:
                out = IRREGULAR[action](play, hand, actor, card)
            else:
                out = self._dispatch(play, action, actor, hand, amount, index, value, called)
            if with_round:
                self._keep_round(uow, play.rnd, saved)
            return self._after(uow, play, out)

        result = self._run(action, payload, command_id, actor, body)
        return self._with_round(result, round_id, saved) if with_round else result

    @staticmethod
    def _keep_round(uow: UnitOfWork, rnd: Round, saved: list[Round]) -> None:
        """Once the command is saved, keep the round as saved. The uow's object goes to the
        aggregate cache, where it is never changed again (ledger/repository.py): the caller
        may read it, and must not change it."""
        uow.after_save.append(lambda: saved.append(rnd))

    def _with_round(
        self, result: dict[str, Any], round_id: str, saved: list[Round]
    ) -> tuple[dict[str, Any], Round]:
        # Nothing kept when the command id replayed an earlier result: read the round now.
        return result, saved[-1] if saved else self.get_round(round_id)

    def _dispatch(
        self,
        play: Play,
        action: str,
        actor: str,
        hand: str | None,
        amount: Any,
        index: Any,
        value: Any,
        called: Any,
    ) -> dict:
        if action == "hit":
            return {"hand": hand, "card": flow.hit(play, hand, actor)}
        if action == "stand":
            flow.stand(play, hand, actor)
            return {"hand": hand}
        if action == "split":
            if amount is not None:
                amount = _positive_amount(amount, "a split stake")
            return {"hand": hand, "new_hand": flow.split(play, hand, actor, amount)}
        if action == "double_down":
            return {"hand": hand, "card": flow.double_down(play, hand, actor)}
        if action == "surrender":
            if play.family != "casino":
                raise RuleViolation(f"{play.family} has no surrender", flow.book(play).PLAY_CLAUSE)
            casino.surrender(play, hand, actor)
            return {"hand": hand}
        if action == "insurance":
            if play.family != "casino":
                raise RuleViolation(f"{play.family} has no insurance", flow.book(play).PLAY_CLAUSE)
            if isinstance(amount, bool) or not isinstance(amount, int):
                raise InvalidCommand("insurance needs an amount (0 declines)")
            casino.insurance(play, hand, actor, amount)
            return {"hand": hand}
        if action == "ace_value":
            for name, v in (("index", index), ("value", value)):
                if isinstance(v, bool) or not isinstance(v, int):
                    raise InvalidCommand(f"ace_value needs an integer {name}")
            flow.choose_ace(play, hand or "dealer", index, value, actor)
            return {"hand": hand or "dealer"}
        if action == "dealer_double":
            if play.family != "vingt-un":
                raise RuleViolation("only the Vingt-un dealer calls 'double'", "VU-6")
            if not isinstance(called, bool):
                raise InvalidCommand("dealer_double needs called: true or false")
            flow.dealer_double(play, called)
            return {"called": called}
        if action == "dealer_split":
            if play.family != "vingt-un":
                raise RuleViolation("only the Vingt-un dealer divides his own pair", "VU-21")
            from ledger.games import vingt_un

            return {"hands": list(vingt_un.dealer_divides(play))}
        if action == "dealer_draw":
            if play.rules.house_banked:
                raise RuleViolation("the casino dealer's play is automatic", "CB-9")
            return {"card": flow.dealer_draw(play)}
        if play.rules.house_banked:
            raise RuleViolation("the casino dealer's play is automatic", "CB-9")
        flow.dealer_stand(play)
        return {}

    def _play(self, uow: UnitOfWork, round_id: str, actor: str) -> Play:
        # The acting player's wallet too: when this process has not seen the round, it is the
        # one neighbour known before the round is read.
        uow.prefetch(actor, *self._round_neighbours(round_id), whole=round_id)
        rnd = uow.round(round_id)
        if rnd.ended:
            raise WrongPhase(f"round {rnd.id} is over", None)
        rules = self._rules_of(rnd)
        books = self.round_books(uow, rnd, rules)
        # The table is loaded only when needed (a shoe replaced mid-round, the round's end):
        # RoundCards reads just its id and asks the uow for the table itself.
        table = SimpleNamespace(id=rnd.table_id)
        cards = RoundCards(self.shoes, uow, table, rnd.pone, _shoe_clause(rules.family))
        return Play(rnd, rules, cards, books, actor)

    def round_books(self, uow: UnitOfWork, rnd: Round, rules: RuleSet) -> Books:
        """A round command's books: its escrow clears, its stream records what no other
        stream guards, and the table's pool is loaded when money moves to it."""
        return Books(
            uow.player,
            rnd,
            credit=rules.credit,
            round_id=str(rnd.id),
            load_pool=lambda table_id: self._pool_table(uow, table_id),
        )

    def _pool_table(
        self, uow: UnitOfWork, table_id: Any, balances: dict[str, int] | None = None
    ) -> Table:
        """The table, its pool open: a table opened before the pool kept its own stream
        carries over, once, the balance folded from the whole log (VU-27), or taken from
        ``balances``, such a fold made for many tables at once."""
        table = uow.table(table_id)
        table.require_pool()
        if table.pool is None:
            account = table.pool_account
            table.open_pool(
                self.account_balance(account) if balances is None else balances.get(account, 0),
                POOL_CARRIED_OVER,
            )
        return table

    def open_pools(self) -> list[dict]:
        """Open the pool of every Vingt-un table recorded before tables kept their pools, with
        one fold of the log's transfers for all of them (``python -m ledger open-pools``),
        rather than one inside each table's first command that moves pool money. A table
        whose pool some command opened meanwhile is left as that command left it."""
        from ledger.balances import fold_balances, notifications

        opened, pooled = get_topic(Table.Opened), get_topic(Table.PoolOpened)
        tables, done = [], set()
        for n in notifications(self, [opened, pooled]):
            if n.topic == pooled:
                done.add(n.originator_id)
            elif self.mapper.to_domain_event(n).rules["family"] == "vingt-un":
                tables.append(n.originator_id)
        waiting = [t for t in tables if t not in done]
        balances = fold_balances(self) if waiting else {}
        out = []
        for table_id in waiting:

            def body(uow: UnitOfWork, table_id: UUID = table_id) -> dict:
                table = self._pool_table(uow, table_id, balances)
                return {"table_id": str(table.id), "pool": table.pool}

            for _ in range(3):  # another command wrote the table meanwhile: load it again
                try:
                    out.append(self._run("open_pool", {"table": str(table_id)}, None, ADMIN, body))
                    break
                except ConcurrentUpdate:
                    continue
            else:
                raise ConcurrentUpdate(f"table {table_id} kept changing; run open-pools again")
        return out

    def _round_neighbours(self, round_id: str) -> list[Any]:
        """What a command on the round may load besides it, as the cached round names them:
        its table (the round's end is recorded there) and its players' and banker's wallets."""
        cache = self.repository.cache
        try:
            rnd = cache.get(UUID(str(round_id))) if cache is not None else None
        except (KeyError, ValueError):
            return []
        if not isinstance(rnd, Round):
            return []
        return [rnd.table_id, rnd.dealer, *(hand["player"] for hand in rnd.hands.values())]

    def _rules_of(self, rnd: Round) -> RuleSet:
        """The round's rules: those its table recorded at opening, copied into the round's
        Started event (a table's rules never change)."""
        return self._remembered_rules(str(rnd.id), lambda: rules_from_record(rnd.rules_record))

    def _remembered_rules(self, aggregate_id: str, make: Callable[[], RuleSet]) -> RuleSet:
        rules = self._rules.get(aggregate_id)
        if rules is None:
            if len(self._rules) >= 2000:
                self._rules.clear()
            rules = self._rules[aggregate_id] = make()
        return rules

    def _after(self, uow: UnitOfWork, play: Play, out: dict) -> dict:
        from ledger.round_start import finish_round

        if play.rnd.ended:
            finish_round(self, uow, play)
        return {"round_id": str(play.rnd.id), "phase": play.rnd.phase, **out}

    # -- the pool and the deal ---------------------------------------------------------------

    def pay_from_pool(
        self,
        table_id: str,
        recipient: str,
        amount: int,
        reason: str,
        *,
        actor: str = ADMIN,
        command_id: str | None = None,
    ) -> dict:
        amount = _positive_amount(amount, "a pool payout")
        check_text(reason, "a pool payout's reason (VU-28)", max_length=200)

        def body(uow: UnitOfWork) -> dict:
            uow.prefetch(table_id, recipient)
            table = self._pool_table(uow, table_id)
            player = uow.player(recipient)
            table.pay_from_pool(str(player.id), amount, reason, actor)
            books = Books(
                uow.player,
                table,
                load_pool=lambda table_id: self._pool_table(uow, table_id),
                clearing=accounts.pool_payout(table.id),
            )
            books.transfer(
                table.pool_account, player.account, amount, POOL_PAYOUT, f"pool payout: {reason}"
            )
            return {"table_id": str(table.id), "recipient": str(player.id), "amount": amount}

        return self._run(
            "pay_from_pool",
            {"table": str(table_id), "to": str(recipient), "amount": amount, "reason": reason},
            command_id,
            actor,
            body,
        )

    def offer_deal(
        self,
        table_id: str,
        seller: str,
        buyer: str,
        price: int,
        *,
        actor: str | None = None,
        command_id: str | None = None,
    ) -> dict:
        """VU-31, the seller's half: the dealer offers his deal to another seated player at
        ``price``; nothing moves until that player accepts (``accept_deal``)."""
        price = _positive_amount(price, "the price of the deal")
        actor = actor or str(seller)

        def body(uow: UnitOfWork) -> dict:
            return deal_sales.offer(uow.table(table_id), str(seller), str(buyer), price, actor)

        payload = {"table": str(table_id), "seller": str(seller), "buyer": str(buyer)}
        return self._run("offer_deal", {**payload, "price": price}, command_id, actor, body)

    def accept_deal(
        self,
        table_id: str,
        buyer: str,
        price: int,
        *,
        actor: str | None = None,
        command_id: str | None = None,
    ) -> dict:
        """VU-31, the buyer's half: he accepts the offer made to him at the price he names;
        the price moves from his wallet to the seller's and he deals."""
        price = _positive_amount(price, "the price of the deal")
        actor = actor or str(buyer)

        def body(uow: UnitOfWork) -> dict:
            table = uow.table(table_id)
            books = _sale_books(uow, table, actor)
            return deal_sales.accept(table, books, str(buyer), price, actor)

        payload = {"table": str(table_id), "buyer": str(buyer), "price": price}
        return self._run("accept_deal", payload, command_id, actor, body)

    def withdraw_deal_offer(
        self, table_id: str, *, actor: str, command_id: str | None = None
    ) -> dict:
        """VU-31: the open offer ends unaccepted (the seller withdraws, the buyer declines)."""

        def body(uow: UnitOfWork) -> dict:
            return deal_sales.withdraw(uow.table(table_id), actor)

        return self._run("withdraw_deal_offer", {"table": str(table_id)}, command_id, actor, body)

    def sell_deal(
        self,
        table_id: str,
        seller: str,
        buyer: str,
        price: int,
        *,
        actor: str = ADMIN,
        command_id: str | None = None,
    ) -> dict:
        """VU-31 in one step, for an admin recording a price the two agreed elsewhere; the
        players themselves sell by ``offer_deal`` and ``accept_deal``."""
        price = _positive_amount(price, "the price of the deal")
        if actor not in (ADMIN, "ledger"):
            raise NotPermitted(
                "only an admin records a sale in one step; the dealer offers the deal "
                "(offer_deal) and the buyer accepts it (accept_deal)",
                DEAL_SALE,
            )

        def body(uow: UnitOfWork) -> dict:
            table = uow.table(table_id)
            books = _sale_books(uow, table, actor)
            return deal_sales.sell(table, books, str(seller), str(buyer), price, actor)

        return self._run(
            "sell_deal",
            {"table": str(table_id), "seller": str(seller), "buyer": str(buyer), "price": price},
            command_id,
            actor,
            body,
        )

    # -- queries -------------------------------------------------------------------------------

    def table_rules(self, table_id: str) -> RuleSet:
        """A table's rules, fixed when it opened: read from the store once per table."""
        return self._remembered_rules(str(table_id), lambda: self.get_table(table_id).rules)

    def get_table(self, table_id: str, version: int | None = None) -> Table:
        return (
            UnitOfWork(self).table(table_id)
            if version is None
            else self.repository.get(UUID(str(table_id)), version=version)
        )

    def get_round(self, round_id: str, version: int | None = None, *, copy: bool = True) -> Round:
        """The round now, or as it stood at ``version``. ``copy=False`` returns the cached
        object itself: faster, for callers that only read it (the simulator)."""
        if version is not None:
            return self.repository.get(UUID(str(round_id)), version=version, projector_func=project)
        if not copy:
            try:
                rnd = self.repository.get(
                    UUID(str(round_id)), projector_func=project, deepcopy_from_cache=False
                )
            except (AggregateNotFoundError, ValueError):
                rnd = None
            if isinstance(rnd, Round):
                return rnd
        return UnitOfWork(self).round(round_id)

    def get_player(self, player_id: str) -> Player:
        return UnitOfWork(self).player(player_id)

    def get_shoe(self, shoe_id: str) -> Shoe:
        return self.repository.get(UUID(str(shoe_id)))

    def account_balance(self, account: str) -> int:
        """Any account's balance, folded from every transfer recorded (slow: for checks)."""
        from ledger.balances import fold_balances

        return fold_balances(self).get(account, 0)


def _sale_books(uow: UnitOfWork, table: Table, actor: str) -> Books:
    """The books of a deal sale (VU-31): the price passes through the table's clearing
    account, and a refusal tells ``actor`` only his own balance."""
    return Books(uow.player, table, clearing=accounts.deal_sale(table.id), asker=actor)


def _irregular() -> dict[str, Callable[..., dict]]:
    from ledger.games import irregularities as vu

    def reject(play: Play, hand: str, actor: str, card: Any) -> dict:
        if not isinstance(card, str):
            raise InvalidCommand("reject needs the card to send back, e.g. 'TH'")
        vu.reject(play, hand, actor, card)
        return {"hand": hand, "rejected": card}

    return {
        "serve_two": lambda play, hand, actor, card: dict(
            zip(("hand", "cards"), vu.serve_two(play, hand), strict=True)
        ),
        "take": lambda play, hand, actor, card: vu.take_both(play, hand, actor) or {"hand": hand},
        "reject": reject,
        "serve_out_of_order": lambda play, hand, actor, card: {
            "hand": hand,
            "card": vu.serve_out_of_order(play, hand),
        },
        "throw_up": lambda play, hand, actor, card: (
            vu.throw_up(play, hand, actor) or {"hand": hand}
        ),
        "false_division": lambda play, hand, actor, card: (
            vu.false_division(play, hand) or {"hand": hand}
        ),
    }


IRREGULAR = _irregular()


def _shoe_clause(family: str) -> str:
    return {"vingt-un": "VU-29", "hoyle-1913": "H13-1", "ochko": "OC-12", "casino": "CB-X-SHOE"}[
        family
    ]
