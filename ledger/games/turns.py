"""Whose turn it is, and when it ends: the turns pass through everything that needs no
decision, and with ``holder_ends_turn`` a hand at 21 (or over 21, while its bust waits for the
banker) keeps its turn until its holder stands (MustStand)."""

from __future__ import annotations

from ledger.domain.hands import OPEN, is_dealer_hand
from ledger.domain.round import Round
from ledger.errors import HandClosed, MustStand, NotPermitted, OutOfTurn, RuleViolation, WrongPhase
from ledger.games import families, phases
from ledger.games.play import Play


def continue_play(play: Play) -> None:
    """Advance through everything that needs no decision, stopping at the next one."""
    rnd, fam = play.rnd, families.book(play)
    while not rnd.ended and rnd.phase not in ("insurance", "dealer", "dealer_double"):
        turn = rnd.current_turn()
        if turn is None:
            fam.dealer_turn(play)
            return
        hand = rnd.hands[turn]
        if len(hand["cards"]) == 1:  # a split hand waits for its second card
            play.deal(turn, face_up=True, drawn=False, clause=fam.SPLIT_CLAUSE)
            continue
        if hand.get("pending_two"):
            # VU-23: "the player may keep either or both": two cards given at once are his
            # to choose from, so his turn waits for take or reject, whatever they make.
            phases.enter(play, "play", fam.PLAY_CLAUSE)
            return
        total = rnd.total(turn)
        auto = fam.must_stand(play, hand, total)
        if auto and not awaits_stand(play, hand):
            rnd.trigger_event(Round.HandStood, hand=turn, total=total, clause=auto, actor="ledger")
            continue
        phases.enter(play, "play", fam.PLAY_CLAUSE)
        return


def awaits_stand(play: Play, hand: dict) -> str | None:
    """With ``holder_ends_turn``, the clause that ended an open hand's turn at 21 (or over 21,
    where the bust waits for the banker, OC-11), which passes only when its holder stands.
    Passing the turn in the draw's own write would tell the table what the hidden cards make
    (README, "Keys and roles"); a stand is a request of his own, like any other. None when the
    hand may play on, or when its turn ends for a reason the table sees anyway (a draw limit,
    a player content after rejecting a card): that turn passes at once, as without the option.
    """
    if not getattr(play.rules, "holder_ends_turn", False):
        return None
    if hand["status"] != OPEN or hand.get("settled"):
        return None
    fam = families.book(play)
    total = play.rnd.total(hand["id"])
    if total < 21 or (total > 21 and not fam.bust_waits(play)):
        return None  # still to play, or a bust paid at once: public anyway
    if fam.turn_ends_openly(play, hand):
        return None
    return fam.STAND_CLAUSE


def refuse_unless_standing(play: Play, hand: dict) -> None:
    """A hand whose turn is over takes no more cards or decisions: only its holder's stand."""
    clause = awaits_stand(play, hand)
    if clause is not None:
        total = play.rnd.total(hand["id"])
        made = "21" if total == 21 else f"{total}, over 21"
        raise MustStand(
            f"hand {hand['id']} has {made}: its turn is over, and it passes when you stand "
            "(this table's holder_ends_turn)",
            clause,
        )


def check_turn(
    play: Play, hand_id: str, player_id: str, clause: str, *, standing: bool = False
) -> dict:
    rnd = play.rnd
    hand = rnd.hand(hand_id)
    if is_dealer_hand(hand_id):
        raise NotPermitted("players act on their own hands, not the dealer's", clause)
    if hand["player"] != player_id:
        raise NotPermitted(f"hand {hand_id} belongs to another player", clause)
    if rnd.phase != "play":
        raise WrongPhase(f"players act in the play phase, not in {rnd.phase!r}", clause)
    if hand["status"] != OPEN or hand.get("settled"):
        raise HandClosed(f"hand {hand_id} is {hand.get('outcome') or hand['status']}", clause)
    if rnd.current_turn() != hand_id:
        raise OutOfTurn(f"it is hand {rnd.current_turn()}'s turn, not {hand_id}'s", clause)
    if hand.get("pending_two"):
        raise RuleViolation(f"hand {hand_id} must first take or reject one of two cards", "VU-23")
    if not standing:
        refuse_unless_standing(play, hand)
    return hand
