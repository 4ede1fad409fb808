"""Real races on PostgreSQL: threads, each with its OWN application object on the same store,
released together by a barrier, send commands that cannot both apply. Exactly one applies;
the other is told ``ConcurrentUpdate`` (it read the old version) or a domain error (it read
the new one). The store then shows one result, every hash chain verifies and the money sums
to zero. Each race is run several times so that both ways of losing actually happen.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest

from ledger import accounts
from ledger.application import TwentyOneLedger
from ledger.balances import fold_balances
from ledger.domain.chain import verify_chain
from ledger.domain.round import Round
from ledger.domain.shoe import Shoe
from ledger.errors import ConcurrentUpdate, LedgerError
from ledger.vault import sealed_id

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.parametrize("store_env", ["postgres"], indirect=True),
]

REPEATS = 6
STAKE = 1_000
# Ann 5+6 (eleven), the dealer 9 up and 8 in the hole; Ann's hit would bring the ten: 21.
SHOE = ["5H", "9S", "6H", "8D", "TC", "2C", "3D", "4H", "2D", "3H", "4S", "7C", "7D"]


class Racers:
    """An admin application that sets the scene, and one application per racing thread."""

    def __init__(self, env: dict[str, str], threads: int = 2) -> None:
        self.admin = TwentyOneLedger(env=env)
        self.apps = [TwentyOneLedger(env=env) for _ in range(threads)]
        self.losses: Counter[str] = Counter()

    def close(self) -> None:
        for app in [self.admin, *self.apps]:
            app.close()

    def race(self, *commands: Callable[[TwentyOneLedger], Any]) -> list[tuple[str, Any]]:
        """Run command i on application i in its own thread, all released at once."""
        barrier = threading.Barrier(len(commands))
        outcomes: list[tuple[str, Any]] = [("missing", None)] * len(commands)

        def run(i: int) -> None:
            app = self.apps[i]
            try:
                barrier.wait(timeout=10)
                outcomes[i] = ("applied", commands[i](app))
            except Exception as error:  # noqa: BLE001 - judged below, whatever it is
                outcomes[i] = ("refused", error)

        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(commands))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
            assert not thread.is_alive(), "a racing command hung"
        return outcomes

    def one_applied(self, outcomes: list[tuple[str, Any]]) -> int:
        """Exactly one outcome applied; every other lost the race the way the ledger promises.
        Returns the index of the winner."""
        winners = [i for i, (kind, _) in enumerate(outcomes) if kind == "applied"]
        assert len(winners) == 1, f"expected exactly one command to apply: {outcomes}"
        for kind, error in outcomes:
            if kind == "refused":
                assert isinstance(error, LedgerError), f"lost with a raw {error!r}"
                self.losses["concurrent" if isinstance(error, ConcurrentUpdate) else "domain"] += 1
        return winners[0]

    def check_store(self) -> None:
        """Read by the admin application: the books balance and every chain verifies."""
        app = self.admin
        balances = fold_balances(app)
        assert sum(balances.values()) == 0
        for account, balance in balances.items():
            if account.startswith("player:"):
                assert balance >= 0, f"{account} below zero: {balance}"
                assert app.get_player(account.removeprefix("player:")).balance == balance
        streams = dict.fromkeys(
            n.originator_id for n in app.recorder.select_notifications(start=1, limit=10**6)
        )
        for stream in streams:
            ok, fault = verify_chain(app.events.get(stream))
            assert ok, fault

    def casino_round(self, players: list[str], *, stakes: bool = True) -> tuple[str, str]:
        """A fresh table (its own fixed shoe) with ``players`` seated; staked and dealt
        unless ``stakes`` is false."""
        app = self.admin
        table = app.open_table("casino", {"insurance": False})["table_id"]
        for seat, pid in enumerate(players, start=1):
            app.seat_player(table, pid, seat)
        app.fix_next_shoe(table, SHOE)
        rid = app.start_round(table)["round_id"]
        if stakes:
            for pid in players:
                app.place_stake(rid, pid, STAKE)
        return table, rid

    def player(self, name: str, amount: int) -> str:
        pid = self.admin.register_player(name)["player_id"]
        if amount:
            self.admin.deposit(pid, amount)
        return pid


@pytest.fixture
def racers(store_env):
    racers = Racers(store_env)
    yield racers
    racers.close()


def dealt(app: TwentyOneLedger, rid: str) -> list[Any]:
    return [e for e in app.events.get(UUID(rid)) if isinstance(e, Round.CardDealt)]


def test_hit_against_stand_on_one_hand_applies_exactly_one(racers):
    """The hit brings 21 (the hand stands by itself), so after either command the other is
    illegal: whichever wins, the loser must not also apply."""
    ann = racers.player("Ann", 10 * REPEATS * STAKE)
    balance = racers.admin.get_player(ann).balance
    for _ in range(REPEATS):
        _table, rid = racers.casino_round([ann])
        assert racers.admin.get_round(rid).current_turn() == "h1"

        outcomes = racers.race(
            lambda app, rid=rid: app.act(rid, "hit", actor=ann, hand="h1"),
            lambda app, rid=rid: app.act(rid, "stand", actor=ann, hand="h1"),
        )
        winner = racers.one_applied(outcomes)

        rnd = racers.admin.get_round(rid)
        assert rnd.ended
        hand = rnd.hands["h1"]
        stood = [
            e
            for e in racers.admin.events.get(UUID(rid))
            if isinstance(e, Round.HandStood) and e.hand == "h1"
        ]
        assert len(stood) == 1
        if winner == 0:  # the hit: 5+6+T = 21 against the dealer's 17
            assert hand["cards"] == ["5H", "6H", "TC"] and hand["result"] == STAKE
        else:  # the stand: 11 against 17
            assert hand["cards"] == ["5H", "6H"] and hand["result"] == -STAKE
        assert [e.shoe_index for e in dealt(racers.admin, rid)] == list(
            range(len(dealt(racers.admin, rid)))
        )
        balance += hand["result"]
        assert racers.admin.get_player(ann).balance == balance
        assert fold_balances(racers.admin).get(accounts.escrow(rid), 0) == 0
        racers.check_store()
    assert sum(racers.losses.values()) == REPEATS


def test_two_double_downs_on_one_hand_apply_once(racers):
    ann = racers.player("Ann", 10 * REPEATS * STAKE)
    balance = racers.admin.get_player(ann).balance
    for _ in range(REPEATS):
        _table, rid = racers.casino_round([ann])

        outcomes = racers.race(
            lambda app, rid=rid: app.act(rid, "double_down", actor=ann, hand="h1"),
            lambda app, rid=rid: app.act(rid, "double_down", actor=ann, hand="h1"),
        )
        racers.one_applied(outcomes)

        rnd = racers.admin.get_round(rid)
        hand = rnd.hands["h1"]
        assert rnd.ended and hand["doubled"]
        assert hand["stake"] == 2 * STAKE  # doubled once, not twice
        assert hand["cards"] == ["5H", "6H", "TC"] and hand["result"] == 2 * STAKE
        balance += 2 * STAKE
        assert racers.admin.get_player(ann).balance == balance
        racers.check_store()


def test_one_player_staking_twice_at_once_stakes_once(racers):
    ann = racers.player("Ann", 10 * REPEATS * STAKE)
    bob = racers.player("Bob", 10 * REPEATS * STAKE)
    for _ in range(REPEATS):
        _table, rid = racers.casino_round([ann, bob], stakes=False)
        racers.admin.place_stake(rid, bob, STAKE)
        before = racers.admin.get_player(ann).balance

        outcomes = racers.race(
            lambda app, rid=rid: app.place_stake(rid, ann, STAKE),
            lambda app, rid=rid: app.place_stake(rid, ann, STAKE),
        )
        racers.one_applied(outcomes)

        rnd = racers.admin.get_round(rid)
        assert rnd.hands["h1"]["stake"] == STAKE
        assert racers.admin.get_player(ann).balance == before - STAKE
        assert rnd.phase == "play"  # the deal happened once, when the last stake came in
        assert [e.shoe_index for e in dealt(racers.admin, rid)] == list(range(6))
        racers.check_store()


def test_two_players_staking_at_once_each_stake_once_and_the_deal_happens_once(racers):
    """Two different stakes on one round may both be legal; if they collide the loser is told
    ConcurrentUpdate, and retrying it gives what a sequential run gives."""
    ann = racers.player("Ann", 10 * REPEATS * STAKE)
    bob = racers.player("Bob", 10 * REPEATS * STAKE)
    collided = 0
    for _ in range(REPEATS):
        _table, rid = racers.casino_round([ann, bob], stakes=False)
        players = [ann, bob]

        outcomes = racers.race(
            lambda app, rid=rid: app.place_stake(rid, ann, STAKE),
            lambda app, rid=rid: app.place_stake(rid, bob, STAKE),
        )
        for i, (kind, error) in enumerate(outcomes):
            if kind == "refused":
                assert isinstance(error, ConcurrentUpdate), repr(error)
                collided += 1
                racers.admin.place_stake(rid, players[i], STAKE)  # the retry
        rnd = racers.admin.get_round(rid)
        assert [rnd.hands[h]["stake"] for h in ("h1", "h2")] == [STAKE, STAKE]
        events = dealt(racers.admin, rid)
        assert [(e.hand, e.card) for e in events] == [
            ("h1", "5H"),
            ("h2", "9S"),
            ("dealer", "6H"),
            ("h1", "8D"),
            ("h2", "TC"),
            ("dealer", "2C"),
        ]
        racers.check_store()


def test_a_stake_and_a_withdrawal_racing_for_the_same_money_apply_once(racers):
    """Ann holds exactly one stake: the stake (round + wallet) and the withdrawal (wallet)
    cannot both have it."""
    for n in range(REPEATS):
        ann = racers.player(f"Ann {n}", STAKE)
        bob = racers.player(f"Bob {n}", 10 * STAKE)
        _table, rid = racers.casino_round([ann, bob], stakes=False)
        racers.admin.place_stake(rid, bob, STAKE)

        outcomes = racers.race(
            lambda app, rid=rid, ann=ann: app.place_stake(rid, ann, STAKE),
            lambda app, ann=ann: app.withdraw(ann, STAKE),
        )
        winner = racers.one_applied(outcomes)

        rnd = racers.admin.get_round(rid)
        if winner == 0:
            assert rnd.hands["h1"]["stake"] == STAKE and rnd.phase != "betting"
        else:
            assert rnd.hands["h1"]["stake"] == 0 and rnd.phase == "betting"
        assert racers.admin.get_player(ann).balance == 0
        racers.check_store()


def test_two_withdrawals_of_the_whole_balance_pay_out_once(racers):
    for n in range(REPEATS):
        ann = racers.player(f"Ann {n}", 5_000)

        outcomes = racers.race(
            lambda app, ann=ann: app.withdraw(ann, 5_000),
            lambda app, ann=ann: app.withdraw(ann, 5_000),
        )
        racers.one_applied(outcomes)

        assert racers.admin.get_player(ann).balance == 0
        outs = [
            e
            for e in racers.admin.events.get(UUID(ann))
            if getattr(e, "to_account", None) == accounts.CASHIER
        ]
        assert len(outs) == 1
        racers.check_store()


def test_two_pool_payouts_to_different_players_never_spend_the_pool_twice(racers):
    """VU-28: the pool holds enough for one payout. Each payout touches another wallet, so
    only the table's own record of the payout makes the second one see the first."""
    for n in range(REPEATS):
        app = racers.admin
        dealer, ann, bob = (racers.player(f"{who} {n}", 10_000) for who in ("Dee", "Ann", "Bob"))
        table = app.open_table("vingt-un", {"pool_ante": 300})["table_id"]
        for seat, pid in enumerate((dealer, ann, bob), start=1):
            app.seat_player(table, pid, seat)
        app.choose_dealer(table, dealer)
        app.start_round(table, actor=dealer)  # the two punters' antes: the pool holds 600
        pool = accounts.pool(table)
        assert fold_balances(app)[pool] == 600

        outcomes = racers.race(
            lambda app, t=table, ann=ann: app.pay_from_pool(t, ann, 400, "best hand"),
            lambda app, t=table, bob=bob: app.pay_from_pool(t, bob, 400, "best hand"),
        )
        racers.one_applied(outcomes)

        assert fold_balances(app)[pool] == 200
        racers.check_store()
    assert racers.losses["domain"] + racers.losses["concurrent"] == REPEATS


def test_two_round_starts_at_one_table_leave_only_the_recorded_shoe_s_seed_in_the_vault(racers):
    """The loser sealed its new shoe's seed before its save was refused: it takes it back."""
    topic = f"{Shoe.Committed.__module__}:{Shoe.Committed.__qualname__}"
    for i in range(REPEATS):
        table = racers.admin.open_table("casino", {"decks": 1})["table_id"]
        racers.admin.seat_player(table, racers.player(f"P{i}", 0), 1)

        outcomes = racers.race(
            lambda app, table=table: app.start_round(table),
            lambda app, table=table: app.start_round(table),
        )
        racers.one_applied(outcomes)

    log = racers.admin.recorder.select_notifications(start=1, limit=10**6)
    shoes = [n.originator_id for n in log if n.topic == topic]
    vault = racers.admin.vault.recorder.select_notifications(start=1, limit=10**6)
    assert len(shoes) == REPEATS
    assert sorted(n.originator_id for n in vault) == sorted(map(sealed_id, shoes))
    racers.check_store()


def test_the_same_command_id_sent_twice_at_once_applies_once_and_answers_both(racers):
    """A client retrying with its command id while the first try is in flight: one write,
    and both calls get the first result."""
    ann = racers.player("Ann", 10 * REPEATS * STAKE)
    for n in range(REPEATS):
        _table, rid = racers.casino_round([ann])
        position = racers.admin.recorder.max_notification_id()

        def hit(app: TwentyOneLedger, rid: str = rid, n: int = n) -> dict:
            return app.act(rid, "hit", actor=ann, hand="h1", command_id=f"hit-{n}")

        outcomes = racers.race(hit, hit)

        assert [kind for kind, _ in outcomes] == ["applied", "applied"], outcomes
        answers = [result for _, result in outcomes]
        assert sorted(bool(a.get("replayed")) for a in answers) == [False, True]
        assert all(a["card"] == "TC" for a in answers)
        rnd = racers.admin.get_round(rid)
        assert rnd.hands["h1"]["cards"] == ["5H", "6H", "TC"] and rnd.ended
        hits = [
            e
            for e in racers.admin.events.get(UUID(rid))
            if isinstance(e, Round.CardDealt) and e.drawn and e.hand == "h1"
        ]
        assert len(hits) == 1
        assert racers.admin.recorder.max_notification_id() > position
        racers.check_store()


def test_a_retry_that_checks_its_id_just_before_the_first_try_commits_gets_the_first_result(racers):
    """The in-flight retry, step by step: the retry finds no record yet; the first try then
    commits; the retry goes on against the new state."""
    ann = racers.player("Ann", 10 * STAKE)
    _table, rid = racers.casino_round([ann])
    first_app, retry_app = racers.apps
    looked, first_done = threading.Event(), threading.Event()
    lookup = retry_app._recorded

    def lookup_then_wait(command_id: str, same: Any) -> Any:
        found = lookup(command_id, same)
        if found is None:
            looked.set()
            first_done.wait(timeout=10)
        return found

    retry_app._recorded = lookup_then_wait  # type: ignore[method-assign]
    outcome: list[Any] = []

    def retry() -> None:
        try:
            outcome.append(retry_app.act(rid, "hit", actor=ann, hand="h1", command_id="hit-once"))
        except Exception as error:  # noqa: BLE001
            outcome.append(error)

    thread = threading.Thread(target=retry)
    thread.start()
    assert looked.wait(timeout=10)
    first = first_app.act(rid, "hit", actor=ann, hand="h1", command_id="hit-once")
    first_done.set()
    thread.join(timeout=30)

    assert first["card"] == "TC" and not first.get("replayed")
    (answer,) = outcome
    assert isinstance(answer, dict), f"the retry was refused: {answer!r}"
    assert answer.get("replayed") and answer["card"] == "TC"
    racers.check_store()
