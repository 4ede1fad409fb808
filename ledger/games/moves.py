"""A player's moves on his hand, in his turn: draw, stand, split, double down, and (Очко) an
ace's value."""

from __future__ import annotations

from typing import cast

from ledger import accounts
from ledger.domain.hands import DEALER, OPEN, is_dealer_hand
from ledger.domain.round import Round
from ledger.errors import RuleViolation
from ledger.games import families, turns
from ledger.games.book import AceChoice, DoubleDown
from ledger.games.play import Play


def hit(play: Play, hand_id: str, player_id: str) -> str:
    fam = families.book(play)
    owned = play.rnd.hand(hand_id)
    if not is_dealer_hand(hand_id) and owned["player"] == player_id:
        fam.check_draw(play, owned)  # a draw limit is named as such, even once the hand stood
    turns.check_turn(play, hand_id, player_id, fam.DRAW_CLAUSE)
    card = play.deal(
        hand_id, face_up=fam.DRAW_FACE_UP, drawn=True, clause=fam.DRAW_CLAUSE, asked=True
    )
    after_card(play, hand_id)
    turns.continue_play(play)
    return card


def after_card(play: Play, hand_id: str) -> None:
    total = play.rnd.total(hand_id)
    if total > 21:
        if turns.awaits_stand(play, play.rnd.hands[hand_id]):
            return  # recorded when its holder stands (stand), not in this draw's write
        fam = families.book(play)
        play.rnd.trigger_event(
            Round.HandOverdrawn, hand=hand_id, total=total, clause=fam.OVERDRAW_CLAUSE
        )
        fam.overdraw(play, hand_id)


def stand(play: Play, hand_id: str, player_id: str) -> None:
    fam = families.book(play)
    hand = turns.check_turn(play, hand_id, player_id, fam.STAND_CLAUSE, standing=True)
    if turns.awaits_stand(play, hand) and play.rnd.total(hand_id) > 21:
        # holder_ends_turn: the over-draw his draw made is recorded now, as his turn passes;
        # it waits for the banker all the same (OC-11 false).
        play.rnd.trigger_event(
            Round.HandOverdrawn,
            hand=hand_id,
            total=play.rnd.total(hand_id),
            clause=fam.OVERDRAW_CLAUSE,
        )
        fam.overdraw(play, hand_id)
        turns.continue_play(play)
        return
    play.rnd.trigger_event(
        Round.HandStood,
        hand=hand_id,
        total=play.rnd.total(hand_id),
        clause=fam.STAND_CLAUSE,
        actor=play.actor,
    )
    turns.continue_play(play)


def split(play: Play, hand_id: str, player_id: str, amount: int | None) -> str:
    fam = families.book(play)
    hand = turns.check_turn(play, hand_id, player_id, fam.SPLIT_CLAUSE)
    amount = fam.check_split(play, hand, amount)
    rnd = play.rnd
    new_id = f"h{len(rnd.hands) + 1}"
    card = hand["cards"][1]
    hold = play.hold_for(amount, split=True)
    play.books.transfer(
        accounts.player(player_id), play.escrow, hold, fam.SPLIT_CLAUSE, f"stake on {new_id}"
    )
    rnd.trigger_event(
        Round.HandSplit,
        hand=hand_id,
        new_hand=new_id,
        card=card,
        clause=fam.SPLIT_CLAUSE,
        actor=play.actor,
    )
    rnd.trigger_event(
        Round.StakePlaced,
        hand=new_id,
        player=player_id,
        seat=hand["seat"],
        amount=amount,
        held=hold,
        clause=fam.SPLIT_CLAUSE,
        actor=play.actor,
    )
    play.cover_bank(amount, fam.SPLIT_CLAUSE, split=True)
    fam.after_split(play, hand_id, new_id)
    turns.continue_play(play)
    return new_id


def double_down(play: Play, hand_id: str, player_id: str) -> str:
    fam = families.book(play)
    if not fam.DOUBLE_DOWN:
        raise RuleViolation(f"{play.family} has no double down", fam.PLAY_CLAUSE)
    fam = cast(DoubleDown, fam)
    hand = turns.check_turn(play, hand_id, player_id, fam.DOUBLE_CLAUSE)
    fam.check_double_down(play, hand)
    stake = hand["stake"]
    play.books.transfer(
        accounts.player(player_id),
        play.escrow,
        stake,
        fam.DOUBLE_CLAUSE,
        f"double down on {hand_id}",
    )
    play.rnd.trigger_event(
        Round.StakeRaised,
        hand=hand_id,
        amount=stake,
        held=stake,
        reason="double_down",
        clause=fam.DOUBLE_CLAUSE,
        actor=play.actor,
    )
    card = play.deal(hand_id, face_up=True, drawn=True, clause=fam.DOUBLE_CLAUSE, asked=True)
    after_card(play, hand_id)
    if play.rnd.hands[hand_id]["status"] == OPEN:
        play.rnd.trigger_event(
            Round.HandStood,
            hand=hand_id,
            total=play.rnd.total(hand_id),
            clause=fam.DOUBLE_CLAUSE,
            actor="ledger",
        )
    turns.continue_play(play)
    return card


def choose_ace(play: Play, hand_id: str, index: int, value: int, player_id: str) -> None:
    fam = families.book(play)
    if not fam.ACE_CHOICE:
        raise RuleViolation(
            f"in {play.family} an ace counts the best way; only Очко lets the holder choose", "OC-7"
        )
    fam = cast(AceChoice, fam)
    fam.check_ace_choice(play, hand_id, index, value, player_id)
    play.rnd.trigger_event(
        Round.AceValueChosen,
        hand=hand_id,
        index=index,
        value=value,
        clause="OC-7",
        actor=play.actor,
    )
    if hand_id == DEALER:
        if play.rnd.total(DEALER) > 21:
            fam.dealer_overdraws(play)
        return
    after_card(play, hand_id)
    turns.continue_play(play)
