"""Whether a command is accepted or refused never depends on the cards not yet dealt.

A refusal is an answer: whoever gave the command sees it. If one command, at a table showing
the same cards, were accepted with one remainder of the shoe and refused with another, its
refusal would tell him something of the next card (a Vingt-un dealer whose ``dealer_draw`` is
refused for want of money only when the card over-draws him learns that it would, and stands).

Seeded random rounds in every family and a mix of its options, with the family's whole command
set: stakes at and beyond the limits, the dealer's double, insurance, hits, stands, splits,
doubles, surrender, ace values, the dealer's draws, stands and division, the Vingt-un
irregularities (VU-23..26), the deal offered, bought and sold (VU-31), pool payouts (VU-28),
the choice of the dealer, withdrawals; commands by the wrong player, on the wrong hand, in the
wrong phase. A wallet a refusal finds short is mostly topped up by exactly what it lacked, so
players and bankers play with nothing to spare; tables with and without credit; pools with
antes, over-draw penalties, tie shares and irregularity penalties; half the tables deal their
first shoe stacked by rank (pairs, naturals and over-draws galore).

Every command is forked before it is sent. It is first tried three times on the same store
with the undealt remainder of the shoe in play replaced by other orders of the same cards (the
high cards next, the low cards next, shuffled), each try stopped at its write (a dry run:
nothing is stored, ``Forks.dry``); a shoe the command opens (a new deal, the used cards of
VU-29) is drawn afresh in each try. Then it is sent for real. All four must end alike:
accepted, or refused with the same error class, clause, message and details. What an accepted
command answers may differ: it names the card dealt.

Forks, rather than two ledgers each keeping its own remainder: from the first card the two
deal differently they no longer show the same cards, and nothing after it could be compared. A
fork compares each command at exactly one history, against three remainders rather than one.

Not asked here: whether a refusal tells a card dealt face down (the casino hole card, the
private games' first cards), which is the same in every fork:
test_refusals_blind_to_face_down_cards.py asks it, of twin ledgers dealt that card differently.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import pytest
from test_random_rounds import CHOICES, FAMILIES, PRIVATE

from ledger.application import TwentyOneLedger
from ledger.cards import RANKS, SUITS, is_ace, pip_value, same_denomination
from ledger.config import store_env
from ledger.domain.hands import DEALER, OPEN
from ledger.domain.round import Round
from ledger.errors import InsufficientFunds, LedgerError
from ledger.use_cases.actions import DEALER_ACTIONS, PLAYER_ACTIONS

EXAMPLES = 10  # tables per family: about three seconds a family
ROUNDS = 8  # rounds per table
MAX_STEPS = 160  # commands in one round before the harness gives up on it
PATIENCE = 50  # after this many commands in a round only the moves that end it are drawn
NOISE = 0.2  # the share of commands drawn from the whole command set, whatever the phase
ACCEPTED = ("accepted",)


class WouldWrite(Exception):
    """A dry run reached its write: the command was accepted."""


def outcome_of(error: BaseException) -> tuple:
    if isinstance(error, LedgerError):
        details = tuple(sorted((k, repr(v)) for k, v in error.details.items()))
        return ("refused", type(error).__name__, error.clause, error.message, details)
    return ("crashed", type(error).__name__, str(error))


def shape(outcome: tuple) -> str:
    return "accepted" if outcome == ACCEPTED else f"{outcome[1]}[{outcome[2]}]"


def strength(card: str) -> int:
    """How far a card takes a hand: ten-cards most, aces least (counted 1 when it matters)."""
    return 1 if is_ace(card) else pip_value(card)


def remainders(tail: tuple[str, ...], rng: random.Random) -> list[tuple[str, tuple[str, ...]]]:
    """Other orders of the undealt cards: the ones most likely to over-draw a hand first, the
    ones least likely first, and one at random."""
    shuffled = list(tail)
    rng.shuffle(shuffled)
    return [
        ("high cards next", tuple(sorted(tail, key=strength, reverse=True))),
        ("low cards next", tuple(sorted(tail, key=strength))),
        ("shuffled", tuple(shuffled)),
    ]


@dataclass
class Difference:
    """A command whose outcome depended on the undealt cards (or that crashed the ledger)."""

    family: str
    options: dict[str, Any]
    seed: int
    command: str
    history: list[str]
    dealt: tuple[str, ...]
    tail: tuple[str, ...]
    real: tuple
    other: tuple
    world: str
    other_tail: tuple[str, ...]

    @property
    def key(self) -> tuple:
        """What makes two differences one kind: the family, the command (the action, for
        ``act``) and the two outcomes."""
        name = re.match(r"(?:act\()?(\w*)", self.command).group(1)
        return (self.family, name, *sorted({shape(self.real), shape(self.other)}))

    def text(self) -> str:
        recent = "\n      ".join(self.history[-12:])
        return (
            f"{self.family} {self.options} (seed {self.seed})\n"
            f"    command: {self.command}\n"
            f"    dealt so far: {' '.join(self.dealt[-12:])} ({len(self.dealt)} cards)\n"
            f"    undealt, as dealt: {' '.join(self.tail[:8])} ... -> {self.real}\n"
            f"    undealt, {self.world}: {' '.join(self.other_tail[:8])} ... -> {self.other}\n"
            f"    the commands before it (last 12):\n      {recent}"
        )


class Forks:
    """One ledger on the in-memory store, and every command sent to it tried first against
    other remainders of its shoe."""

    def __init__(self, seed: int) -> None:
        self.app = TwentyOneLedger(
            env={**store_env("memory", environ={}), "LEDGER_ALLOW_FIXED_SHOES": "true"}
        )
        self.app.shoes.rng = random.Random(seed)  # the shoes a command opens, repeatably
        self.rng = random.Random(seed + 1)  # the shuffled remainders
        self.table: str | None = None
        self.family = ""
        self.options: dict[str, Any] = {}
        self.seed = seed
        self.history: list[str] = []
        self.differences: list[Difference] = []
        self.override: dict[UUID, tuple[str, ...]] = {}
        real_order = self.app.shoes.order

        def order(shoe: Any, loader: Any = None) -> tuple[str, ...]:
            shoe_id = shoe if isinstance(shoe, UUID) else shoe.id
            return self.override.get(shoe_id) or real_order(shoe, loader)

        self.real_order = real_order
        self.app.shoes.order = order

    def close(self) -> None:
        self.app.close()

    @contextmanager
    def dry(self) -> Iterator[None]:
        """Stop the command at its write: the shoe vault's sealing of a new shoe comes first
        (``UnitOfWork.before_save``), then the ledger's save. A refusal is raised before
        either (a refused command writes nothing), so reaching one means acceptance."""

        def stop(*args: Any, **kwargs: Any) -> Any:
            raise WouldWrite

        self.app.save = stop
        self.app.vault.save = stop
        try:
            yield
        finally:
            del self.app.save
            del self.app.vault.save

    def written(self) -> tuple[int | None, int | None]:
        """How far the ledger's and the shoe vault's stores are written."""
        return (
            self.app.recorder.max_notification_id(),
            self.app.vault.recorder.max_notification_id(),
        )

    def undealt(self) -> tuple[UUID, int] | None:
        """The shoe the next card comes from, and how far it is dealt."""
        if self.table is None:
            return None
        table = self.app.get_table(self.table)
        if table.current_round is not None:
            rnd = self.app.get_round(table.current_round)
            return rnd.shoe_id, rnd.shoe_next
        if table.shoe_id is None:
            return None
        return table.shoe_id, table.shoe_next

    def send(self, label: str, method: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Try the command against the other remainders, then send it; returns its result,
        or the error that refused it. A difference (or a crash) is kept in ``differences``."""
        place = self.undealt()
        dealt: tuple[str, ...] = ()
        tail: tuple[str, ...] = ()
        worlds: list[tuple[str, tuple[str, ...], dict[UUID, tuple[str, ...]]]] = []
        if place is not None:
            shoe_id, position = place
            order = tuple(self.real_order(self.app.get_shoe(shoe_id)))
            dealt, tail = order[:position], order[position:]
            for name, other in remainders(tail, self.rng):
                worlds.append((name, other, {shoe_id: dealt + other}))
        else:  # no shoe yet: each try opens its own
            worlds = [(f"new shoe {n}", (), {}) for n in (1, 2)]
        written = self.written()
        tried = []
        for name, other, override in worlds:
            self.override = override
            try:
                with self.dry():
                    method(*args, **kwargs)
                outcome = ACCEPTED  # nothing to write: accepted all the same
            except WouldWrite:
                outcome = ACCEPTED
            except Exception as error:  # a crash, as much an outcome to compare as a refusal
                outcome = outcome_of(error)
            finally:
                self.override = {}
            tried.append((name, other, outcome))
        assert self.written() == written, f"a dry run of {label} wrote to the store"
        try:
            result = method(*args, **kwargs)
            real = ACCEPTED
        except Exception as error:
            result, real = error, outcome_of(error)
        if real[0] == "crashed":  # reported even when every fork crashed alike
            tried.insert(0, ("as dealt", tail, real))
        self.history.append(f"{label} -> {shape(real)}")
        for name, other, outcome in tried:
            if outcome != real or outcome[0] == "crashed":
                self.differences.append(
                    Difference(
                        family=self.family,
                        options=self.options,
                        seed=self.seed,
                        command=label,
                        history=self.history[:-1],
                        dealt=dealt,
                        tail=tail,
                        real=real,
                        other=outcome,
                        world=name,
                        other_tail=other,
                    )
                )
                break
        return result


# --- the tables -------------------------------------------------------------------------------


# Options beyond test_random_rounds' CHOICES that change what money a command needs.
EXTRA: dict[str, dict[str, list[Any]]] = {
    "casino": {"decks": [1, 2], "penetration": [50, 75, 90], "burn": [0, 1, 3]},
    "vingt-un": {
        "penalty_amount": [0, 0, 10, 100],
        "natural_collects_from_players": [False, True],
        "pool_dealer_overdraw": [0, 50, 50],  # weighted: VU-27 (b) needs the dealer's money
    },
    "hoyle-1913": {"natural_takes_table": [False, True]},
    "ochko": {},
}


def draw_options(rng: random.Random, family: str) -> dict[str, Any]:
    low = rng.choice([1, 10, 100])
    options: dict[str, Any] = {"min_stake": low, "max_stake": low * rng.choice([1, 5, 20])}
    for name, values in {**CHOICES["common"], **CHOICES[family], **EXTRA[family]}.items():
        options[name] = rng.choice(values)
    if options.get("deal_limit") == "hands":
        options["deal_hands"] = rng.randint(1, 3)
    if family == "hoyle-1913" and rng.random() < 0.25:
        options["fixed_bet"] = rng.randint(low, options["max_stake"])
    if family == "ochko" and rng.random() < 0.5:
        # Mostly a cap the stakes reach, down to the least stake of each of the (at most
        # three) punters: below that no round starts (OC-3), and the example would stop.
        top = options["max_stake"]
        options["bank_cap"] = rng.choice([3 * low, 5 * low, top + 2 * low, 3 * top])
    return options


def stacked(packs: int, rng: random.Random) -> list[str]:
    """The table's packs with the cards of each rank together, the ranks in random order: a
    valid shoe that deals pairs to divide, naturals and over-draws far more often than a
    shuffled one."""
    ranks = list(RANKS)
    rng.shuffle(ranks)
    order = []
    for rank in ranks:
        run = [rank + suit for suit in SUITS for _ in range(packs)]
        rng.shuffle(run)
        order += run
    return order


PLAYER_ID = re.compile(r"player:([0-9a-f-]{36})")


class Table:
    """One table played by seeded choices, every command sent through ``Forks``."""

    # What the commands go through: test_refusals_blind_to_face_down_cards.py plays the same
    # tables through its own (twin ledgers, each dealt one face-down card differently).
    forks_class: type[Forks] = Forks

    def __init__(self, family: str, seed: int) -> None:
        self.rng = random.Random(seed)
        self.forks = self.forks_class(seed)
        self.family = family
        self.options = draw_options(self.rng, family)
        self.forks.family, self.forks.options = family, self.options
        app = self.app = self.forks.app
        self.table = app.open_table(family, self.options)["table_id"]
        self.rules = app.get_table(self.table).rules
        punters = self.rng.randint(1, 3)
        self.players: list[str] = []
        seats = self.rng.sample(range(1, 8), punters + (family in PRIVATE))
        for i, seat in enumerate(seats):
            pid = app.register_player(f"P{i}")["player_id"]
            amount = self.rng.choice([0, self.rules.min_stake, 4 * self.rules.max_stake, 10**6])
            if amount:
                app.deposit(pid, amount)
            app.seat_player(self.table, pid, seat)
            self.players.append(pid)
        self.forks.table = self.table
        if family in PRIVATE:
            named = self.rng.choice(self.players)
            if getattr(self.rules, "dealer_choice", "seat") != "named" and self.rng.random() < 0.5:
                named = None  # by seat, or by cut (VU-2)
            self.send("choose_dealer", app.choose_dealer, self.table, named)
        # Half the tables deal their first shoe stacked (the first round always opens one).
        self.stacked = self.rng.random() < 0.5
        if self.stacked:
            app.fix_next_shoe(self.table, stacked(self.rules.packs, self.rng))

    def send(
        self, label: str, method: Callable[..., Any], *args: Any, must: bool = False, **kwargs: Any
    ) -> Any:
        """Send the command through the forks; a wallet it finds short is topped up (always
        when it ``must`` go through, else mostly)."""
        result = self.forks.send(label, method, *args, **kwargs)
        if isinstance(result, InsufficientFunds) and (must or self.rng.random() < 0.8):
            self.top_up(result)
        return result

    def top_up(self, refusal: InsufficientFunds) -> None:
        """Deposit what the refusal said was missing, mostly to the unit: the wallet is then
        left with nothing to spare once the command goes through."""
        found = PLAYER_ID.search(refusal.message)
        if found is None:
            return  # a pool short of money
        pid = found.group(1)
        short = refusal.details["needed"] - self.app.get_player(pid).balance
        spare = self.rng.choice([0, 0, 0, 1, self.rules.max_stake])
        if short + spare > 0:
            self.app.deposit(pid, short + spare)
            self.forks.history.append(f"deposit {short + spare} to {self.name(pid)}")

    def name(self, pid: str) -> str:
        return f"P{self.players.index(pid)}" if pid in self.players else pid

    def amount(self) -> int:
        rules, rng = self.rules, self.rng
        fixed = getattr(rules, "fixed_bet", None)
        return rng.choice(
            [
                rules.min_stake,
                rules.max_stake,
                rng.randint(rules.min_stake, rules.max_stake),
                rules.max_stake + 1,
                rules.min_stake - 1 or 1,
                fixed or rules.max_stake,
            ]
        )

    # -- between rounds --------------------------------------------------------------------

    def between_rounds(self) -> None:
        app, rng = self.app, self.rng
        table = app.get_table(self.table)
        dealer = table.dealer
        for _ in range(rng.choice([0, 0, 1, 2])):
            p = rng.choice(self.players)
            choice = rng.choice(["withdraw", "sale", "pool", "dealer"])
            if choice == "withdraw":
                amount = rng.choice([1, self.rules.max_stake, app.get_player(p).balance or 1])
                self.send(f"withdraw({self.name(p)}, {amount})", app.withdraw, p, amount)
            elif choice == "sale" and self.family == "vingt-un" and dealer:
                self.deal_sale(dealer)
            elif choice == "pool" and self.family == "vingt-un":
                pool = table.pool or 0
                amount = rng.choice([1, pool or 1, pool + 1])
                self.send(
                    f"pay_from_pool({self.name(p)}, {amount})",
                    app.pay_from_pool,
                    self.table,
                    p,
                    amount,
                    "prize",
                )
            elif choice == "dealer" and self.family in PRIVATE:
                self.send(f"choose_dealer({self.name(p)})", app.choose_dealer, self.table, p)

    def deal_sale(self, dealer: str) -> None:
        app, rng = self.app, self.rng
        buyer = rng.choice([p for p in self.players if p != dealer] or [dealer])
        price = rng.choice([1, self.rules.max_stake, app.get_player(buyer).balance or 1])
        how = rng.choice(["offer", "admin"])
        if how == "admin":
            self.send(
                f"sell_deal({self.name(dealer)} -> {self.name(buyer)}, {price})",
                app.sell_deal,
                self.table,
                dealer,
                buyer,
                price,
            )
            return
        self.send(
            f"offer_deal({self.name(dealer)} -> {self.name(buyer)}, {price})",
            app.offer_deal,
            self.table,
            dealer,
            buyer,
            price,
        )
        if rng.random() < 0.2:
            self.send("withdraw_deal_offer", app.withdraw_deal_offer, self.table, actor=buyer)
        else:
            named = rng.choice([price, price, price + 1])
            self.send(
                f"accept_deal({self.name(buyer)}, {named})",
                app.accept_deal,
                self.table,
                buyer,
                named,
            )

    # -- a round ---------------------------------------------------------------------------

    def play_round(self) -> bool:
        """One round to its end; False when it could not be ended (the example stops)."""
        app, rng = self.app, self.rng
        self.between_rounds()
        table = app.get_table(self.table)
        rid = None
        for _ in range(2 * len(self.players) + 2):  # the ante (VU-27 a) may find each short
            starter = table.dealer if table.dealer and rng.random() < 0.5 else "admin"
            cut = rng.randint(0, 51) if starter == "admin" and rng.random() < 0.5 else None
            result = self.send(
                f"start_round(by {self.name(starter)}, cut {cut})",
                app.start_round,
                self.table,
                actor=starter,
                cut=cut,
                must=True,
            )
            if not isinstance(result, LedgerError):
                rid = result["round_id"]
                if self.stacked:  # the stacked shoe is the first round's
                    assert app.get_shoe(app.get_round(rid).shoe_id).fixed
                    self.stacked = False
                break
            if not isinstance(result, InsufficientFunds):
                return False
        if rid is None:
            return False
        for step in range(MAX_STEPS):
            rnd = app.get_round(rid)
            if rnd.ended:
                return True
            if step == MAX_STEPS // 2:  # stuck for money: everybody tops up generously
                for pid in self.players:
                    app.deposit(pid, 100 * self.rules.max_stake)
            self.step(rid, rnd, patient=step < PATIENCE)
        return False

    def step(self, rid: str, rnd: Round, patient: bool) -> None:
        command = self.wild(rid, rnd) if self.rng.random() < NOISE else None
        if command is None:
            command = self.sensible(rid, rnd, patient)
        label, method, args, kwargs = command
        self.send(label, method, *args, **kwargs)

    def act(self, rid: str, action: str, actor: str, **kwargs: Any) -> tuple:
        shown = ", ".join(f"{k}={v}" for k, v in kwargs.items() if v is not None)
        label = f"act({action}, by {self.name(actor)}{', ' if shown else ''}{shown})"
        return label, self.app.act, (rid, action), {"actor": actor, **kwargs}

    def stake(self, rid: str, player: str, amount: int) -> tuple:
        label = f"place_stake({self.name(player)}, {amount})"
        return label, self.app.place_stake, (rid, player, amount), {}

    def sensible(self, rid: str, rnd: Round, patient: bool) -> tuple:
        """A move the phase of the round calls for (most of them legal)."""
        rng, phase = self.rng, rnd.phase
        if phase in ("betting", "staking"):
            waiting = [h for h in rnd.order if rnd.hands[h]["stake"] == 0]
            player = rnd.hands[rng.choice(waiting)]["player"]
            return self.stake(rid, player, self.amount())
        if phase == "dealer_double":
            return self.act(rid, "dealer_double", rnd.dealer, called=rng.random() < 0.5)
        if phase == "insurance":
            waiting = [h for h in rnd.order if not rnd.hands[h].get("insurance_decided")]
            hand_id = rng.choice(waiting)
            hand = rnd.hands[hand_id]
            amount = rng.choice([0, hand["stake"] // 2, hand["stake"] // 2 + 1, 1])
            return self.act(rid, "insurance", hand["player"], hand=hand_id, amount=amount)
        if phase == "play":
            return self.player_move(rid, rnd, patient)
        if phase == "dealer":
            return self.dealer_move(rid, rnd, patient)
        raise AssertionError(f"no decision possible in phase {phase!r}")

    def player_move(self, rid: str, rnd: Round, patient: bool) -> tuple:
        rng, family = self.rng, self.family
        turn = rnd.current_turn()
        hand = rnd.hands[turn]
        owner = hand["player"]
        if hand.get("pending_two"):  # VU-23: he keeps both or rejects one
            if rng.random() < 0.5:
                return self.act(rid, "take", owner, hand=turn)
            return self.act(rid, "reject", owner, hand=turn, card=rng.choice(hand["pending_two"]))
        if not patient:
            return self.act(rid, "stand", owner, hand=turn)
        moves = ["hit", "hit", "hit", "stand", "stand"]
        cards = hand["cards"]
        if len(cards) == 2 and family != "ochko":
            pair = pip_value(cards[0]) == pip_value(cards[1]) or same_denomination(*cards)
            moves += ["split"] * (4 if pair else 1)
        if family == "casino":
            moves += ["double_down", "surrender"]
        if family == "ochko" and any(is_ace(c) for c in cards):
            moves += ["ace_value"] * 2
        if family == "vingt-un":
            moves += ["serve_two", "serve_out_of_order", "false_division", "throw_up"]
        move = rng.choice(moves)
        if move == "split":
            amount = self.amount() if family == "vingt-un" and rng.random() < 0.5 else None
            return self.act(rid, "split", owner, hand=turn, amount=amount)
        if move == "ace_value":
            aces = [i for i, c in enumerate(cards) if is_ace(c)]
            value = rng.choice([1, 11])
            return self.act(rid, "ace_value", owner, hand=turn, index=rng.choice(aces), value=value)
        if move == "serve_two":
            return self.act(rid, "serve_two", rnd.dealer, hand=turn)
        if move in ("serve_out_of_order", "throw_up", "false_division"):
            others = [h for h in rnd.order if rnd.hands[h]["status"] == OPEN] or [turn]
            target = rng.choice(others)
            actor = rnd.hands[target]["player"] if move == "throw_up" else rnd.dealer
            return self.act(rid, move, actor, hand=target)
        return self.act(rid, move, owner, hand=turn)

    def dealer_move(self, rid: str, rnd: Round, patient: bool) -> tuple:
        rng, family, dealer = self.rng, self.family, rnd.dealer
        if not patient:
            return self.act(rid, "dealer_stand", dealer)
        moves = ["dealer_draw", "dealer_draw", "dealer_draw", "dealer_stand"]
        in_turn = rnd.dealer_in_turn()
        cards = rnd.rules_hand(in_turn)["cards"]
        if family == "vingt-un":
            moves += ["serve_two"]
            if len(cards) == 2 and same_denomination(*cards):
                moves += ["dealer_split"] * 3
        if family == "ochko" and any(is_ace(c) for c in cards):
            moves += ["ace_value"] * 2
        move = rng.choice(moves)
        if move == "serve_two":
            return self.act(rid, "serve_two", dealer, hand=rng.choice([DEALER, in_turn]))
        if move == "ace_value":
            aces = [i for i, c in enumerate(cards) if is_ace(c)]
            return self.act(
                rid, "ace_value", dealer, index=rng.choice(aces), value=rng.choice([1, 11])
            )
        return self.act(rid, move, dealer)

    def wild(self, rid: str, rnd: Round) -> tuple | None:
        """Any command of the family's set, by anyone, on any hand: mostly refused."""
        rng, app = self.rng, self.app
        everyone = [*self.players, "admin"]
        hands = [*rnd.order, *rnd.dealer_hand_ids(), "h99"]
        kind = rng.choice(["act"] * 6 + ["stake", "start", "withdraw", "dealer", "sale"])
        if kind == "stake":
            return self.stake(rid, rng.choice(self.players), self.amount())
        if kind == "start":
            return "start_round (in a round)", app.start_round, (self.table,), {}
        if kind == "withdraw":
            p = rng.choice(self.players)
            amount = rng.choice([1, app.get_player(p).balance or 1])
            return f"withdraw({self.name(p)}, {amount})", app.withdraw, (p, amount), {}
        if kind == "dealer":
            if self.family not in PRIVATE:
                return None
            p = rng.choice(self.players)
            return f"choose_dealer({self.name(p)})", app.choose_dealer, (self.table, p), {}
        if kind == "sale":
            if self.family != "vingt-un":
                return None
            buyer = rng.choice(self.players)
            label = f"offer_deal(-> {self.name(buyer)})"
            return label, app.offer_deal, (self.table, rnd.dealer, buyer, 1), {}
        action = rng.choice(PLAYER_ACTIONS + DEALER_ACTIONS)
        actor = rng.choice([*everyone, rnd.dealer, rnd.dealer])
        hand = rng.choice(hands)
        kwargs: dict[str, Any] = {"hand": hand}
        if action in ("split", "insurance"):
            kwargs["amount"] = rng.choice([None, self.amount(), 0])
        if action == "ace_value":
            kwargs |= {"index": rng.randint(0, 3), "value": rng.choice([1, 11, 5])}
        if action == "dealer_double":
            kwargs["called"] = rng.choice([True, False])
        if action == "reject":
            held = rnd.hands[hand]["cards"] if hand in rnd.hands else []
            kwargs["card"] = rng.choice([*held, "AS"])
        if action in DEALER_ACTIONS and action not in ("serve_two",) and rng.random() < 0.7:
            kwargs.pop("hand")
        return self.act(rid, action, actor, **kwargs)


def play_example(family: str, seed: int) -> tuple[list[Difference], int]:
    """Play ``ROUNDS`` rounds at one table; the differences found, and the rounds ended."""
    table = Table(family, seed)
    try:
        for played in range(ROUNDS):
            if not table.play_round():
                return table.forks.differences, played
        return table.forks.differences, ROUNDS
    finally:
        table.forks.close()


# --- the cases the random play found, on fixed shoes ------------------------------------------

# Spare cards after a scenario's own, so that its shoe never runs out.
SPARE = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"]


def paid_exactly(app: TwentyOneLedger, command: Callable[[], Any]) -> Any:
    """Send ``command``; each time a wallet is short, deposit exactly what it lacks and send
    it again: the wallets it takes money from are left with nothing to spare, however much
    the ledger holds for a stake or a division."""
    for _ in range(5):
        try:
            return command()
        except InsufficientFunds as refusal:
            pid = PLAYER_ID.search(refusal.message).group(1)
            app.deposit(pid, refusal.details["needed"] - app.get_player(pid).balance)
    pytest.fail("still short of money after five deposits")


def vingt_un_dealer_with_nothing_to_spare(
    options: dict[str, Any], shoe: list[str], stake: int = 100
) -> tuple[Forks, str, str, str]:
    """A Vingt-un table with a pool: a dealer and one punter, whose wallets hold exactly what
    the ``stake`` takes (the punter's hold, the dealer's bank cover), no double; the shoe is
    ``shoe`` then ``SPARE``. Returns the forks, the round, the dealer and the punter."""
    forks = Forks(seed=0)
    app = forks.app
    forks.family, forks.options = "vingt-un", options
    forks.table = table = app.open_table("vingt-un", options)["table_id"]
    dealer, punter = (app.register_player(name)["player_id"] for name in ("Dealer", "Punter"))
    for seat, pid in enumerate((dealer, punter), start=1):
        app.seat_player(table, pid, seat)
    app.choose_dealer(table, dealer)
    app.fix_next_shoe(table, [*shoe, *SPARE])
    rid = paid_exactly(app, lambda: app.start_round(table, actor=dealer))["round_id"]
    paid_exactly(app, lambda: app.place_stake(rid, punter, stake))
    app.act(rid, "dealer_double", actor=dealer, called=False)
    return forks, rid, dealer, punter


def require_dealer_broke(forks: Forks, dealer: str) -> None:
    if forks.app.get_player(dealer).balance != 0:  # the scenario's premise, not its finding
        pytest.fail("the scenario should leave the dealer nothing beyond what the ledger holds")


@pytest.mark.parametrize(
    ("command", "stake"),
    [
        ({"action": "dealer_draw"}, 100),
        ({"action": "serve_two", "hand": DEALER}, 100),
        # His cover (4 x 10) released first would not pay the penalty of 50 either: a fix must
        # decide without the card, not only pay from the cover.
        ({"action": "dealer_draw"}, 10),
    ],
    ids=["dealer_draw", "serve_two", "cover_short_of_the_penalty"],
)
def test_a_vingt_un_dealer_s_refused_draw_does_not_tell_him_it_over_draws(command, stake):
    """The punter stands on 9 10; the dealer holds 10 6 and his wallet is empty, all of it
    held for the round (VU-27 b: 50 to the pool if he over-draws). The next card is a king. His
    draw (or the two cards he gives himself at once, VU-23) must be answered as it would be
    were it a two."""
    options = {"min_stake": 10, "max_stake": 100, "pool_dealer_overdraw": 50}
    shoe = ["9S", "TC", "TH", "6D", "KS", "2C"]  # punter, dealer; punter, dealer; draws
    forks, rid, dealer, punter = vingt_un_dealer_with_nothing_to_spare(options, shoe, stake)
    try:
        forks.app.act(rid, "stand", actor=punter, hand="h1")
        require_dealer_broke(forks, dealer)
        label = f"act({', '.join(map(str, command.values()))}, by Dealer)"
        forks.send(label, forks.app.act, rid, actor=dealer, **command)
        assert not forks.differences, report(forks.differences)
    finally:
        forks.close()


def test_a_vingt_un_dealer_s_refused_draw_on_a_divided_hand_does_not_tell_him_it_over_draws():
    """The punter stands on 8 10 (18). The dealer divides his 8 8 (VU-21) and stands on 8 10
    (18: a tie he receives on, a third of which is the pool's, VU-27 c); his other hand is
    8 7 and his wallet is empty, all of it held for the round. The next card is a king: it
    over-draws that last hand, which settles the round and takes the share. His draw must be
    answered as it would be were it a two."""
    options = {"min_stake": 100, "max_stake": 100, "pool_tie_share": "1/3"}
    shoe = ["8S", "8C", "TH", "8D", "TD", "7H", "KS", "2C"]
    forks, rid, dealer, punter = vingt_un_dealer_with_nothing_to_spare(options, shoe)
    try:
        app = forks.app
        app.act(rid, "stand", actor=punter, hand="h1")
        paid_exactly(app, lambda: app.act(rid, "dealer_split", actor=dealer))
        app.act(rid, "dealer_stand", actor=dealer)
        require_dealer_broke(forks, dealer)
        forks.send(
            "act(dealer_draw, by Dealer, on dealer2)", app.act, rid, "dealer_draw", actor=dealer
        )
        assert not forks.differences, report(forks.differences)
    finally:
        forks.close()


def report(differences: list[Difference]) -> str:
    distinct: dict[tuple, Difference] = {}
    for difference in differences:
        distinct.setdefault(difference.key, difference)
    head = f"{len(differences)} command(s) answered by the undealt cards, {len(distinct)} kind(s)"
    return head + ":\n" + "\n".join(d.text() for d in distinct.values())


@pytest.mark.parametrize("family", FAMILIES)
def test_refusals_are_blind_to_the_undealt_cards(family):
    """Seeded random play at ``EXAMPLES`` tables of the family: every command answered alike
    whatever the undealt cards."""
    differences, ended = [], 0
    for n in range(EXAMPLES):
        found, rounds = play_example(family, seed=1000 * FAMILIES.index(family) + n)
        differences += found
        ended += rounds
    assert ended >= 0.9 * EXAMPLES * ROUNDS, f"only {ended} rounds played to their end"
    assert not differences, report(differences)
