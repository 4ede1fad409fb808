"""``python -m replay rederive ID``: "was I paid right?"

The round's recorded cards and decisions are replayed through today's rules engine, in a
fresh in-memory ledger that nobody else sees: a table opened with the round's recorded rules,
stand-ins for its players (and dealer) seated in the same order of play with ample money, one
fixed shoe holding exactly the cards the round dealt, in order. Then, walking the recorded
events, each one that a decision produced (a stake, a hit, a stand, a split, a double, an
insurance, a surrender, an ace's value, the dealer's double, draws and stands, the Vingt-un
irregularities) is issued again as that command; everything else must follow by itself.

The events the engine produces are compared with the recorded ones position by position
(player, round and table ids mapped), and every ``HandSettled`` (hand, outcome, amount,
multiplier, rounding, clauses) is compared with the recorded one (``replay.rederivation``).
Burn cards and shoe changes are left out of both sides (a fixed shoe neither burns nor runs
out), and so are the round's own transfers, which follow from the settlements, and the
``ActedFor`` naming who gave a command for its actor (an admin's key): the stand-ins replay
every command as its actor, whoever asks for the rederivation. The holds and
cover a Hoyle round releases once its naturals are settled (H13-5, H13-6), and the cover a
Vingt-un dealer holds for his over-draw penalty or releases to pay a penalty or the share of
his tie receipts into the pool (VU-26, VU-27 b, c), are compared apart, so a round recorded
before the ledger did so still rederives, with that difference named.

A difference in a money-bearing field of any other event (a stake, a hold, the bank's cover,
insurance taken or paid, whom a settlement pays and how much of it the cover paid:
``replay.rederive_money``) makes the round differ as a settlement's does (``differences``),
but for those the ledger's older records are known to show; the rest, which move no money,
are named in ``event_differences``.

Its parts: ``replay.rederive_stand_ins`` (the stand-in table), ``replay.rederive_commands``
(the decision each recorded event stands for), ``replay.rederive_walk`` (the walk and its
comparisons), ``replay.rederive_scope`` (what is left out or compared apart),
``replay.rederive_money`` and ``replay.rederivation`` (the result).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from ledger.application import TwentyOneLedger
from ledger.config import store_env
from ledger.domain.round import Round
from ledger.errors import LedgerError
from ledger.given_by import given_by
from replay.checked_reads import read_stream
from replay.rederivation import Rederivation, compare_settlements, settlement
from replay.rederive_walk import RoundReplay


class NotARound(LookupError):
    pass


def rederive_round(app: Any, round_id: str) -> Rederivation:
    """Rederive a stored round (read only: its events are only read)."""
    try:
        uuid = UUID(str(round_id))
    except ValueError:
        raise NotARound(f"{round_id!r} is not a round id") from None
    # Checked as read: a damaged or missing event is reported by name (StoreDamaged), never
    # taken for a bad id or replayed around.
    events = read_stream(app, uuid)
    if not events:
        raise NotARound(f"no round {round_id}")
    return rederive(events)


def rederive(recorded: list[Any]) -> Rederivation:
    """Rederive a round from its events, as stored or as given (e.g. a copy to examine)."""
    started = recorded[0]
    if not isinstance(started, Round.Started):
        raise NotARound(f"{started.originator_id} is not a round")
    rules = dict(started.rules)
    family = rules.pop("family")
    result = Rederivation(str(started.originator_id), family)
    result.in_play = not any(isinstance(e, Round.Ended) for e in recorded)
    result.events = len(recorded)
    env = store_env("memory", environ={"LEDGER_ALLOW_FIXED_SHOES": "true"})
    fresh = TwentyOneLedger(env=env)
    replay = RoundReplay(fresh, started, family, rules, recorded, result)
    try:
        try:
            # The stand-ins act for themselves, whoever asked for the rederivation (an admin's
            # key around an HTTP request sets a giver, ``ledger.given_by``).
            with given_by(None):
                replay.run()
        except LedgerError as error:  # the stand-in table itself refused (rules, seats)
            result.diverged = f"the round cannot be set up again under today's rules: {error}"
            result.set_up = False
        if replay.round_id:
            result.settlements = [
                {"hand": e.hand, "rederived": settlement(e)}
                for e in replay.produced()
                if isinstance(e, Round.HandSettled)
            ]
            replay.weigh_cover()
            replay.compare_releases()
            replay.name_card_actors()
    finally:
        fresh.close()
    compare_settlements(recorded, result)
    return result
