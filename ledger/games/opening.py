"""The opening of a round, common to every family: its hands, the first cards, the stakes
closing, the Vingt-un dealer's double (VU-6) and the second cards, up to the first turn."""

from __future__ import annotations

from ledger import accounts
from ledger.domain.hands import DEALER
from ledger.domain.round import Round
from ledger.errors import WrongPhase
from ledger.games import dealer_play, families, phases, turns
from ledger.games.play import Play


def begin(play: Play) -> None:
    rnd = play.rnd
    for i, (seat, player) in enumerate(rnd.seats, start=1):
        rnd.trigger_event(Round.HandOpened, hand=f"h{i}", player=player, seat=seat)
    fam = families.book(play)
    fam.begin(play)
    if fam.stakes_after_first_card(play):
        for hand_id in list(rnd.order):
            play.deal(hand_id, face_up=False, drawn=False, clause=fam.DEAL_CLAUSE)
        play.deal(DEALER, face_up=False, drawn=False, clause=fam.DEAL_CLAUSE)
        phases.enter(play, "staking", fam.STAKE_CLAUSE)
    else:
        phases.enter(play, "betting", fam.STAKE_CLAUSE)


def stakes_closed(play: Play) -> None:
    fam = families.book(play)
    if play.rnd.phase == "betting":
        deal_two_each(play)
    elif fam.has_dealer_double(play):
        phases.enter(play, "dealer_double", "VU-6")
    else:
        deal_second(play)


def deal_two_each(play: Play) -> None:
    fam = families.book(play)
    for round_no in (1, 2):
        for hand_id in list(play.rnd.order):
            play.deal(
                hand_id, face_up=fam.face_up(round_no, False), drawn=False, clause=fam.DEAL_CLAUSE
            )
        play.deal(DEALER, face_up=fam.face_up(round_no, True), drawn=False, clause=fam.DEAL_CLAUSE)
    after_deal(play)


def deal_second(play: Play) -> None:
    fam = families.book(play)
    for hand_id in list(play.rnd.order):
        play.deal(hand_id, face_up=False, drawn=False, clause=fam.SECOND_CARD_CLAUSE)
    play.deal(DEALER, face_up=False, drawn=False, clause=fam.SECOND_CARD_CLAUSE)
    after_deal(play)


def dealer_double(play: Play, called: bool) -> None:
    rnd = play.rnd
    if rnd.phase != "dealer_double":
        raise WrongPhase(
            "the dealer may call 'double' only after the stakes on the first card", "VU-6"
        )
    dealer_play.require_dealer(play, "VU-6")
    rnd.trigger_event(Round.DealerDoubleCalled, called=called, clause="VU-6", actor=play.actor)
    if called:
        for hand_id in list(rnd.order):
            hand = rnd.hands[hand_id]
            extra = hand["stake"] if play.rules.credit else 0  # the hold already covers it
            play.books.transfer(
                accounts.player(hand["player"]), play.escrow, extra, "VU-6", "dealer's double"
            )
            rnd.trigger_event(
                Round.StakeRaised,
                hand=hand_id,
                amount=hand["stake"],
                held=extra,
                reason="dealer_double",
                clause="VU-6",
                actor=play.actor,
            )
    phases.enter(play, "dealing", "VU-7")
    deal_second(play)


def after_deal(play: Play) -> None:
    families.book(play).after_deal(play)
    turns.continue_play(play)
