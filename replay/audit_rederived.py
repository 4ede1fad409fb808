"""The audit's rederivation verdict (``rederived``): does the round, replayed through today's
rules engine from its recorded rules, cards and decisions, come out as recorded?

It is ``python -m replay rederive``'s own walk (``replay.rederive.rederive``), run on the
round's events the audit has already read (nothing is read again): a fresh in-memory ledger
replays the round, and every settlement (outcome, amount, multiplier, rounding, clauses,
stake) and every money-bearing field of the other events (stakes, holds, cover, insurance:
``replay.rederive_money``) is compared with the record. The hash chains, the shoe check and
the money check cannot see a settlement rewritten to contradict its own cards, with its
transfers made to match and its hashes recomputed; this can.

``ok`` is true when it comes out as recorded, false when a difference counts (or today's
rules part from the record), null when there is nothing to weigh: a round still in play (no
settlement yet), or one whose table cannot be set up again to replay it. ``fact`` says so
in one sentence; ``differences`` are rederive's lines that count, ``by_hand`` the same by the
hand each touches (the dealer's hand for the bank's cover; a line touching no one hand, such
as the releases compared apart, is in ``differences`` only), ``settlements`` each differing
hand's settlement as recorded and as rederived, ``event_differences`` the differences that
do not count (no money moves, or the ledger's older records are known to show them) and
``diverged`` where today's rules part from the record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.domain.round import Round
from replay.rederivation import Rederivation
from replay.rederive import rederive

IN_PLAY = "The round is still in play: no settlement to rederive yet."
HOW = "Replayed through today's rules engine from its recorded rules, cards and decisions"


def rederived(events: list[Any]) -> dict[str, Any]:
    """The verdict on a round from its events (as the audit read them). A round still in play
    is not walked: the audit of a live round would replay it only to say so."""
    if not any(isinstance(e, Round.Ended) for e in events):
        return verdict(None, IN_PLAY)
    try:
        result = rederive(list(events))
    except Exception as error:  # a record today's engine cannot walk: the other checks say why
        return verdict(None, f"The round could not be rederived: {type(error).__name__}: {error}.")
    if not result.set_up:
        return verdict(None, f"The round cannot be replayed: {result.diverged}.")
    by_hand: dict[str, list[str]] = {}
    for text, hands in zip(result.differences, result.concerns, strict=True):
        for hand in hands:
            by_hand.setdefault(hand, []).append(text)
    return {
        "ok": result.matches,
        "fact": _fact(result),
        "differences": list(result.differences),
        "by_hand": by_hand,
        "settlements": [s for s in result.settlements if s["recorded"] != s["rederived"]],
        "event_differences": list(result.event_differences),
        "diverged": result.diverged,
    }


def verdict(ok: bool | None, fact: str) -> dict[str, Any]:
    """A verdict with nothing to list."""
    return {
        "ok": ok,
        "fact": fact,
        "differences": [],
        "by_hand": {},
        "settlements": [],
        "event_differences": [],
        "diverged": None,
    }


def _fact(result: Rederivation) -> str:
    if result.diverged:
        return f"{HOW}, the round parts from the record: {result.diverged}."
    if result.matches:
        return (
            f"{HOW} ({result.decisions} decisions), every settlement comes out as recorded, "
            "and so does every amount staked, held, covered or paid on insurance."
        )
    count, touched = len(result.differences), result.hands_differing
    where = f" ({'hands' if len(touched) > 1 else 'hand'} {', '.join(touched)})" if touched else ""
    plural = "" if count == 1 else "s"
    return f"{HOW}, the round does not come out as recorded: {count} difference{plural}{where}."


def shown_to_player(verdict_: dict[str, Any], owned: Callable[[str], bool]) -> dict[str, Any]:
    """The verdict as a player sees it (``owned(hand)``: whether he holds the hand). ``ok``
    weighs the whole round: a settlement is public, and whether the record of any hand was
    rewritten concerns everyone at the table. The lines are his own hands' only: another's
    (or a divergence, which may name a card) could tell of cards hidden from him; ``fact``
    says whether the rest is shown to auditors only."""
    ok = verdict_["ok"]
    if ok is None:
        return verdict(None, "The round could not be rederived; the reason is shown to auditors.")
    if ok:
        return verdict(True, verdict_["fact"])
    mine = {h: lines for h, lines in verdict_["by_hand"].items() if owned(h)}
    lines = [d for d in verdict_["differences"] if any(d in v for v in mine.values())]
    elsewhere = len(lines) < len(verdict_["differences"]) or verdict_["diverged"] is not None
    if not mine:
        fact = "though not for your hands: the details are shown to auditors"
    else:
        named = ", ".join(mine)
        fact = f"for your {'hands' if len(mine) > 1 else 'hand'} {named}" + (
            " and elsewhere in the round (shown to auditors)" if elsewhere else ""
        )
    return {
        **verdict(False, f"{HOW}, the round does not come out as recorded, {fact}."),
        "differences": lines,
        "by_hand": mine,
        "settlements": [s for s in verdict_["settlements"] if s["hand"] in mine],
    }
