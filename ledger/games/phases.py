"""A round's phases: entering the next one, and the round's end."""

from __future__ import annotations

from ledger.domain.hands import PHASES
from ledger.domain.round import Round
from ledger.games.play import Play


def enter(play: Play, phase: str, clause: str) -> None:
    if phase not in PHASES:  # a new phase is named in PHASES first (the API lists them)
        raise ValueError(f"no round phase is named {phase!r}")
    if play.rnd.phase != phase:
        play.rnd.trigger_event(Round.PhaseEntered, phase=phase, clause=clause)


def end_round(play: Play, passes: bool, clause: str) -> None:
    play.release_bank_cover(clause)
    play.rnd.trigger_event(Round.Ended, passes_deal=passes, clause=clause)
