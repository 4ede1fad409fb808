"""What the Vingt-un dealer pays into the pool: VU-27 (b) for each hand he over-draws, VU-26
for an irregularity of his (two cards at once, a draw served out of order), and VU-27 (c) a
share of what he received on ties.

On a table without credit his wallet may hold nothing once his stakes' cover is put up, and a
payment taken from it alone would be refused when it fell due. For VU-27 (b) that is when a
card over-draws him, and for VU-27 (c) when the card that ends his last hand settles the
round: the refusal of his draw would tell him that the card on top busts him. So each payment
is made first from his bank cover, which the transfers show: the cover is released to him
(``BankCovered`` with a negative amount under the payment's clause, memo saying what for) and
the payment then leaves his wallet as before. The over-draw penalty is held with the cover,
one for each hand he holds (at the round's start, and with each division, VU-21), so it is
always there. The tie share needs nothing more held: against each of his hands a stake he
ties wins nothing, so the double of it his cover holds for that hand (VU-17) is still
there, and the share, a quarter or a third of the stake rounded, is never more than that. A
VU-26 penalty is paid from whatever cover the round can no longer cost him, and the rest from
his wallet, a refusal that no card decides."""

from __future__ import annotations

from ledger.domain.round import Round
from ledger.games import private
from ledger.games.play import Play

OVERDRAW_CLAUSE = TIE_SHARE_CLAUSE = "VU-27"
PENALTY_CLAUSE = "VU-26"
OVERDRAW_HELD = "bank cover held for a VU-27 (b) over-draw penalty"
OVERDRAW_RELEASED = "bank cover held for the VU-27 (b) over-draw penalty, released to pay it"
SPARE_RELEASED = "bank cover the round can no longer cost him, released to pay a VU-26 penalty"
TIE_SHARE_RELEASED = "bank cover released to pay the VU-27 (c) share of receipts on ties"


def hold_overdraw_penalty(play: Play, hand_id: str) -> None:
    """VU-27 (b): the penalty of one dealer hand (his first as the round starts; ``hand_id``
    as he divides, VU-21) joins his cover."""
    memo = f"{OVERDRAW_HELD}: {hand_id}" if hand_id else OVERDRAW_HELD
    play.hold_cover(play.rules.pool_dealer_overdraw, OVERDRAW_CLAUSE, memo)


def overdrawn_dealer_hands(rnd: Round) -> list[str]:
    """The dealer's hands over 21 once he has played: each pays the pool (VU-27 b)."""
    return [h for h in rnd.dealer_hand_ids() if rnd.total(h) > 21]


def pay_overdraw_penalties(play: Play) -> None:
    """VU-27 (b), for each hand the dealer over-drew, once every hand is paid (so the cover
    paid what it was put up for first): from the cover held for it, then his wallet (a round
    started before the penalty was held has only what the hands left of its cover)."""
    penalty = play.rules.pool_dealer_overdraw
    overdrawn = overdrawn_dealer_hands(play.rnd)
    due = penalty * len(overdrawn)
    if not due:
        return
    memo = "dealer over-drew" + _release(
        play, OVERDRAW_CLAUSE, due, play.rnd.bank_held, OVERDRAW_RELEASED
    )
    for _ in overdrawn:
        private.pay_to_pool(play, play.banker_account, penalty, OVERDRAW_CLAUSE, memo)


def pay_tie_share(play: Play, share: int, memo: str) -> None:
    """VU-27 (c), once every hand is paid and the over-draw penalties with it: from his cover,
    then his wallet (a table with credit holds no cover; a round started before the
    over-draw penalty was held may have paid it from the cover this share would take)."""
    memo += _release(play, TIE_SHARE_CLAUSE, share, play.rnd.bank_held, TIE_SHARE_RELEASED)
    private.pay_to_pool(play, play.banker_account, share, TIE_SHARE_CLAUSE, memo)


def spare_cover(play: Play) -> int:
    """The dealer's cover beyond what the round can still cost him: each stake still
    standing paid double by each of his hands (``dealer_hand_exposure``), and the over-draw
    penalty held for each. Reckoned from what the table sees (stakes, his hands, the cover),
    never from a card or his wallet."""
    rnd, rules = play.rnd, play.rules
    hands = len(rnd.dealer_hand_ids())
    standing = sum(hand["stake"] for hand in rnd.live_hands())
    owed = hands * (rules.dealer_hand_exposure * standing + rules.pool_dealer_overdraw)
    return max(0, rnd.bank_held - owed)


def pay_dealer_penalty(play: Play, amount: int, kind: str) -> None:
    """VU-26, the dealer the offender: from his spare cover first, then his wallet."""
    memo = f"penalty: {kind}" + _release(
        play, PENALTY_CLAUSE, amount, spare_cover(play), SPARE_RELEASED
    )
    private.pay_to_pool(play, play.banker_account, amount, PENALTY_CLAUSE, memo)


def _release(play: Play, clause: str, due: int, available: int, memo: str) -> str:
    """Release to the dealer as much of ``due`` as ``available`` cover allows, for him to pay
    it on; what the payment's memo adds to say so."""
    released = min(due, available)
    play.release_bank_cover(clause, released, memo)
    if not released:
        return ""
    if released == due:
        return ", paid from his bank cover"
    return f", {released} of {due} paid from his bank cover"
