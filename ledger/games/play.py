"""The context of one command on a round, and the primitive moves every family shares:
dealing a card, holding a stake, paying a settled hand."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

from ledger import accounts
from ledger.cards import is_natural
from ledger.domain.hands import DEALER, OUTCOMES
from ledger.domain.round import Round
from ledger.games.bookkeeping import Books
from ledger.rules import RuleSet


class CardSource(Protocol):
    """Where cards come from: the application's shoe service (the domain never sees seeds)."""

    def next_card(self, rnd: Round) -> tuple[str, Any, int]:
        """Return (card, shoe id, shoe index) for the next card of the round's shoe."""


def settled_net(rules: Any, stake: int, multiplier: Fraction | int) -> tuple[int, str]:
    """A hand's net in whole minor units at ``multiplier`` (the player's net per unit
    staked), rounded by the table's rule, and the rounding as ``HandSettled`` records it
    ("none", or "down: 3003/2 -> 1501"). A fraction of a win is rounded as it is; of a loss
    (half a surrendered bet), what comes back to the player is: ``down`` keeps the odd unit
    with the house either way."""
    raw = stake * multiplier
    if raw >= 0:
        net = rules.round_payout(raw)
    else:
        net = rules.round_payout(stake + raw) - stake
    rounding = "none" if raw.denominator == 1 else f"{rules.rounding}: {raw} -> {net}"
    return net, rounding


@dataclass
class Play:
    rnd: Round
    rules: RuleSet
    cards: CardSource
    books: Books
    actor: str

    def __post_init__(self) -> None:
        if self.books.asker is None:  # refusals speak to whoever gave the command
            self.books.asker = self.actor

    @property
    def family(self) -> str:
        return self.rules.family

    @property
    def banker_account(self) -> str:
        if self.rules.house_banked:
            return accounts.house(self.rnd.table_id)
        return accounts.player(self.rnd.dealer)

    @property
    def escrow(self) -> str:
        return accounts.escrow(self.rnd.id)

    # -- cards ---------------------------------------------------------------------------

    def deal(
        self, hand_id: str, *, face_up: bool, drawn: bool, clause: str, asked: bool = False
    ) -> str:
        """Deal the next card to ``hand_id``. Its ``actor`` is the round's dealer ("house" in
        the casino), who deals every card; only a card a player asked for himself (``asked``:
        a hit, a double down, the cards of his division) names the player who asked. The
        command that set a deal going (the last stake, a stand before the house plays) is not
        who dealt: the audit would say a player dealt the hole card."""
        card, shoe, index = self.cards.next_card(self.rnd)
        self.rnd.trigger_event(
            Round.CardDealt,
            hand=hand_id,
            card=card,
            shoe=shoe,
            shoe_index=index,
            face_up=face_up,
            drawn=drawn,
            clause=clause,
            actor=self.actor if asked else self.rnd.dealer,
        )
        return card

    def is_natural(self, hand_id: str) -> bool:
        hand = self.rnd.rules_hand(hand_id)
        return is_natural(hand["cards"]) and not hand.get("split_from")

    # -- money ---------------------------------------------------------------------------

    def hold_for(self, stake: int, others: int = 0, *, split: bool = False) -> int:
        """What a stake moves into escrow: the book's worst case unless the table gives credit
        (``others``: the other first hands of the round, for a first hand's stake; ``split``:
        a split hand's stake)."""
        if self.rules.credit:
            return stake
        if split and self.rules.split_exposure is not None:
            return stake * self.rules.split_exposure
        return stake * self.rules.hold_multiple(others)

    def cover_bank(
        self, stake: int, clause: str, *, split: bool = False, exposure: int | None = None
    ) -> None:
        """A player-banker puts up what the stake could cost him (no-credit tables):
        ``exposure`` times it when the book knows that much (VU-21: what one more dealer
        hand can pay), else its worst case at staking."""
        if self.rules.house_banked or self.rules.credit:
            return
        multiple = self.rules.split_exposure if split else exposure
        need = stake * (self.rules.banker_exposure if multiple is None else multiple)
        self.books.transfer(self.banker_account, self.escrow, need, clause, "bank cover held")
        self.rnd.trigger_event(Round.BankCovered, amount=need, clause=clause)

    def pay_hand(
        self,
        hand_id: str,
        multiplier: Fraction | int,
        outcome: str,
        clauses: list[str],
        dealer_total: int | None = None,
        counterparty: str | None = None,
        dealer_totals: dict[str, int] | None = None,
    ) -> int:
        """Settle one hand: release its hold, move the net between player and banker
        (``dealer_totals``: each dealer hand's total, when he holds more than one)."""
        if outcome not in OUTCOMES:  # a new outcome is named in OUTCOMES first (the API lists them)
            raise ValueError(f"no settlement outcome is named {outcome!r}")
        hand = self.rnd.hands[hand_id]
        stake, held = hand["stake"], hand["held"]
        if type(multiplier) is not int:  # an int (most results) is exact, and far quicker
            multiplier = Fraction(multiplier)  # than a Fraction; both write the same text
        banker = counterparty or self.banker_account
        net, rounding = settled_net(self.rules, stake, multiplier)
        player = accounts.player(hand["player"])
        clause = clauses[0]
        memo = f"hand {hand_id} {outcome}"
        from_cover = min(net, self.rnd.bank_held) if net >= 0 else 0
        for payer, payee, amount, how in settlement_legs(
            held, net, from_cover, self.escrow, player, banker
        ):
            self.books.transfer(payer, payee, amount, clause, f"{memo}: {how}")
        self.rnd.trigger_event(
            Round.HandSettled,
            hand=hand_id,
            player=hand["player"],
            outcome=outcome,
            stake=stake,
            multiplier=str(multiplier),
            amount=net,
            rounding=rounding,
            player_total=self.rnd.total(hand_id),
            dealer_total=dealer_total,
            clauses=clauses,
            from_bank_cover=from_cover,
            dealer_totals=dealer_totals,
        )
        return net

    def hold_cover(self, amount: int, clause: str, memo: str) -> None:
        """The banker puts ``amount`` into his cover for a payment the book may make him
        owe other than to a stake (VU-27 b), on a table without credit."""
        if amount and not (self.rules.house_banked or self.rules.credit):
            self.books.transfer(self.banker_account, self.escrow, amount, clause, memo)
            self.rnd.trigger_event(Round.BankCovered, amount=amount, clause=clause)

    def release_bank_cover(
        self, clause: str, amount: int | None = None, memo: str = "bank cover released"
    ) -> None:
        """Give the banker back ``amount`` of his cover (all that is left by default)."""
        left = self.rnd.bank_held if amount is None else min(amount, self.rnd.bank_held)
        if left > 0:
            self.books.transfer(self.escrow, self.banker_account, left, clause, memo)
            self.rnd.trigger_event(Round.BankCovered, amount=-left, clause=clause)

    def release_beyond(self, multiple: int, hold_clause: str, cover_clause: str) -> None:
        """Once a book has settled its naturals at the deal, an open hand can lose or win at
        most ``multiple`` times its stake: the rest of each open hand's hold goes back to its
        holder, and the banker's cover beyond that for the open stakes back to him (no-credit
        tables; a hold is released as paid to the holder of its own hand)."""
        rnd = self.rnd
        live = rnd.live_hands()
        if self.rules.credit or not live:
            return
        for hand in live:
            extra = hand["held"] - hand["stake"] * multiple
            if extra > 0:
                memo = f"hold of {hand['id']} beyond {multiple}x its stake released"
                player = accounts.player(hand["player"])
                self.books.transfer(self.escrow, player, extra, hold_clause, memo)
                rnd.trigger_event(
                    Round.HoldAdjusted,
                    hand=hand["id"],
                    amount=-extra,
                    clause=hold_clause,
                    memo=memo,
                    to_hand=hand["id"],
                )
        if self.rules.house_banked:
            return
        extra = rnd.bank_held - sum(hand["stake"] for hand in live) * multiple
        if extra > 0:
            memo = f"bank cover beyond {multiple}x the open stakes released"
            self.books.transfer(self.escrow, self.banker_account, extra, cover_clause, memo)
            rnd.trigger_event(Round.BankCovered, amount=-extra, clause=cover_clause)

    def dealer_total(self) -> int:
        return self.rnd.total(DEALER)


def settlement_legs(
    held: int, net: int, from_cover: int, escrow: str, player: str, banker: str
) -> list[tuple[str, str, int, str]]:
    """The transfers (payer, payee, amount, what) that settle one hand: its hold released,
    and its net between player and banker (a win first from the bank's cover in escrow, a
    loss first from the hold). Shared with ``replay verify``, which holds the transfers
    recorded to what each ``HandSettled`` says."""
    if net >= 0:
        return [
            (escrow, player, held, "stake released"),
            (escrow, player, from_cover, "won, from bank cover"),
            (banker, player, net - from_cover, "won"),
        ]
    taken = min(-net, held)
    return [
        (escrow, banker, taken, "stake lost"),
        (escrow, player, held - taken, "hold released"),
        (player, banker, -net - taken, "lost beyond the hold"),
    ]
