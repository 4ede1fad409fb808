"""The money a round's own events say moved: every transfer, as (payer, payee, amount, clause).

A round's stream records each fact that moves money, with the amount or enough to recompute it:
a stake held (``StakePlaced``: stakes and splits; ``StakeRaised``: doubles), the bank's cover
held and released (``BankCovered``), a hold grown by the dealer's division (VU-21), paid to
another player's hand (VU-10) or released to its holder (H13-5: ``HoldAdjusted``), insurance
taken and settled, each hand's settlement (``HandSettled``: its net, what came from the bank's
cover; a surrender's refund is its net too), a Vingt-un ante for each hand opened in a round
that takes one (every round, or a deal's first: VU-27 a, ``Round.Started.round_of_deal``), a
penalty (VU-26) and, once the dealer has played, what he pays the pool for each hand he over-
drew and out of his receipts on ties (VU-27 b, c). The transfers themselves are recorded
elsewhere, mostly in the wallets' streams and the table's, which one edit can rewrite whole,
hash chain and all; ``replay.verify_money`` holds them to what is derived here.

The legs of a settlement, of insurance and of the pool's share come from the same functions
the game plays them with (``ledger.games.play.settlement_legs``, ``casino.insurance_legs``,
``dealer_penalties.overdrawn_dealer_hands``, ``vingt_un.tie_receipts``, ``tie_share``): one
rule, not two."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ledger import accounts
from ledger.domain.round import Round
from ledger.games import casino, dealer_penalties, vingt_un
from ledger.games.play import settled_net, settlement_legs
from ledger.rules import RuleSet
from replay.checked_reads import fold
from replay.side_payments import released, side_payment

Leg = tuple[str, str, int, str]  # payer, payee, amount (> 0), clause
ANTE_CLAUSE = POOL_CLAUSE = "VU-27"
PENALTY_CLAUSE = "VU-26"


def settlement_problem(e: Any, rules: RuleSet) -> str | None:
    """What is wrong with a ``HandSettled``'s own arithmetic, or None: its amount and
    rounding must be its stake times its multiplier, rounded by the table's recorded rule,
    as the game computes them (``ledger.games.play.settled_net``). Else a settlement reading
    "1001 × 3/2, rounded down" could pay 2002, its transfers rewritten to match."""
    try:
        multiplier = Fraction(e.multiplier)
    except (TypeError, ValueError, ZeroDivisionError):
        return f"hand {e.hand}'s multiplier {e.multiplier!r} is not a fraction"
    net, rounding = settled_net(rules, e.stake, multiplier)
    if (e.amount, e.rounding) == (net, rounding):
        return None
    return (
        f"hand {e.hand} was settled {e.amount} ({e.rounding}), but its stake {e.stake} "
        f"× {e.multiplier}, rounded {rules.rounding} as its table's rules say, is {net} "
        f"({rounding})"
    )


class RoundMoney:
    """One round's events folded in order; ``legs(event)`` is what the event says moved, and
    ``faults`` the settlements that do not add up by themselves."""

    def __init__(self, started: Any, rules: RuleSet) -> None:
        self.rules = rules
        table = started.table_id
        self.escrow = accounts.escrow(started.originator_id)
        self.pool = accounts.pool(table)
        self.banker = (
            accounts.house(table) if started.dealer == "house" else accounts.player(started.dealer)
        )
        self.round = fold([started])
        # The hands settled once the dealer had played: those his ties are counted on.
        self.settled_at_the_end: list[str] = []
        # Settlements whose own arithmetic is wrong (``settlement_problem``), as folded.
        self.faults: list[str] = []

    def legs(self, event: Any) -> list[Leg]:
        """The transfers ``event`` says were made (read before it is folded in: a
        settlement releases the hold the hand had)."""
        derive = _LEGS.get(type(event))
        if derive is None:  # most events (cards, decisions) move no money
            event.apply(self.round)
            return []
        legs = derive(self, event)
        # Its state only (not ``mutate``, which holds versions: the chain check names a gap).
        event.apply(self.round)
        # As ``Books.transfer`` skips them: nothing moves.
        return [leg for leg in legs if leg[2] and leg[0] != leg[1]]

    def owner(self, hand: str) -> str:
        return accounts.player(self.round.hands[hand]["player"])

    # -- one kind of event each ------------------------------------------------------------

    def hand_opened(self, e: Any) -> list[Leg]:
        # The round of its deal is the Started event's own fact, not the table's count.
        due = getattr(self.rules, "ante_due", None)
        ante = due(self.round.round_of_deal) if due else 0
        return [(accounts.player(e.player), self.pool, ante, ANTE_CLAUSE)] if ante else []

    def stake_placed(self, e: Any) -> list[Leg]:
        return [(accounts.player(e.player), self.escrow, e.held, e.clause)]

    def stake_raised(self, e: Any) -> list[Leg]:
        return [(self.owner(e.hand), self.escrow, e.held, e.clause)]

    def bank_covered(self, e: Any) -> list[Leg]:
        if e.amount >= 0:
            return [(self.banker, self.escrow, e.amount, e.clause)]
        return [(self.escrow, self.banker, -e.amount, e.clause)]

    def hold_adjusted(self, e: Any) -> list[Leg]:
        if released(e):  # back to its own holder (H13-5)
            return [(self.escrow, self.owner(e.hand), -e.amount, e.clause)]
        paid = side_payment(e)
        if paid is None:  # the hold grew (VU-21)
            return [(self.owner(e.hand), self.escrow, e.amount, e.clause)]
        payee = self.owner(paid.payee) if paid.payee else "player:(not recorded)"
        return [(self.escrow, payee, paid.amount, e.clause)]

    def insurance_decided(self, e: Any) -> list[Leg]:
        return [(self.owner(e.hand), self.escrow, e.amount, e.clause)]

    def insurance_settled(self, e: Any) -> list[Leg]:
        bet, player = self.round.hands[e.hand]["insurance"], self.owner(e.hand)
        legs = casino.insurance_legs(bet, e.amount > 0, self.escrow, player, self.banker)
        return [(payer, payee, amount, e.clause) for payer, payee, amount, _ in legs]

    def hand_settled(self, e: Any) -> list[Leg]:
        problem = settlement_problem(e, self.rules)
        if problem is not None:
            self.faults.append(problem)
        hand = self.round.hands[e.hand]
        if self.round.phase == "dealer":  # settled against the dealer's final hands
            self.settled_at_the_end.append(e.hand)
        legs = settlement_legs(
            hand["held"],
            e.amount,
            e.from_bank_cover,
            self.escrow,
            accounts.player(hand["player"]),
            self.banker,
        )
        return [(payer, payee, amount, e.clauses[0]) for payer, payee, amount, _ in legs]

    def irregularity(self, e: Any) -> list[Leg]:
        penalty = getattr(self.rules, "penalty_amount", 0)
        if not (penalty and e.offender):
            return []
        return [(accounts.player(e.offender), self.pool, penalty, PENALTY_CLAUSE)]

    def ended(self, e: Any) -> list[Leg]:
        """What the dealer paid the pool when he settled (VU-27 b, c): nothing where no
        pool is kept, or where the round ended before he played."""
        if self.rules.family != "vingt-un":
            return []
        rnd, rules = self.round, self.rules
        legs = [
            (self.banker, self.pool, rules.pool_dealer_overdraw, POOL_CLAUSE)
            for _ in dealer_penalties.overdrawn_dealer_hands(rnd)
        ]
        receipts = vingt_un.tie_receipts(rnd, self.settled_at_the_end)
        share, _ = vingt_un.tie_share(rules, receipts)
        return [*legs, (self.banker, self.pool, share, POOL_CLAUSE)]


_LEGS: dict[type, Callable[[RoundMoney, Any], list[Leg]]] = {
    Round.HandOpened: RoundMoney.hand_opened,
    Round.StakePlaced: RoundMoney.stake_placed,
    Round.StakeRaised: RoundMoney.stake_raised,
    Round.BankCovered: RoundMoney.bank_covered,
    Round.HoldAdjusted: RoundMoney.hold_adjusted,
    Round.InsuranceDecided: RoundMoney.insurance_decided,
    Round.InsuranceSettled: RoundMoney.insurance_settled,
    Round.HandSettled: RoundMoney.hand_settled,
    Round.IrregularityRecorded: RoundMoney.irregularity,
    Round.Ended: RoundMoney.ended,
}
