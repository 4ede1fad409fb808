"""Vingt-un irregularities (seed 002, VU-23..VU-26): what the dealer or a player did
wrong at the table, recorded as it happened, with the remedy and penalty the book gives."""

from __future__ import annotations

from ledger import accounts
from ledger.cards import same_denomination
from ledger.domain.hands import DEALER, OPEN, is_dealer_hand
from ledger.domain.round import Round
from ledger.errors import (
    HandClosed,
    InvalidCommand,
    MustStand,
    NotPermitted,
    OutOfTurn,
    RuleViolation,
    WrongPhase,
)
from ledger.games import dealer_penalties, dealer_play, moves, private, turns
from ledger.games.play import Play


def _require_vingt_un(play: Play, clause: str) -> None:
    if play.family != "vingt-un":
        raise RuleViolation("irregularities are recorded as the Vingt-un book gives them", clause)


def _record(play: Play, kind: str, offender: str, hand: str, clause: str, note: str) -> None:
    play.rnd.trigger_event(
        Round.IrregularityRecorded,
        kind=kind,
        offender=offender,
        hand=hand,
        clause=clause,
        actor=play.actor,
        note=note,
    )
    penalty = play.rules.penalty_amount  # VU-26: the offender pays the pool, if one is kept
    if not (penalty and offender):
        return
    if offender == play.rnd.dealer:
        dealer_penalties.pay_dealer_penalty(play, penalty, kind)
    else:
        private.pay_to_pool(play, accounts.player(offender), penalty, "VU-26", f"penalty: {kind}")


def pending_two(rnd: Round) -> str | None:
    """The open hand whose holder has two cards given at once to keep or reject (VU-23), if
    any. Play waits on it (``turns.continue_play``), so it is the hand in turn."""
    for hand_id in rnd.order:
        hand = rnd.hands[hand_id]
        if hand.get("pending_two") and hand["status"] == OPEN and not hand.get("settled"):
            return hand_id
    return None


def _refuse_while_pending(play: Play, what: str, hand_id: str | None = None) -> None:
    """VU-23 leaves the choice of two cards to the player "while the process of drawing is
    going on": nothing may move play on past his hand (serve another out of order, settle
    another, throw one up) before he has made it, or the ledger would end his turn for him
    and he would choose later, knowing more."""
    waiting = pending_two(play.rnd)
    if waiting is not None and waiting != hand_id:
        raise RuleViolation(
            f"hand {waiting} has two cards given at once to keep or reject: {what} waits "
            "until its holder takes or rejects them",
            "VU-23",
        )


def _open_hand(play: Play, hand_id: str, clause: str) -> dict:
    hand = play.rnd.hand(hand_id)
    if is_dealer_hand(hand_id):
        return hand
    if hand["status"] != OPEN or hand.get("settled"):
        raise HandClosed(f"hand {hand_id} is no longer open", clause)
    return hand


def serve_two(play: Play, hand_id: str) -> tuple[str, list[str]]:
    """VU-23: the dealer gives two cards at once. A player keeps either or both; the
    dealer, giving himself two, must keep both. The dealer's two go to his hand now in turn
    ("dealer" names the dealer; a divided hand may be named, VU-21), and then his play goes
    on as after any draw of his. Returns the hand served and the two cards."""
    _require_vingt_un(play, "VU-23")
    dealer_play.require_dealer(play, "VU-23")
    rnd = play.rnd
    if is_dealer_hand(hand_id):
        if rnd.phase != "dealer":
            raise WrongPhase("the dealer draws for himself on his own turn", "VU-23")
        rnd.hand(hand_id)  # UnknownHand for a divided hand he does not hold
        in_turn = rnd.dealer_in_turn()
        if hand_id not in (DEALER, in_turn):
            raise OutOfTurn(
                f"the dealer plays his hands in order: {in_turn} is in turn, not {hand_id}",
                "VU-21",
            )
        hand_id = in_turn
    elif rnd.phase != "play" or rnd.current_turn() != hand_id:
        raise WrongPhase("two cards at once can only be given to the player being served", "VU-23")
    elif turns.awaits_stand(play, _open_hand(play, hand_id, "VU-23")):
        # holder_ends_turn: his turn is over, so nobody is serving him, and two cards forced
        # on him (he must keep one, VU-23) would undo his 21. This refusal does tell the
        # dealer that the turn is over: the one thing the option cannot hide from him.
        raise MustStand(
            f"hand {hand_id} takes no more cards: its turn is over, waiting for its holder "
            "to stand",
            "VU-11",
        )
    hand = _open_hand(play, hand_id, "VU-23")
    if not is_dealer_hand(hand_id) and hand.get("pending_two"):
        # A second pair would bury the first, which the player never chose from.
        raise RuleViolation(
            f"hand {hand_id} must first take or reject the two cards given "
            f"({' '.join(hand['pending_two'])})",
            "VU-23",
        )
    cards = [play.deal(hand_id, face_up=True, drawn=True, clause="VU-23") for _ in range(2)]
    _record(play, "two_cards", rnd.dealer, hand_id, "VU-23", f"gave {' '.join(cards)} at once")
    if is_dealer_hand(hand_id):
        dealer_play.after_dealer_card(play, hand_id)  # he keeps both, over-draw or not
    return hand_id, cards


def take_both(play: Play, hand_id: str, player_id: str) -> None:
    _pending(play, hand_id, player_id)
    play.rnd.trigger_event(
        Round.TwoCardsResolved, hand=hand_id, rejected="", clause="VU-23", actor=play.actor
    )
    moves.after_card(play, hand_id)
    turns.continue_play(play)


def reject(play: Play, hand_id: str, player_id: str, card: str) -> None:
    hand = _pending(play, hand_id, player_id)
    if card not in hand["pending_two"]:
        raise InvalidCommand(
            f"{card} is not one of the two cards given ({' '.join(hand['pending_two'])})", "VU-23"
        )
    play.rnd.trigger_event(
        Round.TwoCardsResolved, hand=hand_id, rejected=card, clause="VU-23", actor=play.actor
    )
    moves.after_card(play, hand_id)
    turns.continue_play(play)


def _pending(play: Play, hand_id: str, player_id: str) -> dict:
    """The hand whose two cards its holder now takes or rejects: his own, open and in turn
    while the players draw. His choice is made in his turn (VU-23), never after the dealer
    has turned up his cards."""
    _require_vingt_un(play, "VU-23")
    rnd = play.rnd
    hand = rnd.hand(hand_id)
    if is_dealer_hand(hand_id) or hand["player"] != player_id:
        raise NotPermitted(f"hand {hand_id} belongs to another player", "VU-23")
    if rnd.phase != "play":
        raise WrongPhase(
            f"two cards given at once are taken or rejected while the players draw, not in "
            f"phase {rnd.phase!r}",
            "VU-23",
        )
    if hand["status"] != OPEN or hand.get("settled"):
        raise HandClosed(f"hand {hand_id} is {hand.get('outcome') or hand['status']}", "VU-23")
    if not hand.get("pending_two"):
        raise WrongPhase(f"hand {hand_id} has no two cards to take or reject", "VU-23")
    if rnd.current_turn() != hand_id:
        raise OutOfTurn(f"it is hand {rnd.current_turn()}'s turn, not {hand_id}'s", "VU-23")
    return hand


def serve_out_of_order(play: Play, hand_id: str) -> str:
    """VU-24: the dealer serves a player out of turn; those he missed may be served later
    or throw up their cards."""
    _require_vingt_un(play, "VU-24")
    dealer_play.require_dealer(play, "VU-24")
    rnd = play.rnd
    if rnd.phase != "play":
        raise WrongPhase("drawing happens in the play phase", "VU-24")
    if is_dealer_hand(hand_id) or rnd.current_turn() == hand_id:
        raise InvalidCommand("that hand is in turn: serve it with an ordinary draw", "VU-24")
    _open_hand(play, hand_id, "VU-24")
    _refuse_while_pending(play, f"serving {hand_id} out of turn")
    card = play.deal(hand_id, face_up=True, drawn=True, clause="VU-24")
    _record(play, "out_of_order", rnd.dealer, hand_id, "VU-24", f"served {hand_id} out of turn")
    moves.after_card(play, hand_id)
    turns.continue_play(play)
    return card


def throw_up(play: Play, hand_id: str, player_id: str) -> None:
    """VU-24: a player the dealer passed over gives up his hand; nothing passes."""
    _require_vingt_un(play, "VU-24")
    rnd = play.rnd
    hand = _open_hand(play, hand_id, "VU-24")
    if is_dealer_hand(hand_id) or hand["player"] != player_id:
        raise NotPermitted(f"hand {hand_id} belongs to another player", "VU-24")
    turns.refuse_unless_standing(play, hand)  # holder_ends_turn: his turn is over already
    _refuse_while_pending(play, f"throwing up {hand_id}")
    served = [rnd.order.index(h) for h in rnd.out_of_order_served]
    missed = bool(served) and rnd.order.index(hand_id) < max(served)
    if not missed:
        raise RuleViolation("only a player the dealer passed over may throw up his cards", "VU-24")
    # "May either be supplied ... or throw up": one or the other, never a draw first.
    if hand["draws"] > rnd.missed_at_draws.get(hand_id, hand["draws"]):
        raise RuleViolation(
            f"hand {hand_id} has drawn since the dealer passed it over: a player missed is "
            "served later or throws up his cards, not both",
            "VU-24",
        )
    _record(play, "throw_up", "", hand_id, "VU-24", "missed by the dealer, threw up his cards")
    play.pay_hand(hand_id, 0, "thrown up", ["VU-24"])
    turns.continue_play(play)


def false_division(play: Play, hand_id: str) -> None:
    """VU-25: a player drew separately on two cards that do not pair: he pays the dealer on
    each hand and forfeits what he would have won."""
    _require_vingt_un(play, "VU-25")
    dealer_play.require_dealer(play, "VU-25")
    rnd = play.rnd
    if rnd.phase != "play":
        raise WrongPhase(
            f"a false division happens while players draw, not in phase {rnd.phase!r}", "VU-25"
        )
    if is_dealer_hand(hand_id):
        raise InvalidCommand("the dealer reports a player's false division", "VU-25")
    hand = _open_hand(play, hand_id, "VU-25")
    # The hand with two cards pending may itself be reported: it pays double whatever they
    # make, so no choice of his is taken from him.
    _refuse_while_pending(play, f"a false division of {hand_id}", hand_id)
    if hand["split_from"]:
        # A hand of a divided pair: its first two cards are the pair's card and the one
        # dealt on it, which need not match; the division itself was a lawful one.
        raise RuleViolation(
            f"hand {hand_id} is a hand of a divided pair: drawing on each is a division "
            "(VU-19), not a false one",
            "VU-25",
        )
    if rnd.current_turn() != hand_id and not hand["draws"]:
        raise OutOfTurn(
            f"hand {hand_id} has not been served: it has drawn on nothing, separately or not",
            "VU-25",
        )
    if same_denomination(*hand["cards"][:2]):
        # The cards lie face down to the dealer who reports: name neither (VU-4). That the
        # report is refused still tells him the hand pairs; VU-25 fines only a non-pair, so
        # the ledger cannot record this report whatever it answers (README, Keys and roles).
        raise RuleViolation(
            f"hand {hand_id}'s first two cards pair: drawing on each is a division (VU-19), "
            "not a false one",
            "VU-25",
        )
    _record(
        play, "false_division", hand["player"], hand_id, "VU-25", "drew separately on a non-pair"
    )
    play.pay_hand(hand_id, -2, "false division", ["VU-25"])
    turns.continue_play(play)
