"""The decision each recorded event of a round stands for (``replay.rederive``): a stake, a
hit, a stand, a split, a double, an insurance, a surrender, an ace's value, the dealer's
double, draws, stands and division, the Vingt-un irregularities, issued again as that command
at the stand-in table. Every other event must follow by itself."""

from __future__ import annotations

from typing import Any

from ledger.domain.hands import DEALER, DEALER_HANDS
from ledger.domain.round import Round

Command = tuple[str, dict[str, Any]]


def command_for(
    recorded: list[Any], j: int, rnd: Any, dealer: str, ids: dict[str, str], family: str
) -> Command | None:
    """The command (name, arguments) that produced ``recorded[j]`` in the stand-in round
    ``rnd`` as it stands; ``dealer`` acts for the dealer, ``ids`` maps the record's players
    to the stand-ins. None: no decision produces that event."""
    e = recorded[j]

    def owner(hand: str) -> str:
        return rnd.hands[hand]["player"] if hand in rnd.hands else dealer

    if isinstance(e, Round.StakePlaced):
        return "place_stake", {"player_id": ids[e.player], "amount": e.amount}
    if isinstance(e, Round.HandSplit):
        amount = None
        if family == "vingt-un":
            amount = next(
                (
                    x.amount
                    for x in recorded[j:]
                    if isinstance(x, Round.StakePlaced) and x.hand == e.new_hand
                ),
                None,
            )
        return "split", {"actor": owner(e.hand), "hand": e.hand, "amount": amount}
    if isinstance(e, Round.StakeRaised) and e.reason == "double_down":
        return "double_down", {"actor": owner(e.hand), "hand": e.hand}
    if isinstance(e, Round.DealerDoubleCalled):
        return "dealer_double", {"actor": dealer, "called": e.called}
    if isinstance(e, Round.CardDealt):
        if e.clause == "VU-23":
            return "serve_two", {"actor": dealer, "hand": e.hand}
        if e.clause == "VU-24":
            return "serve_out_of_order", {"actor": dealer, "hand": e.hand}
        if e.hand in DEALER_HANDS:
            return "dealer_draw", {"actor": dealer}
        if e.drawn:
            return "hit", {"actor": owner(e.hand), "hand": e.hand}
        return None
    if isinstance(e, Round.HandStood):
        if e.hand in DEALER_HANDS:
            return "dealer_stand", {"actor": dealer}
        return "stand", {"actor": owner(e.hand), "hand": e.hand}
    if isinstance(e, Round.AceValueChosen):
        hand = None if e.hand == DEALER else e.hand
        return "ace_value", {
            "actor": owner(e.hand),
            "hand": hand,
            "index": e.index,
            "value": e.value,
        }
    if isinstance(e, Round.InsuranceDecided):
        return "insurance", {"actor": owner(e.hand), "hand": e.hand, "amount": e.amount}
    if isinstance(e, Round.Surrendered):
        return "surrender", {"actor": owner(e.hand), "hand": e.hand}
    if isinstance(e, Round.IrregularityRecorded) and e.kind == "throw_up":
        return "throw_up", {"actor": owner(e.hand), "hand": e.hand}
    if isinstance(e, Round.IrregularityRecorded) and e.kind == "false_division":
        return "false_division", {"actor": dealer, "hand": e.hand}
    if isinstance(e, Round.TwoCardsResolved):
        if e.rejected:
            return "reject", {"actor": owner(e.hand), "hand": e.hand, "card": e.rejected}
        return "take", {"actor": owner(e.hand), "hand": e.hand}
    # The dealer's division (VU-21) records each live stake's grown hold before it.
    if isinstance(e, Round.DealerDivided) or (
        isinstance(e, Round.HoldAdjusted) and e.clause == "VU-21"
    ):
        return "dealer_split", {"actor": dealer}
    return None
