"""The flow of a round, common to every family: stakes, the deal, turns, the dealer's
turn and settlement. Where the families differ, the flow asks the family's book
(``ledger.games.<family>``), which cites the clause that decides."""

from __future__ import annotations

from types import ModuleType

from ledger.domain.round import DEALER, OPEN, Round, is_dealer_hand
from ledger.errors import (
    HandClosed,
    MustStand,
    NotPermitted,
    OutOfTurn,
    RuleViolation,
    StakeOutOfLimits,
    WrongPhase,
)
from ledger.games import casino, hoyle, ochko, vingt_un
from ledger.games.play import Play

BOOKS: dict[str, ModuleType] = {
    "vingt-un": vingt_un,
    "hoyle-1913": hoyle,
    "ochko": ochko,
    "casino": casino,
}


def book(play: Play) -> ModuleType:
    return BOOKS[play.family]


def enter(play: Play, phase: str, clause: str) -> None:
    if play.rnd.phase != phase:
        play.rnd.trigger_event(Round.PhaseEntered, phase=phase, clause=clause)


# -- opening and stakes --------------------------------------------------------------------


def begin(play: Play) -> None:
    rnd = play.rnd
    for i, (seat, player) in enumerate(rnd.seats, start=1):
        rnd.trigger_event(Round.HandOpened, hand=f"h{i}", player=player, seat=seat)
    fam = book(play)
    fam.begin(play)
    if fam.stakes_after_first_card(play):
        for hand_id in list(rnd.order):
            play.deal(hand_id, face_up=False, drawn=False, clause=fam.DEAL_CLAUSE)
        play.deal(DEALER, face_up=False, drawn=False, clause=fam.DEAL_CLAUSE)
        enter(play, "staking", fam.STAKE_CLAUSE)
    else:
        enter(play, "betting", fam.STAKE_CLAUSE)


def place_stake(play: Play, player_id: str, amount: int) -> str:
    rnd, rules, fam = play.rnd, play.rules, book(play)
    clause = fam.STAKE_CLAUSE
    if rnd.phase not in ("betting", "staking"):
        raise WrongPhase(f"stakes are taken before play, not in phase {rnd.phase!r}", clause)
    hands = [h for h in rnd.hands_of(player_id) if h["stake"] == 0]
    if not rnd.hands_of(player_id):
        raise NotPermitted(f"player {player_id} has no hand in this round", clause)
    if not hands:
        raise RuleViolation(f"player {player_id} has already staked", clause)
    check_limits(play, amount, clause)
    if rules.family == "ochko" and rules.bank_cap is not None:
        at_risk = sum(h["stake"] for h in rnd.hands.values()) + amount
        if at_risk > rules.bank_cap:
            raise StakeOutOfLimits(
                f"the bank caps the stakes at {rules.bank_cap}; {at_risk} would exceed it", "OC-3"
            )
    hand = hands[0]
    hold = play.hold_for(amount, others=len(rnd.order) - 1)
    play.books.transfer(f"player:{player_id}", play.escrow, hold, clause, f"stake on {hand['id']}")
    rnd.trigger_event(
        Round.StakePlaced,
        hand=hand["id"],
        player=player_id,
        seat=hand["seat"],
        amount=amount,
        held=hold,
        clause=clause,
        actor=play.actor,
    )
    play.cover_bank(amount, clause)
    if all(h["stake"] > 0 for h in rnd.hands.values()):
        stakes_closed(play)
    return hand["id"]


def check_limits(play: Play, amount: int, clause: str) -> None:
    rules = play.rules
    fixed = getattr(rules, "fixed_bet", None)
    if fixed is not None and amount != fixed:
        raise StakeOutOfLimits(f"this table's bet is fixed at {fixed}, not {amount}", "H13-2")
    if not rules.min_stake <= amount <= rules.max_stake:
        raise StakeOutOfLimits(
            f"stake {amount} is outside the table limits {rules.min_stake}..{rules.max_stake}",
            clause,
        )


def stakes_closed(play: Play) -> None:
    fam = book(play)
    if play.rnd.phase == "betting":
        deal_two_each(play)
    elif fam.has_dealer_double(play):
        enter(play, "dealer_double", "VU-6")
    else:
        deal_second(play)


def deal_two_each(play: Play) -> None:
    fam = book(play)
    for round_no in (1, 2):
        for hand_id in list(play.rnd.order):
            play.deal(
                hand_id, face_up=fam.face_up(round_no, False), drawn=False, clause=fam.DEAL_CLAUSE
            )
        play.deal(DEALER, face_up=fam.face_up(round_no, True), drawn=False, clause=fam.DEAL_CLAUSE)
    after_deal(play)


def deal_second(play: Play) -> None:
    fam = book(play)
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
    require_dealer(play, "VU-6")
    rnd.trigger_event(Round.DealerDoubleCalled, called=called, clause="VU-6", actor=play.actor)
    if called:
        for hand_id in list(rnd.order):
            hand = rnd.hands[hand_id]
            extra = hand["stake"] if play.rules.credit else 0  # the hold already covers it
            play.books.transfer(
                f"player:{hand['player']}", play.escrow, extra, "VU-6", "dealer's double"
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
    enter(play, "dealing", "VU-7")
    deal_second(play)


def after_deal(play: Play) -> None:
    book(play).after_deal(play)
    continue_play(play)


# -- turns -------------------------------------------------------------------------------


def continue_play(play: Play) -> None:
    """Advance through everything that needs no decision, stopping at the next one."""
    rnd, fam = play.rnd, book(play)
    while not rnd.ended and rnd.phase not in ("insurance", "dealer", "dealer_double"):
        turn = rnd.current_turn()
        if turn is None:
            fam.dealer_turn(play)
            return
        hand = rnd.hands[turn]
        if len(hand["cards"]) == 1:  # a split hand waits for its second card
            play.deal(turn, face_up=True, drawn=False, clause=fam.SPLIT_CLAUSE)
            continue
        total = rnd.total(turn)
        auto = fam.must_stand(play, hand, total)
        if auto and not awaits_stand(play, hand):
            rnd.trigger_event(Round.HandStood, hand=turn, total=total, clause=auto, actor="ledger")
            continue
        enter(play, "play", fam.PLAY_CLAUSE)
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
    fam = book(play)
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


def require_dealer(play: Play, clause: str) -> None:
    if play.actor not in ("ledger", play.rnd.dealer):
        raise NotPermitted(f"only the dealer ({play.rnd.dealer}) may do this", clause)


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


def hit(play: Play, hand_id: str, player_id: str) -> str:
    fam = book(play)
    owned = play.rnd.hand(hand_id)
    if not is_dealer_hand(hand_id) and owned["player"] == player_id:
        fam.check_draw(play, owned)  # a draw limit is named as such, even once the hand stood
    check_turn(play, hand_id, player_id, fam.DRAW_CLAUSE)
    card = play.deal(hand_id, face_up=fam.DRAW_FACE_UP, drawn=True, clause=fam.DRAW_CLAUSE)
    after_card(play, hand_id)
    continue_play(play)
    return card


def after_card(play: Play, hand_id: str) -> None:
    total = play.rnd.total(hand_id)
    if total > 21:
        if awaits_stand(play, play.rnd.hands[hand_id]):
            return  # recorded when its holder stands (stand), not in this draw's write
        fam = book(play)
        play.rnd.trigger_event(
            Round.HandOverdrawn, hand=hand_id, total=total, clause=fam.OVERDRAW_CLAUSE
        )
        fam.overdraw(play, hand_id)


def stand(play: Play, hand_id: str, player_id: str) -> None:
    fam = book(play)
    hand = check_turn(play, hand_id, player_id, fam.STAND_CLAUSE, standing=True)
    if awaits_stand(play, hand) and play.rnd.total(hand_id) > 21:
        # holder_ends_turn: the over-draw his draw made is recorded now, as his turn passes;
        # it waits for the banker all the same (OC-11 false).
        play.rnd.trigger_event(
            Round.HandOverdrawn,
            hand=hand_id,
            total=play.rnd.total(hand_id),
            clause=fam.OVERDRAW_CLAUSE,
        )
        fam.overdraw(play, hand_id)
        continue_play(play)
        return
    play.rnd.trigger_event(
        Round.HandStood,
        hand=hand_id,
        total=play.rnd.total(hand_id),
        clause=fam.STAND_CLAUSE,
        actor=play.actor,
    )
    continue_play(play)


def split(play: Play, hand_id: str, player_id: str, amount: int | None) -> str:
    fam = book(play)
    hand = check_turn(play, hand_id, player_id, fam.SPLIT_CLAUSE)
    amount = fam.check_split(play, hand, amount)
    rnd = play.rnd
    new_id = f"h{len(rnd.hands) + 1}"
    card = hand["cards"][1]
    hold = play.hold_for(amount)
    play.books.transfer(
        f"player:{player_id}", play.escrow, hold, fam.SPLIT_CLAUSE, f"stake on {new_id}"
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
    play.cover_bank(amount, fam.SPLIT_CLAUSE)
    fam.after_split(play, hand_id, new_id)
    continue_play(play)
    return new_id


def double_down(play: Play, hand_id: str, player_id: str) -> str:
    fam = book(play)
    if not hasattr(fam, "check_double_down"):
        raise RuleViolation(f"{play.family} has no double down", fam.PLAY_CLAUSE)
    hand = check_turn(play, hand_id, player_id, fam.DOUBLE_CLAUSE)
    fam.check_double_down(play, hand)
    stake = hand["stake"]
    play.books.transfer(
        f"player:{player_id}", play.escrow, stake, fam.DOUBLE_CLAUSE, f"double down on {hand_id}"
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
    card = play.deal(hand_id, face_up=True, drawn=True, clause=fam.DOUBLE_CLAUSE)
    after_card(play, hand_id)
    if play.rnd.hands[hand_id]["status"] == OPEN:
        play.rnd.trigger_event(
            Round.HandStood,
            hand=hand_id,
            total=play.rnd.total(hand_id),
            clause=fam.DOUBLE_CLAUSE,
            actor="ledger",
        )
    continue_play(play)
    return card


def choose_ace(play: Play, hand_id: str, index: int, value: int, player_id: str) -> None:
    fam = book(play)
    if not hasattr(fam, "check_ace_choice"):
        raise RuleViolation(
            f"in {play.family} an ace counts the best way; only Очко lets the holder choose", "OC-7"
        )
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
    continue_play(play)


def dealer_draw(play: Play) -> str:
    fam = book(play)
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
        book(play).dealer_overdraws(play)


def dealer_stand(play: Play) -> None:
    fam = book(play)
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
        book(play).settle(play)
        return
    enter(play, "dealer", clause)


def end_round(play: Play, passes: bool, clause: str) -> None:
    play.release_bank_cover(clause)
    play.rnd.trigger_event(Round.Ended, passes_deal=passes, clause=clause)
