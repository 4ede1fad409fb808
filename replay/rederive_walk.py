"""The walk of a rederivation (``replay.rederive``): at the stand-in table
(``replay.rederive_stand_ins``), each recorded event that a decision produced is issued again
as that command (``replay.rederive_commands``), and the events today's rules produce are
compared with the recorded ones position by position (player, round and table ids mapped),
leaving out and comparing apart what ``replay.rederive_scope`` says. A difference in a
money-bearing field (``replay.rederive_money``) makes the round differ as a settlement's does,
but for those the ledger's older records are known to show; the rest are named in
``event_differences``."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from ledger.application import TwentyOneLedger
from ledger.domain.chain import event_fields
from ledger.domain.hands import DEALER
from ledger.domain.round import Round
from ledger.errors import LedgerError
from replay.rederivation import Rederivation
from replay.rederive_commands import command_for
from replay.rederive_money import concerns, cover_net, cover_released, money_changed, over_held
from replay.rederive_scope import (
    NOT_COMPARED,
    brief,
    event_name,
    left_out,
    penalty_cover,
    release,
    released_after_deal,
)
from replay.rederive_stand_ins import stand_in_round


class RoundReplay:
    """One round's walk at its stand-in table: the recorded decisions issued again, the
    events today's rules produce compared with the record's, and what differs noted in
    ``result``."""

    def __init__(
        self,
        app: TwentyOneLedger,
        started: Any,
        family: str,
        rules: dict[str, Any],
        recorded: list[Any],
        result: Rederivation,
    ) -> None:
        self.app = app
        self.started = started
        self.family = family
        self.rules = rules
        self.everything = recorded
        self.recorded = [e for e in recorded if not left_out(e)]
        self.releases = [e for e in recorded if released_after_deal(e)]
        self.penalty_cover = [e for e in recorded if penalty_cover(e)]
        self.result = result
        # Cards recorded with another actor and nothing else changed (see ``compare``).
        self.dealt_by_caller: list[str] = []
        # Differences in the bank's cover weighed once the walk is done (``weigh_cover``).
        self.cover_differences: list[str] = []
        self.ids: dict[str, str] = {}
        self.round_id = ""

    def set_up(self) -> None:
        self.round_id, self.ids = stand_in_round(
            self.app, self.started, self.family, self.rules, self.recorded
        )

    # -- the walk ----------------------------------------------------------------------------

    def produced(self) -> list[Any]:
        events = self.app.events.get(UUID(self.round_id))
        return [e for e in events if not left_out(e)]

    def compare_releases(self) -> None:
        """The holds and cover released after the deal (H13-5, H13-6), and the Vingt-un
        dealer's cover for his payments into the pool (VU-26, VU-27 b, c), compared apart: a
        round recorded before the ledger released them, or held and paid these from the cover,
        differs from today's rules in that alone, not in a step of play or a settlement."""
        events = list(self.app.events.get(UUID(self.round_id)))
        for what, which, kept in (
            ("released after the deal", released_after_deal, self.releases),
            ("the dealer's penalty cover", penalty_cover, self.penalty_cover),
        ):
            now = [release(e) for e in events if which(e)]
            recorded = [self.mapped(release(e)) for e in kept]
            if now == recorded:
                continue
            line = f"{what}: recorded {recorded}, now {now}"
            if recorded:  # other releases than today's: no older record's difference
                hands = (DEALER if r[1] == "(bank)" else r[1] for r in recorded + now)
                self.result.add_difference(line, tuple(dict.fromkeys(hands)))
            else:  # recorded before the ledger made them
                self.result.event_differences.append(line)

    def weigh_cover(self) -> None:
        """The releases of the bank's cover that differ (and a division's larger cover): as
        the ledger's older records show them when the round's cover nets the same in the
        record and today (``replay.rederive_money``), else differences."""
        if not self.cover_differences:
            return
        now = list(self.app.events.get(UUID(self.round_id)))
        if cover_net(now) == cover_net(self.everything):
            self.result.event_differences.extend(self.cover_differences)
        else:
            for line in self.cover_differences:
                self.result.add_difference(line, (DEALER,))

    def legacy_dealt(self, recorded: dict[str, Any], now: dict[str, Any]) -> bool:
        """Whether a card's actor differs as the ledger's older records differ: today the
        round's dealer deals it, where a player of the round (whoever's command dealt it) was
        recorded. Any other actor is a plain difference."""
        rnd = self.app.get_round(self.round_id)
        callers = {hand["player"] for hand in rnd.hands.values()} | {"admin"}
        return now.get("actor") == rnd.dealer and recorded.get("actor") in callers

    def name_card_actors(self) -> None:
        """Cards whose actor alone differs, named in one line: a round recorded before the
        ledger named the dealer as the actor of the cards he deals named whoever's command
        dealt them (the last stake, the last stand); the play is the same."""
        if self.dealt_by_caller:
            self.result.event_differences.append(
                f"cards dealt ({len(self.dealt_by_caller)}: "
                f"{', '.join(self.dealt_by_caller)}): the actor recorded is the command's "
                "caller, as the ledger recorded cards before it named the dealer; now the dealer"
            )

    def run(self) -> None:
        self.set_up()
        done = 1  # the Started events are not compared: ids, numbers and shoes differ
        while True:
            produced = self.produced()
            for i in range(done, len(produced)):
                if i >= len(self.recorded):
                    self.diverge(f"today's rules go on past the record: {event_name(produced[i])}")
                    return
                if not self.compare(self.recorded[i], produced[i]):
                    return
            done = len(produced)
            if produced[-1].__class__ is Round.Ended or done >= len(self.recorded):
                break
            if not self.decide(done):
                return
        if done < len(self.recorded):
            self.diverge(
                f"the rederived round ended at event {done}; the record goes on with "
                f"{event_name(self.recorded[done])} (v{self.recorded[done].originator_version})"
            )

    def diverge(self, why: str) -> None:
        self.result.diverged = why

    def compare(self, rec: Any, now: Any) -> bool:
        """False when the two no longer describe the same step (the walk cannot go on)."""
        where = f"v{rec.originator_version} {event_name(rec)}"
        if event_name(rec) != event_name(now):
            self.diverge(f"at {where} today's rules record {event_name(now)} instead")
            return False
        a = {k: self.mapped(v) for k, v in event_fields(rec).items() if k not in NOT_COMPARED}
        b = {k: v for k, v in event_fields(now).items() if k not in NOT_COMPARED}
        if a.get("hand") != b.get("hand") or a.get("card") != b.get("card"):
            self.diverge(f"at {where}: recorded {brief(a)}, rederived {brief(b)}")
            return False
        changed = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
        if isinstance(rec, Round.HandSettled):
            # Compared in full, hand by hand, afterwards; here whom it pays, and from where.
            changed = money_changed(rec, changed)
        if changed == ["actor"] and isinstance(rec, Round.CardDealt) and self.legacy_dealt(a, b):
            self.dealt_by_caller.append(f"v{rec.originator_version}")
            return True
        if changed:
            self.differs(rec, where, a, b, changed)
        return True

    def differs(self, rec: Any, where: str, a: dict, b: dict, changed: list[str]) -> None:
        """A recorded event and today's differ in ``changed``: a difference of the round when
        one of them bears on money, but as the ledger's older records differ."""
        line = f"{where}: " + "; ".join(
            f"{k} recorded {self.unmapped(a.get(k))!r}, now {self.unmapped(b.get(k))!r}"
            for k in changed
        )
        if not money_changed(rec, changed):
            self.result.event_differences.append(line)
        elif isinstance(rec, Round.BankCovered) and (
            over_held(rec, changed, a, b) or cover_released(rec, changed, a, b)
        ):
            self.cover_differences.append(line)
        elif over_held(rec, changed, a, b):
            self.result.event_differences.append(line)
        else:
            self.result.add_difference(line, concerns(rec, a))

    def mapped(self, value: Any, back: bool = False) -> Any:
        """``value`` with the record's ids as the stand-ins' (``back``: the other way)."""
        if isinstance(value, UUID):
            value = str(value)
        if isinstance(value, str):
            pairs = [(new, old) for old, new in self.ids.items()] if back else self.ids.items()
            for old, new in pairs:
                if old in value:
                    value = value.replace(old, new)
            return value
        if isinstance(value, list):
            return [self.mapped(v, back) for v in value]
        return value

    def unmapped(self, value: Any) -> Any:
        """As the record names it: a stand-in's id is its player's (or the round's, the
        table's), so a difference reads the same on every run."""
        return self.mapped(value, back=True)

    # -- decisions ----------------------------------------------------------------------------

    def decide(self, at: int) -> bool:
        """Issue the command that produced the recorded event ``at`` (transfers skipped)."""
        j = at
        while j < len(self.recorded) and isinstance(self.recorded[j], Round.FundsTransferred):
            j += 1
        if j >= len(self.recorded):
            self.diverge("the record ends in transfers that no decision explains")
            return False
        event = self.recorded[j]
        rnd = self.app.get_round(self.round_id)
        dealer = self.ids.get(self.started.dealer, "admin")
        command = command_for(self.recorded, j, rnd, dealer, self.ids, self.family)
        if command is None:
            self.diverge(
                f"v{event.originator_version} {event_name(event)} follows from no decision today's "
                "rules wait for"
            )
            return False
        name, kwargs = command
        try:
            if name == "place_stake":
                self.app.place_stake(self.round_id, **kwargs)
            else:
                self.app.act(self.round_id, name, **kwargs)
        except LedgerError as error:
            clause = f" ({error.clause})" if getattr(error, "clause", None) else ""
            self.diverge(
                f"today's rules refuse the recorded {name} (v{event.originator_version}): "
                f"{error}{clause}"
            )
            return False
        self.result.decisions += 1
        return True
