"""``replay verify`` holds every round's transfers to the money its own events say moved.

The hash chain is unkeyed: a forger who can write the store rewrites a wallet's stream with
its hashes recomputed, or drops its last events, and every chain still checks out. Each such
edit is named here without a checkpoint, in every family: the round, the account, what the
events say and what the transfers moved, under the clause of the settlement."""

from __future__ import annotations

import dataclasses
import json
import shutil
from uuid import UUID

import pytest
from forgery import forge_stream
from replay_history import FAMILIES, play_history
from store_checks import verified
from tampering import delete_event

from ledger import accounts
from ledger.application import TwentyOneLedger
from ledger.config import store_env as build
from ledger.domain.player import Player
from ledger.domain.round import Round
from ledger.domain.transfers import record_transfer
from replay.__main__ import main
from replay.verify import verify


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Rounds of every family in a SQLite store, verified whole; each test edits a copy."""
    path = tmp_path_factory.mktemp("money") / "played.sqlite3"
    env = _env(path)
    app = TwentyOneLedger(env=env)
    try:
        play_history(app, rounds=3)
        report = verify(app)
    finally:
        app.close()
    assert report.ok, report.text()
    return path


@pytest.fixture
def store(played, tmp_path):
    copy = tmp_path / "ledger.sqlite3"
    shutil.copy(played, copy)
    return _env(copy)


def _env(path) -> dict:
    env = dict(build("sqlite", sqlite_path=str(path), environ={}))
    env["LEDGER_ALLOW_FIXED_SHOES"] = "true"
    return env


def _rounds_started(app: TwentyOneLedger, family: str) -> list[Round.Started]:
    """Every round of ``family`` in the log, as its ``Round.Started``, in order."""
    started = (
        app.mapper.to_domain_event(n)
        for n in app.recorder.select_notifications(start=1, limit=10**6)
        if n.topic.endswith("Round.Started")
    )
    return [r for r in started if r.rules["family"] == family]


def _a_punter(env: dict, family: str) -> tuple[str, list]:
    """A player (not the banker) of the last round of ``family``, and his wallet's events."""
    app = TwentyOneLedger(env=env)
    try:
        last = _rounds_started(app, family)[-1]
        player = str(last.seats[0][1])
        return player, list(app.events.get(UUID(player)))
    finally:
        app.close()


def _money_faults(report) -> list[str]:
    assert not [f for f in report.faults if f.check == "chain"], report.text()
    return [f.problem for f in report.faults if f.check == "money"]


def _last_transfer(events: list) -> Player.FundsTransferred:
    last = events[-1]
    assert isinstance(last, Player.FundsTransferred) and last.round_id, last
    return last


@pytest.mark.parametrize("family", FAMILIES)
def test_a_players_deleted_last_transfer_is_named_without_a_checkpoint(store, family):
    player, events = _a_punter(store, family)
    last = _last_transfer(events)
    delete_event(store["SQLITE_DBNAME"], player, last.originator_version)

    report = verified(store)

    own = last.change(accounts.player(player))
    assert (
        f"round {last.round_id}: player:{player} under {last.clause}: the events say "
    ) in "\n".join(_money_faults(report)), report.text()
    named = next(p for p in _money_faults(report) if f"player:{player} under" in p)
    said, moved = (int(x) for x in _amounts(named))
    assert said - moved == own


@pytest.mark.parametrize("family", FAMILIES)
def test_an_altered_amount_with_its_chain_recomputed_is_named(store, family):
    player, events = _a_punter(store, family)
    last = _last_transfer(events)
    altered = dataclasses.replace(last, amount=last.amount + 7)
    forge_stream(store, player, lambda events: [*events[:-1], altered])

    report = verified(store)

    problems = _money_faults(report)
    named = [p for p in problems if p.startswith(f"round {last.round_id}: player:{player} ")]
    assert len(named) == 1, report.text()
    said, moved = _amounts(named[0])
    assert moved - said == last.change(accounts.player(player)) // last.amount * 7
    assert f"under {last.clause}:" in named[0]
    assert main(["verify"], env=store) == 1


@pytest.mark.parametrize("family", FAMILIES)
def test_a_forged_transfer_from_the_banker_with_its_chain_recomputed_is_named(store, family):
    player, events = _a_punter(store, family)
    last = _last_transfer(events)
    app = TwentyOneLedger(env=store)
    try:
        rnd = app.get_round(last.round_id)
        banker = (
            accounts.house(rnd.table_id) if rnd.dealer == "house" else accounts.player(rnd.dealer)
        )
    finally:
        app.close()
    forged = dataclasses.replace(
        last, from_account=banker, to_account=accounts.player(player), amount=250, memo="won"
    )
    forge_stream(store, player, lambda events: [*events, forged])

    report = verified(store)

    # Nothing else gives it away: the chains hold, the balances sum to zero, no escrow moved.
    assert {f.check for f in report.faults} == {"money"}, report.text()
    # Its round had ended with its books balanced: the forged transfer opens them again, and
    # both accounts it moved are named at it, each 250 off what the events say.
    assert (report.first.stream, report.first.version) == (player, len(events) + 1)
    off = {}
    for fault in report.faults:
        said, moved = _amounts(fault.problem)
        account = fault.problem.split(": ")[1].split(" under ")[0]
        off[account] = moved - said
        assert fault.problem.startswith(f"round {last.round_id}: ")
        assert (fault.stream, fault.version) == (player, len(events) + 1)
    assert off == {banker: -250, f"player:{player}": 250}, report.text()


def test_a_forged_transfer_in_a_round_in_play_is_named_by_account(memory_env):
    app = TwentyOneLedger(env=memory_env)
    try:
        table = app.open_table("casino", {})["table_id"]
        ann = app.register_player("Ann")["player_id"]
        app.deposit(ann, 10_000)
        app.seat_player(table, ann, 1)
        app.fix_next_shoe(table, ["8H", "TS", "7C", "9D"] + ["2C"] * 10)  # no natural: in play
        rid = app.start_round(table)["round_id"]
        app.place_stake(rid, ann, 500)
        assert not app.get_round(rid).ended
        assert verify(app).ok
        player = app.repository.get(UUID(ann))
        house = accounts.house(table)
        record_transfer(player, house, player.account, 250, "CB-8", "won", rid)
        app.save(player)
        report = verify(app)
    finally:
        app.close()
    assert {f.check for f in report.faults} == {"money"}, report.text()
    assert sorted(f.problem for f in report.faults) == [
        f"round {rid}: {house} under CB-8: the events say +0, the transfers moved -250",
        f"round {rid}: player:{ann} under CB-8: the events say +0, the transfers moved +250",
    ]


def _amounts(problem: str) -> tuple[int, int]:
    said = problem.split("the events say ")[1].split(",")[0]
    moved = problem.split("the transfers moved ")[1]
    return int(said), int(moved)


def test_a_casino_players_dropped_winnings_passed_before(store):
    """The gap the checks had: a casino win's last leg (house to player) touches no escrow,
    so dropping it left every balance summing to zero and every chain whole."""
    player, events = _a_punter(store, "casino")
    wins = [
        e
        for e in events
        if isinstance(e, Player.FundsTransferred) and e.from_account.startswith("house:")
    ]
    assert wins, "no casino win to drop"
    kept = [e for e in events if e is not wins[-1]]
    forge_stream(store, player, lambda _: kept)

    report = verified(store)

    # The money names it on any store; SQLite's positions show the hole the forger left too.
    assert {f.check for f in report.faults} == {"money", "positions"}, report.text()
    assert report.first.problem == (
        f"round {wins[-1].round_id}: player:{player} under {wins[-1].clause}: the events say "
        f"{_said(store, wins[-1].round_id, player, wins[-1].clause):+d}, the transfers moved "
        f"{_said(store, wins[-1].round_id, player, wins[-1].clause) - wins[-1].amount:+d}"
    )
    out_json = main(["verify", "--json"], env=store)
    assert out_json == 1


def _said(env: dict, rid: str, player: str, clause: str) -> int:
    """What the round's settlements under ``clause`` gave the player (its events only)."""
    app = TwentyOneLedger(env=env)
    try:
        events = list(app.events.get(UUID(rid)))
    finally:
        app.close()
    held: dict[str, int] = {}
    total = 0
    for e in events:
        if isinstance(e, Round.StakePlaced | Round.StakeRaised):
            held[e.hand] = held.get(e.hand, 0) + e.held
        if isinstance(e, Round.HandSettled) and e.player == player and e.clauses[0] == clause:
            total += held.get(e.hand, 0) + e.amount
    return total


def _ann_deals_to_bob(app: TwentyOneLedger, table: str) -> tuple[str, str]:
    """Ann and Bob, funded and seated at ``table`` (Vingt-un), Ann dealing."""
    ann, bob = (app.register_player(n)["player_id"] for n in ("Ann", "Bob"))
    for seat, pid in enumerate((ann, bob), start=1):
        app.deposit(pid, 10_000)
        app.seat_player(table, pid, seat)
    app.choose_dealer(table, ann)
    return ann, bob


def test_a_deal_sales_dropped_payment_to_the_seller_is_named(tmp_path):
    env = _env(tmp_path / "sale.sqlite3")
    app = TwentyOneLedger(env=env)
    try:
        table = app.open_table("vingt-un", {"pool_ante": 5})["table_id"]
        ann, bob = _ann_deals_to_bob(app, table)
        app.offer_deal(table, ann, bob, 300)
        app.accept_deal(table, bob, 300)
        assert verify(app).ok
        seller = list(app.events.get(UUID(ann)))
    finally:
        app.close()
    sold = seller[-1]
    assert isinstance(sold, Player.FundsTransferred) and sold.clause == "VU-31"
    delete_event(env["SQLITE_DBNAME"], ann, sold.originator_version)

    report = verified(env)

    assert sorted(f.problem for f in report.faults) == [
        f"table {table}'s deal sales (VU-31): deal-sale:{table} under VU-31: the events say +0, "
        "the transfers moved +300",
        f"table {table}'s deal sales (VU-31): player:{ann} under VU-31: the events say +300, "
        "the transfers moved +0",
    ]


def test_a_forged_pool_payout_is_named(tmp_path):
    env = _env(tmp_path / "pool.sqlite3")
    app = TwentyOneLedger(env=env)
    try:
        table_id = app.open_table("vingt-un", {"pool_ante": 50})["table_id"]
        ann, bob = _ann_deals_to_bob(app, table_id)
        app.start_round(table_id, actor=ann)  # Bob's ante: 50 in the pool
        app.pay_from_pool(table_id, bob, 20, "a round of drinks")
        assert verify(app).ok
        table = app.repository.get(UUID(table_id))
        payout = accounts.pool_payout(table_id)
        record_transfer(table, table.pool_account, payout, 30, "VU-28", "pool payout: more")
        player = app.repository.get(UUID(bob))
        record_transfer(player, payout, player.account, 30, "VU-28", "pool payout: more")
        app.save(table, player)
        report = verify(app)
    finally:
        app.close()

    assert [(f.stream, f.problem) for f in report.faults] == [
        (
            table_id,
            f"table {table_id}'s pool payouts (VU-28): pool:{table_id} under VU-28: the events "
            "say -20, the transfers moved -50",
        ),
        (
            bob,
            f"table {table_id}'s pool payouts (VU-28): player:{bob} under VU-28: the events say "
            "+20, the transfers moved +50",
        ),
    ]
    assert json.dumps(report.to_dict())


def _stand_throughout(rnd: Round, hand: str | None) -> dict:
    if hand is not None:
        return {"action": "stand", "hand": hand}
    if rnd.phase == "dealer_double":
        return {"action": "dealer_double", "called": False}
    return {"action": "dealer_stand"}


def test_an_ante_taken_once_a_deal_passes_and_a_forged_ante_in_its_later_round_is_named(tmp_path):
    """VU-27 (a) with ``ante_each`` "deal": the second round of Ann's deal took no ante, and
    verify reads that from the round's ``round_of_deal``, not as an ante gone missing; an ante
    forged into that round (both legs, each stream's hashes recomputed) is named."""
    env = _env(tmp_path / "ante.sqlite3")
    app = TwentyOneLedger(env=env)
    try:
        options = {"pool_ante": 50, "ante_each": "deal"}
        table_id = app.open_table("vingt-un", options)["table_id"]
        ann, bob = _ann_deals_to_bob(app, table_id)
        # No natural in any of the three rounds (Bob's cards first): none passes the deal.
        app.fix_next_shoe(table_id, ["TC", "9C", "8D", "8H"] * 4)
        first, second = (
            app.play_round(table_id, {bob: 100}, _stand_throughout, actor=ann)["round_id"]
            for _ in range(2)
        )
        assert [app.get_round(r).round_of_deal for r in (first, second)] == [1, 2]
        assert app.get_table(table_id).pool == 50  # Bob's one ante
        report = verify(app)
        assert report.ok, report.text()

        third = app.start_round(table_id, actor=ann)["round_id"]
        # Forged while the round is in play (a transfer naming an ended round is named
        # anyway): both legs as the game writes an ante, each stream's hashes kept.
        escrow = accounts.escrow(third)
        table = app.repository.get(UUID(table_id))
        record_transfer(table, escrow, table.pool_account, 50, "VU-27", "ante", third)
        player = app.repository.get(UUID(bob))
        record_transfer(player, player.account, escrow, 50, "VU-27", "ante", third)
        app.save(table, player)
        app.place_stake(third, bob, 100)
        app.act(third, "dealer_double", actor=ann, called=False)
        app.act(third, "stand", actor=bob, hand="h1")
        app.act(third, "dealer_stand", actor=ann)
        assert app.get_round(third).round_of_deal == 3
        report = verify(app)
    finally:
        app.close()

    assert sorted(f.problem for f in report.faults) == sorted(
        f"round {third}: {account} under VU-27: the events say +0, the transfers moved {moved}"
        for account, moved in ((f"player:{bob}", "-50"), (f"pool:{table_id}", "+50"))
    )


def _a_settlement(env: dict, family: str) -> tuple[str, list, int]:
    """The last round of ``family`` with a hand settled for money: its id, its events and the
    index of that ``HandSettled`` among them."""
    app = TwentyOneLedger(env=env)
    try:
        for begun in reversed(_rounds_started(app, family)):
            events = list(app.events.get(begun.originator_id))
            for index, event in enumerate(events):
                if isinstance(event, Round.HandSettled) and event.amount:
                    return str(begun.originator_id), events, index
    finally:
        app.close()
    raise AssertionError(f"no {family} hand settled for money")


@pytest.mark.parametrize("family", FAMILIES)
def test_a_settlement_whose_own_arithmetic_is_wrong_is_named(store, family):
    """A ``HandSettled`` rewritten to read another multiplier, its amount and every transfer
    left as they were and its round's chain recomputed: the money still balances, but the
    event no longer says what its stake times its multiplier comes to."""
    rid, events, index = _a_settlement(store, family)
    settled = events[index]
    claimed = "7" if settled.multiplier != "7" else "8"
    forged = dataclasses.replace(settled, multiplier=claimed)
    forge_stream(store, rid, lambda events: [*events[:index], forged, *events[index + 1 :]])

    report = verified(store)

    assert not [f for f in report.faults if f.check == "chain"], report.text()
    named = [f.problem for f in report.faults if f"round {rid}: hand " in f.problem]
    assert len(named) == 1, report.text()
    assert named[0].startswith(
        f"round {rid}: hand {settled.hand} was settled {settled.amount} ({settled.rounding}), "
        f"but its stake {settled.stake} × {claimed}, rounded "
    ), named[0]
    assert named[0].endswith(f"is {settled.stake * int(claimed)} (none)"), named[0]
    assert main(["verify"], env=store) == 1


def test_a_settlement_is_held_to_its_tables_rounding():
    """The auditor's case: 1001 at 3:2, rounded down, is 1501; a settlement that says so but
    pays 2002 is named, and half of 1001 surrendered is -501 (the odd unit to the house)."""
    from ledger.rules import rules_from_record
    from replay.round_money import settlement_problem

    rules = rules_from_record({"family": "casino", "rounding": "down"})

    def event(amount, multiplier, rounding):
        made = object.__new__(Round.HandSettled)  # only the fields the check reads
        vars(made).update(hand="h1", stake=1001, multiplier=multiplier, amount=amount)
        vars(made).update(rounding=rounding)
        return made

    assert settlement_problem(event(1501, "3/2", "down: 3003/2 -> 1501"), rules) is None
    assert settlement_problem(event(-501, "-1/2", "down: -1001/2 -> -501"), rules) is None
    assert settlement_problem(event(2002, "2", "none"), rules) is None
    assert settlement_problem(event(2002, "3/2", "down: 3003/2 -> 1501"), rules) == (
        "hand h1 was settled 2002 (down: 3003/2 -> 1501), but its stake 1001 × 3/2, rounded "
        "down as its table's rules say, is 1501 (down: 3003/2 -> 1501)"
    )
    assert "is 1502" in settlement_problem(
        event(1501, "3/2", "down: 3003/2 -> 1501"),
        (rules_from_record({"family": "casino", "rounding": "up"})),
    )
    assert "is not a fraction" in settlement_problem(event(1, "x", "none"), rules)
