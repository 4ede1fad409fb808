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
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from ledger.application import TwentyOneLedger
from ledger.config import store_env
from ledger.domain.chain import event_fields
from ledger.domain.round import DEALER, DEALER_HANDS, Round
from ledger.errors import LedgerError
from ledger.given_by import given_by
from replay.damage import read_stream
from replay.rederivation import Rederivation, compare_settlements, settlement
from replay.rederive_money import concerns, cover_net, cover_released, money_changed, over_held
from replay.side_payments import released

FUNDS = 10**12  # every stand-in's deposit: no recorded stake can be refused for money
# Left out of the comparison: burns and shoe changes (a fixed shoe has none), the round's
# own transfers (escrow to house or pool), whose number follows from the settlements compared,
# and who gave a command for its actor (an admin's key, ``ActedFor``): not a step of play.
SKIPPED = (Round.CardBurned, Round.ShoeReplaced, Round.FundsTransferred, Round.ActedFor)
# Compared apart (``penalty_cover``), as the Hoyle releases are (``released_after_deal``).
PENALTY_COVER_CLAUSES = ("VU-26", "VU-27")
NOT_COMPARED = frozenset(
    {"originator_id", "originator_version", "timestamp", "hash", "prev_hash", "shoe", "shoe_index"}
)


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
    replay = _Replay(fresh, started, family, rules, recorded, result)
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


class _Replay:
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
        self.recorded = [e for e in recorded if not _left_out(e)]
        self.releases = [e for e in recorded if released_after_deal(e)]
        self.penalty_cover = [e for e in recorded if penalty_cover(e)]
        self.result = result
        # Cards recorded with another actor and nothing else changed (see ``compare``).
        self.dealt_by_caller: list[str] = []
        # Differences in the bank's cover weighed once the walk is done (``weigh_cover``).
        self.cover_differences: list[str] = []
        self.ids: dict[str, str] = {}
        self.round_id = ""

    # -- the stand-in table -------------------------------------------------------------

    def set_up(self) -> None:
        app, started = self.app, self.started
        players = [str(p) for _, p in started.seats]
        house = started.dealer == "house"
        for pid in players + ([] if house else [started.dealer]):
            self.ids[pid] = app.register_player(f"stand-in {pid[:8]}")["player_id"]
            app.deposit(self.ids[pid], FUNDS)
        table = app.open_table(self.family, self.rules)["table_id"]
        for seat, pid in started.seats:
            app.seat_player(table, self.ids[str(pid)], seat)
        if not house:
            seat = _dealer_seat([s for s, _ in started.seats], self.rules.get("max_players", 7))
            app.seat_player(table, self.ids[started.dealer], seat)
            app.choose_dealer(table, self.ids[started.dealer])
        cards = [e.card for e in self.recorded if isinstance(e, Round.CardDealt)]
        app.fix_next_shoe(table, cards or ["2S"])
        actor = self.ids.get(started.actor, started.actor)
        self.round_id = app.start_round(table, actor=actor)["round_id"]
        self.ids[str(started.originator_id)] = self.round_id
        self.ids[str(started.table_id)] = table

    # -- the walk ----------------------------------------------------------------------------

    def produced(self) -> list[Any]:
        events = self.app.events.get(UUID(self.round_id))
        return [e for e in events if not _left_out(e)]

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
            now = [_release(e) for e in events if which(e)]
            recorded = [self.mapped(_release(e)) for e in kept]
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
                    self.diverge(f"today's rules go on past the record: {_name(produced[i])}")
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
                f"{_name(self.recorded[done])} (v{self.recorded[done].originator_version})"
            )

    def diverge(self, why: str) -> None:
        self.result.diverged = why

    def compare(self, rec: Any, now: Any) -> bool:
        """False when the two no longer describe the same step (the walk cannot go on)."""
        where = f"v{rec.originator_version} {_name(rec)}"
        if _name(rec) != _name(now):
            self.diverge(f"at {where} today's rules record {_name(now)} instead")
            return False
        a = {k: self.mapped(v) for k, v in event_fields(rec).items() if k not in NOT_COMPARED}
        b = {k: v for k, v in event_fields(now).items() if k not in NOT_COMPARED}
        if a.get("hand") != b.get("hand") or a.get("card") != b.get("card"):
            self.diverge(f"at {where}: recorded {_brief(a)}, rederived {_brief(b)}")
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
        command = self.command_for(j, event)
        if command is None:
            self.diverge(
                f"v{event.originator_version} {_name(event)} follows from no decision today's "
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

    def command_for(self, j: int, e: Any) -> tuple[str, dict[str, Any]] | None:
        rnd = self.app.get_round(self.round_id)
        dealer = self.ids.get(self.started.dealer, "admin")

        def owner(hand: str) -> str:
            return rnd.hands[hand]["player"] if hand in rnd.hands else dealer

        if isinstance(e, Round.StakePlaced):
            return "place_stake", {"player_id": self.ids[e.player], "amount": e.amount}
        if isinstance(e, Round.HandSplit):
            amount = None
            if self.family == "vingt-un":
                amount = next(
                    (
                        x.amount
                        for x in self.recorded[j:]
                        if isinstance(x, Round.StakePlaced) and x.hand == e.new_hand
                    ),
                    None,
                )
            return "split", {"actor": owner(e.hand), "hand": e.hand, "amount": amount}
        if isinstance(e, Round.StakeRaised) and e.reason == "double_down":
            return "double_down", {"actor": owner(e.hand), "hand": e.hand}
        if isinstance(e, Round.DealerDoubleCalled):
            return "dealer_double", {"actor": dealer, "called": e.called}
        if isinstance(e, Round.CardDealt):
            if e.clause == "VU-23":
                return "serve_two", {"actor": dealer, "hand": e.hand}
            if e.clause == "VU-24":
                return "serve_out_of_order", {"actor": dealer, "hand": e.hand}
            if e.hand in DEALER_HANDS:
                return "dealer_draw", {"actor": dealer}
            if e.drawn:
                return "hit", {"actor": owner(e.hand), "hand": e.hand}
            return None
        if isinstance(e, Round.HandStood):
            if e.hand in DEALER_HANDS:
                return "dealer_stand", {"actor": dealer}
            return "stand", {"actor": owner(e.hand), "hand": e.hand}
        if isinstance(e, Round.AceValueChosen):
            hand = None if e.hand == DEALER else e.hand
            return "ace_value", {
                "actor": owner(e.hand),
                "hand": hand,
                "index": e.index,
                "value": e.value,
            }
        if isinstance(e, Round.InsuranceDecided):
            return "insurance", {"actor": owner(e.hand), "hand": e.hand, "amount": e.amount}
        if isinstance(e, Round.Surrendered):
            return "surrender", {"actor": owner(e.hand), "hand": e.hand}
        if isinstance(e, Round.IrregularityRecorded) and e.kind == "throw_up":
            return "throw_up", {"actor": owner(e.hand), "hand": e.hand}
        if isinstance(e, Round.IrregularityRecorded) and e.kind == "false_division":
            return "false_division", {"actor": dealer, "hand": e.hand}
        if isinstance(e, Round.TwoCardsResolved):
            if e.rejected:
                return "reject", {"actor": owner(e.hand), "hand": e.hand, "card": e.rejected}
            return "take", {"actor": owner(e.hand), "hand": e.hand}
        # The dealer's division (VU-21) records each live stake's grown hold before it.
        if isinstance(e, Round.DealerDivided) or (
            isinstance(e, Round.HoldAdjusted) and e.clause == "VU-21"
        ):
            return "dealer_split", {"actor": dealer}
        return None


def penalty_cover(event: Any) -> bool:
    """The Vingt-un dealer's cover held for his over-draw penalty (VU-27 b) or released to
    pay a penalty or the share of his tie receipts (VU-26, VU-27 b, c): a round recorded
    before the ledger paid these from the cover has none, and differs from today's rules in
    that alone."""
    return isinstance(event, Round.BankCovered) and event.clause in PENALTY_COVER_CLAUSES


def released_after_deal(event: Any) -> bool:
    """A hold (H13-5) or bank cover (H13-6) released once Hoyle's naturals are settled."""
    if isinstance(event, Round.HoldAdjusted):
        return event.clause == "H13-5" and released(event)
    if isinstance(event, Round.BankCovered):
        return event.clause == "H13-6" and event.amount < 0
    return False


def _left_out(event: Any) -> bool:
    return isinstance(event, SKIPPED) or released_after_deal(event) or penalty_cover(event)


def _release(event: Any) -> list[Any]:
    return [_name(event), getattr(event, "hand", "(bank)"), event.amount, event.clause]


def _name(event: Any) -> str:
    return type(event).__qualname__


def _brief(fields: dict[str, Any]) -> str:
    return ", ".join(f"{k} {fields[k]}" for k in ("hand", "card") if fields.get(k) is not None)


def _dealer_seat(play_order: list[int], max_players: int) -> int:
    """A free seat from which the order of play (from the dealer's left, ascending seats
    after his, then round) is ``play_order``."""
    taken = set(play_order)
    for seat in range(1, max_players + 1):
        if seat in taken:
            continue
        order = sorted(s for s in taken if s > seat) + sorted(s for s in taken if s <= seat)
        if order == play_order:
            return seat
    return next(s for s in range(1, max_players + 2) if s not in taken)
