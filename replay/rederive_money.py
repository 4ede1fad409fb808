"""Which differences a rederivation finds bear on money (``replay.rederive``).

A field of a round's event bears on money when it says how much was staked, held, covered,
paid or settled, or whose money it was: a stake's amount and what it held (``StakePlaced``,
``StakeRaised``), a hold grown or paid out and to which hand (``HoldAdjusted``), insurance
taken and paid (``InsuranceDecided``, ``InsuranceSettled``), the bank's cover
(``BankCovered``), and who a settlement pays and how much of it came from the cover
(``HandSettled``: its outcome, amount, multiplier, rounding, clauses and stake are compared
hand by hand, ``replay.rederivation``). A difference in any of them makes the round differ
(``matches`` false, exit 1), but for the differences the ledger's older records are known to
show, which move no money between anyone (README, "rederive"):

- a dealer's division (VU-21) recorded as holding more of a stake, or covering more of it,
  than today's rules do (``over_held``): what more was held is the holder's own money, given
  back to him at the settlement;
- a release of the bank's cover of another amount (``cover_released``), when the round's
  cover, all it held less all it released, comes to the same in the record and today (the
  banker's own money, given back to him in other parts: a round recorded before a penalty or
  a tie share was paid from the cover released more of it at its end); and
- the releases compared apart (``replay.rederive_scope``: a Hoyle round's after the deal, a
  Vingt-un dealer's penalty cover) when the record has none of them, as a round recorded
  before the ledger made them has none.
"""

from __future__ import annotations

from typing import Any

from ledger.domain.hands import DEALER
from ledger.domain.round import Round

MONEY_FIELDS: dict[type, tuple[str, ...]] = {
    Round.StakePlaced: ("player", "amount", "held"),
    Round.StakeRaised: ("amount", "held"),
    Round.HoldAdjusted: ("amount", "to_hand"),
    Round.InsuranceDecided: ("amount",),
    Round.InsuranceSettled: ("amount",),
    Round.BankCovered: ("amount",),
    Round.HandSettled: ("player", "from_bank_cover"),
}
DIVISION = "VU-21"


def money_changed(event: Any, changed: list[str]) -> list[str]:
    """The fields among ``changed`` that bear on money in an event of ``event``'s class."""
    fields = MONEY_FIELDS.get(type(event), ())
    return [k for k in changed if k in fields]


def over_held(event: Any, changed: list[str], recorded: dict, now: dict) -> bool:
    """A division's hold or cover (VU-21), only its amount different, and more in the record
    than today's rules hold: the ledger's older records (README: "four times the stake")."""
    if changed != ["amount"] or not isinstance(event, Round.HoldAdjusted | Round.BankCovered):
        return False
    return recorded["clause"] == DIVISION and 0 < now["amount"] < recorded["amount"]


def cover_released(event: Any, changed: list[str], recorded: dict, now: dict) -> bool:
    """A release of the bank's cover (a negative ``BankCovered``), only its amount different."""
    return (
        isinstance(event, Round.BankCovered)
        and changed == ["amount"]
        and recorded["amount"] < 0
        and now["amount"] < 0
    )


def cover_net(events: list[Any]) -> int:
    """All the bank's cover a round held, less all it released (``BankCovered``)."""
    return sum(e.amount for e in events if isinstance(e, Round.BankCovered))


def concerns(event: Any, fields: dict[str, Any]) -> tuple[str, ...]:
    """The hands whose money an event's difference touches: its hand (and the hand it paid,
    ``to_hand``); the bank's cover is the dealer's."""
    if isinstance(event, Round.BankCovered):
        return (DEALER,)
    hands = [fields.get("hand"), fields.get("to_hand")]
    return tuple(dict.fromkeys(h for h in hands if h))
