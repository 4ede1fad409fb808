"""Staking: a player's stake before play, who may place it, and the table's limits."""

from __future__ import annotations

from ledger import accounts
from ledger.domain.round import Round
from ledger.errors import NotPermitted, RuleViolation, StakeOutOfLimits, WrongPhase
from ledger.games import families, opening
from ledger.games.play import Play


def place_stake(play: Play, player_id: str, amount: int) -> str:
    rnd, rules, fam = play.rnd, play.rules, families.book(play)
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
        # The round deals only once every punter has staked: the cap keeps room for the
        # least stake of each punter still to stake, or the round could never be dealt.
        waiting = sum(1 for h in rnd.hands.values() if h["stake"] == 0) - 1
        room = rules.bank_cap - at_risk
        if room < waiting * rules.min_stake:
            raise StakeOutOfLimits(
                f"the bank caps the stakes at {rules.bank_cap}; {at_risk} would leave {room}, "
                f"less than the least stake ({rules.min_stake}) of each of the {waiting} "
                "punters still to stake",
                "OC-3",
            )
    hand = hands[0]
    hold = play.hold_for(amount, others=len(rnd.order) - 1)
    play.books.transfer(
        accounts.player(player_id), play.escrow, hold, clause, f"stake on {hand['id']}"
    )
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
        opening.stakes_closed(play)
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
