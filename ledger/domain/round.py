"""One round at a table: every stake, card, decision and settlement of one deal, as events.

The round's state is plain dicts and lists so that it reads the same in a debugger, a
snapshot and an audit. The rules of play live in ``ledger.games``; this module only
records facts and folds them into state."""

from __future__ import annotations

from typing import Any, Self
from uuid import UUID

from ledger import accounts
from ledger.cards import hand_total, totals_with_aces
from ledger.domain.acted_for import ActedForBase
from ledger.domain.chain import ChainedAggregate
from ledger.domain.hands import (
    BUST,
    DEALER,
    DEALER_SECOND,
    ENDED,
    NATURAL,
    OPEN,
    SETTLED,
    STARTED,
    STOOD,
    is_dealer_hand,
    new_dealer_hand,
    new_hand,
)
from ledger.domain.transfers import FundsTransferredBase
from ledger.errors import UnknownHand
from ledger.rules import recorded_option


class Round(ChainedAggregate):
    class Started(ChainedAggregate.Created):
        table_id: UUID
        number: int
        rules: dict[str, Any]
        dealer: str  # a player id, or "house" in the casino
        seats: list[list[Any]]  # [[seat, player id], ...] in the order of play
        pone: str
        shoe_id: UUID
        shoe_next: int
        actor: str
        clause: str
        # Which round of its deal this is (VU-29..31: a dealer's spell, from his choosing or
        # the deal passing to him; a sale does not start one): 1 for the deal's first, the
        # round a Vingt-un table with ``ante_each`` "deal" takes the ante in (VU-27 a). 0 on
        # rounds recorded before the ledger counted them, which all took the ante.
        round_of_deal: int = 0

        def apply(self, rnd: Round) -> None:
            rnd.table_id = self.table_id
            rnd.round_of_deal = self.round_of_deal
            rnd.number = self.number
            rnd.rules_record = self.rules
            rnd.dealer = self.dealer
            rnd.pone = self.pone
            rnd.seats = [list(s) for s in self.seats]
            rnd.shoe_id = self.shoe_id
            rnd.shoe_next = self.shoe_next
            rnd.start_shoe = self.shoe_id
            rnd.phase = STARTED
            rnd.hands = {}
            rnd.order = []
            rnd.dealer_hand = new_dealer_hand()
            rnd.dealer_doubled = False
            # The hands the dealer divided off his first (VU-21), by id ("dealer2" ...), and
            # all his hands in the order he plays them.
            rnd.dealer_divided = {}
            rnd.dealer_order = [DEALER]
            rnd.out_of_order_served = []
            # What each hand the dealer passed over (VU-24) had drawn when he did, by hand id.
            rnd.missed_at_draws = {}
            rnd.bank_held = 0  # the banker's cover held in escrow (no-credit tables)
            rnd.passes_deal = None  # clause that passes the deal, once one does
            rnd.ended = False

    class ActedFor(ActedForBase):
        pass

    class PhaseEntered(ChainedAggregate.Event):
        phase: str
        clause: str

        def apply(self, rnd: Round) -> None:
            rnd.phase = self.phase

    class HandOpened(ChainedAggregate.Event):
        hand: str
        player: str
        seat: int

        def apply(self, rnd: Round) -> None:
            rnd.hands[self.hand] = new_hand(self.hand, self.player, self.seat)
            rnd.order.append(self.hand)

    class StakePlaced(ChainedAggregate.Event):
        hand: str
        player: str
        seat: int
        amount: int
        held: int  # moved from the wallet into escrow with this stake
        clause: str
        actor: str

        def apply(self, rnd: Round) -> None:
            hand = rnd.hands[self.hand]
            hand["stake"] += self.amount
            hand["held"] += self.held

    class StakeRaised(ChainedAggregate.Event):
        hand: str
        amount: int
        held: int
        reason: str
        clause: str
        actor: str

        def apply(self, rnd: Round) -> None:
            hand = rnd.hands[self.hand]
            hand["stake"] += self.amount
            hand["held"] += self.held
            if self.reason == "double_down":
                hand["doubled"] = True

    class DealerDoubleCalled(ChainedAggregate.Event):
        called: bool
        clause: str
        actor: str

        def apply(self, rnd: Round) -> None:
            rnd.dealer_doubled = self.called

    class CardDealt(ChainedAggregate.Event):
        hand: str
        card: str
        shoe: UUID
        shoe_index: int
        face_up: bool
        drawn: bool
        clause: str
        actor: str

        def apply(self, rnd: Round) -> None:
            target = rnd.rules_hand(self.hand)
            target["cards"].append(self.card)
            target["face_up"].append(self.face_up)
            if self.drawn:
                target["draws"] += 1
            rnd.shoe_id = self.shoe
            rnd.shoe_next = self.shoe_index + 1

    class CardBurned(ChainedAggregate.Event):
        card: str
        shoe: UUID
        shoe_index: int
        clause: str

        def apply(self, rnd: Round) -> None:
            rnd.shoe_id = self.shoe
            rnd.shoe_next = self.shoe_index + 1

    class ShoeReplaced(ChainedAggregate.Event):
        shoe: UUID
        shoe_next: int
        clause: str

        def apply(self, rnd: Round) -> None:
            rnd.shoe_id = self.shoe
            rnd.shoe_next = self.shoe_next

    class CardsShown(ChainedAggregate.Event):
        hand: str
        clause: str

        def apply(self, rnd: Round) -> None:
            target = rnd.rules_hand(self.hand)
            target["face_up"] = [True] * len(target["cards"])

    class NaturalDeclared(ChainedAggregate.Event):
        hand: str
        clause: str

        def apply(self, rnd: Round) -> None:
            if self.hand == DEALER:
                rnd.dealer_hand["natural"] = True
                rnd.dealer_hand["status"] = NATURAL
            else:
                rnd.hands[self.hand]["status"] = NATURAL

    class HandStood(ChainedAggregate.Event):
        hand: str
        total: int
        clause: str
        actor: str

        def apply(self, rnd: Round) -> None:
            target = rnd.rules_hand(self.hand)
            target["status"] = STOOD

    class HandOverdrawn(ChainedAggregate.Event):
        hand: str
        total: int
        clause: str

        def apply(self, rnd: Round) -> None:
            target = rnd.rules_hand(self.hand)
            target["status"] = BUST

    class DealerDivided(ChainedAggregate.Event):
        """``card`` moves from the dealer's ``hand`` to his ``new_hand``, played next after
        it (VU-21). Recorded before re-dividing was possible, an event has neither field and
        reads with these defaults: the first hand divided into the second."""

        card: str
        clause: str
        actor: str
        hand: str = DEALER
        new_hand: str = DEALER_SECOND

        def apply(self, rnd: Round) -> None:
            divided = rnd.rules_hand(self.hand)
            divided["cards"].pop()
            divided["face_up"].pop()
            rnd.dealer_divided[self.new_hand] = new_dealer_hand([self.card])
            rnd.dealer_order.insert(rnd.dealer_order.index(self.hand) + 1, self.new_hand)

    class HandSplit(ChainedAggregate.Event):
        hand: str
        new_hand: str
        card: str
        clause: str
        actor: str

        def apply(self, rnd: Round) -> None:
            hand = rnd.hands[self.hand]
            hand["cards"].pop()
            hand["face_up"].pop()
            root = hand["split_from"] or self.hand  # every divided hand names the original
            new = new_hand(self.new_hand, hand["player"], hand["seat"], split_from=root)
            new["cards"].append(self.card)
            new["face_up"].append(True)
            rnd.hands[self.new_hand] = new
            rnd.order.insert(rnd.order.index(self.hand) + 1, self.new_hand)
            hand["split_from"] = hand["split_from"] or self.hand

    class AceValueChosen(ChainedAggregate.Event):
        hand: str
        index: int
        value: int
        clause: str
        actor: str

        def apply(self, rnd: Round) -> None:
            target = rnd.rules_hand(self.hand)
            target["aces"][str(self.index)] = self.value

    class InsuranceDecided(ChainedAggregate.Event):
        hand: str
        amount: int
        clause: str
        actor: str

        def apply(self, rnd: Round) -> None:
            rnd.hands[self.hand]["insurance"] = self.amount
            rnd.hands[self.hand]["insurance_decided"] = True

    class Surrendered(ChainedAggregate.Event):
        hand: str
        clause: str
        actor: str

        def apply(self, rnd: Round) -> None:
            rnd.hands[self.hand]["surrendered"] = True
            rnd.hands[self.hand]["status"] = STOOD

    class IrregularityRecorded(ChainedAggregate.Event):
        kind: str
        offender: str
        hand: str
        clause: str
        actor: str
        note: str

        def apply(self, rnd: Round) -> None:
            if self.kind == "two_cards" and not is_dealer_hand(self.hand):
                rnd.hands[self.hand]["pending_two"] = rnd.hands[self.hand]["cards"][-2:]
            if self.kind == "out_of_order":
                rnd.out_of_order_served.append(self.hand)
                for hand_id in rnd.order[: rnd.order.index(self.hand)]:
                    rnd.missed_at_draws.setdefault(hand_id, rnd.hands[hand_id]["draws"])

    class TwoCardsResolved(ChainedAggregate.Event):
        hand: str
        rejected: str  # "" when the player keeps both (VU-23)
        clause: str
        actor: str

        def apply(self, rnd: Round) -> None:
            hand = rnd.hands[self.hand]
            hand["pending_two"] = None
            if self.rejected:
                i = len(hand["cards"]) - 1 - hand["cards"][::-1].index(self.rejected)
                del hand["cards"][i]
                del hand["face_up"][i]
                hand["content"] = True

    class HandSettled(ChainedAggregate.Event):
        hand: str
        player: str
        outcome: str
        stake: int
        multiplier: str  # the player's net per unit staked, as a fraction ("3/2", "-2")
        amount: int  # the player's net result in minor units (negative: he paid)
        rounding: str
        player_total: int | None
        dealer_total: int | None
        clauses: list[str]
        from_bank_cover: int
        # After the dealer divides (VU-21) the hand is settled against each of his hands:
        # every one's total by hand (``dealer_total`` is his first's; a map, so JSON may sort
        # it: the round's dealer order says how he played them). None when he holds one hand,
        # and on events recorded before.
        dealer_totals: dict[str, int] | None = None

        def apply(self, rnd: Round) -> None:
            rnd.bank_held -= self.from_bank_cover
            hand = rnd.hands[self.hand]
            hand["result"] = self.amount
            hand["outcome"] = self.outcome
            hand["settled"] = True
            hand["held"] = 0
            # A hand settled before it stood, went over or showed a natural (the dealer's
            # natural, a hand thrown up, VU-24, a false division, VU-25) is done all the same.
            # Derived here, not recorded, so rounds stored before read the same way.
            if hand["status"] == OPEN:
                hand["status"] = SETTLED

    class FundsTransferred(FundsTransferredBase):
        def apply(self, rnd: Round) -> None:
            # Escrow moves are tracked per hand (``held``) and by the bank cover, because
            # most of them are recorded in wallet streams, not here.
            pass

    class HoldAdjusted(ChainedAggregate.Event):
        """The hold of ``hand`` grows (``amount`` > 0: the dealer divides, VU-21; on credit,
        from the wallet, by what a VU-10 collection takes beyond it) or pays ``-amount`` out to the
        holder of ``to_hand`` (a side payment between players, VU-10; to the hand's own
        holder when ``to_hand`` is ``hand``: a release, once Hoyle's naturals are settled,
        H13-5). Recorded before ``to_hand`` existed, an event reads with "" (its memo names
        the hand)."""

        hand: str
        amount: int
        clause: str
        memo: str
        to_hand: str = ""

        def apply(self, rnd: Round) -> None:
            rnd.hands[self.hand]["held"] += self.amount

    class InsuranceSettled(ChainedAggregate.Event):
        hand: str
        amount: int  # the player's net on the side bet
        clause: str

        def apply(self, rnd: Round) -> None:
            rnd.hands[self.hand]["insurance_result"] = self.amount

    class BankCovered(ChainedAggregate.Event):
        amount: int
        clause: str

        def apply(self, rnd: Round) -> None:
            rnd.bank_held += self.amount

    class Ended(ChainedAggregate.Event):
        passes_deal: bool
        clause: str

        def apply(self, rnd: Round) -> None:
            rnd.ended = True
            rnd.phase = ENDED
            rnd.passes_deal = self.clause if self.passes_deal else None
            # A dealer's hand the round was settled without (every player over 21 or
            # surrendered, CB-7) may draw no more: it reads settled, as a player's hand paid
            # before it stood does. Derived, not recorded, so rounds stored before read so.
            for hand_id in rnd.dealer_order:
                hand = rnd.rules_hand(hand_id)
                if hand["status"] == OPEN:
                    hand["status"] = SETTLED

    # -- construction and queries -------------------------------------------------------

    @classmethod
    def start(cls, **kwargs: Any) -> Self:
        return cls._create(cls.Started, **kwargs)

    @property
    def account(self) -> str:
        return accounts.escrow(self.id)

    @property
    def family(self) -> str:
        return self.rules_record["family"]

    def hand(self, hand_id: str) -> dict:
        try:
            return self.rules_hand(hand_id)
        except KeyError:
            raise UnknownHand(f"round {self.id} has no hand {hand_id!r}", None) from None

    def rules_hand(self, hand_id: str) -> dict:
        if hand_id == DEALER:
            return self.dealer_hand
        if hand_id in self.dealer_divided:
            return self.dealer_divided[hand_id]
        return self.hands[hand_id]

    @property
    def dealer_second(self) -> dict | None:
        """The dealer's second hand, once he has divided his pair (VU-21)."""
        return self.dealer_divided.get(DEALER_SECOND)

    def dealer_in_turn(self) -> str:
        """The dealer's hand he is playing: the first of his hands, in the order he plays
        them, that is still open (VU-21); his last when all are done."""
        for hand_id in self.dealer_order:
            if self.rules_hand(hand_id)["status"] == OPEN:
                return hand_id
        return self.dealer_order[-1]

    def dealer_hands_open(self) -> list[str]:
        """The dealer's hands still to be played, in order."""
        return [h for h in self.dealer_order if self.rules_hand(h)["status"] == OPEN]

    def dealer_hand_ids(self) -> list[str]:
        """Every hand of the dealer's, in the order he plays them."""
        return list(self.dealer_order)

    def total(self, hand_id: str) -> int:
        hand = self.rules_hand(hand_id)
        if hand["aces"]:
            return totals_with_aces(
                hand["cards"],
                {int(k): v for k, v in hand["aces"].items()},
                binding=recorded_option(self.rules_record, "ace_value_binds"),
            )
        return hand_total(hand["cards"])

    def hands_of(self, player_id: str) -> list[dict]:
        return [self.hands[h] for h in self.order if self.hands[h]["player"] == player_id]

    def current_turn(self) -> str | None:
        """The first hand still to play, in the order of play; None when all are done."""
        for hand_id in self.order:
            if self.hands[hand_id]["status"] == OPEN and not self.hands[hand_id].get("settled"):
                return hand_id
        return None

    def live_hands(self) -> list[dict]:
        """Hands still waiting for the final settlement."""
        return [self.hands[h] for h in self.order if not self.hands[h].get("settled")]
