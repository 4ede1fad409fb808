"""The dealer's play after the players: what only he may do, his draws and stands, one
divided hand after another (VU-21), and the discretionary dealer's turn."""

from __future__ import annotations

from ledger.domain.hands import DEALER
from ledger.domain.round import Round
from ledger.errors import NotPermitted, WrongPhase
from ledger.games import families, phases
from ledger.games.play import Play


def require_dealer(play: Play, clause: str) -> None:
    if play.actor not in ("ledger", play.rnd.dealer):
        raise NotPermitted(f"only the dealer ({play.rnd.dealer}) may do this", clause)


def dealer_draw(play: Play) -> str:
    fam = families.book(play)
    rnd = play.rnd
    if rnd.phase != "dealer":
        raise WrongPhase(
            f"the dealer draws after the players, not in phase {rnd.phase!r}", fam.DEALER_CLAUSE
        )
    require_dealer(play, fam.DEALER_CLAUSE)
    fam.check_dealer_draw(play)
    hand = rnd.dealer_in_turn()
    card = play.deal(hand, face_up=True, drawn=True, clause=fam.DEALER_CLAUSE)
    after_dealer_card(play, hand)
    return card


def after_dealer_card(play: Play, hand: str) -> None:
    """A dealer's hand that over-draws is done; while another of his divided hands is still
    to play, he goes on to it (VU-21), and only his last hand's over-draw settles the round."""
    rnd = play.rnd
    if rnd.total(hand) <= 21:
        return
    if [h for h in rnd.dealer_hands_open() if h != hand]:
        rnd.trigger_event(Round.HandOverdrawn, hand=hand, total=rnd.total(hand), clause="VU-21")
    else:
        families.book(play).dealer_overdraws(play)


def dealer_stand(play: Play) -> None:
    fam = families.book(play)
    rnd = play.rnd
    if rnd.phase != "dealer":
        raise WrongPhase(
            f"the dealer stands after the players, not in phase {rnd.phase!r}", fam.DEALER_CLAUSE
        )
    require_dealer(play, fam.DEALER_CLAUSE)
    hand = rnd.dealer_in_turn()
    rnd.trigger_event(
        Round.HandStood,
        hand=hand,
        total=rnd.total(hand),
        clause=fam.DEALER_CLAUSE,
        actor=play.actor,
    )
    if rnd.dealer_hands_open():
        return  # now he plays his next divided hand (VU-21)
    fam.settle(play)


def enter_dealer_phase(play: Play, clause: str) -> None:
    """The discretionary dealer (VU-13, H13-8, OC-6) turns up his cards and decides."""
    rnd = play.rnd
    rnd.trigger_event(Round.CardsShown, hand=DEALER, clause=clause)
    if not rnd.live_hands():
        families.book(play).settle(play)
        return
    phases.enter(play, "dealer", clause)
