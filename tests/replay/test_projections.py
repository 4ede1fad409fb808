"""The read models (``replay/projections``) say what the events say.

Each read model is checked against an independent reading of the store: here the bankroll
against ``ledger.balances.fold_balances`` and the round's own escrow, and the audit trail
against the notification log; in ``test_projection_history.py`` rounds and hands against each
round's own events and table results against the accounts they summarise.
The history plays all four families: seeded simulations of each, a fixed casino round with a
split and a double, a fixed Hoyle round with a player natural (H13-6), and Vingt-un rounds at
a table with a pool (antes VU-27a, the dealer's overdraw penalty VU-27b, a payout VU-28).

The helpers here are shared with every ``test_projection_*.py``.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

import pytest
from postgres_schemas import create_schema, drop_schema
from replay_history import play_fixed_casino

from ledger.application import TwentyOneLedger
from ledger.balances import fold_balances, transfers
from ledger.config import POSTGRES_DEFAULTS
from ledger.config import store_env as build_store_env
from ledger.simulate import Settings, run
from replay.projections import Projections, open_projections
from replay.projections import queries as q
from replay.projections.projector import event_name

FAMILIES = ("casino", "vingt-un", "hoyle-1913", "ochko")
VIEW_TABLES = (
    "view_accounts", "view_movements", "view_holds", "view_rounds", "view_round_hands",
    "view_round_players", "view_tables", "view_audit_trail",
)  # fmt: skip
STAKES = ("StakePlaced", "StakeRaised")
EVERYTHING = 10**6
FIXED_SHOES = {"LEDGER_ALLOW_FIXED_SHOES": "true"}


# -- histories -----------------------------------------------------------------------------------


def fund(app: TwentyOneLedger, name: str, amount: int = 1_000_000) -> str:
    pid = app.register_player(name)["player_id"]
    app.deposit(pid, amount)
    return pid


def play_simulations(app: TwentyOneLedger, rounds: int = 2, seed: int = 11) -> None:
    """A table of each family, ``rounds`` seeded rounds each (the private games' as one command)."""
    for i, family in enumerate(FAMILIES):
        one_command = family in ("hoyle-1913", "ochko")
        settings = Settings(
            family=family,
            rounds=rounds,
            players=2,
            stake=100,
            seed=seed + i,
            one_command=one_command,
        )
        run(settings, app)


def private_table(app: TwentyOneLedger, family: str, *names: str) -> tuple[str, list[str]]:
    """A private table: the first of ``names`` seated in seat 1 and chosen to deal, the rest
    punters in the seats after; each funded. Returns the table and the players' ids."""
    ids = [fund(app, name) for name in names]
    table = app.open_table(family, {})["table_id"]
    for seat, pid in enumerate(ids, start=1):
        app.seat_player(table, pid, seat)
    app.choose_dealer(table, ids[0])
    return table, ids


def play_hoyle_natural(app: TwentyOneLedger) -> str:
    """H13-6: punter 1's natural is paid double at once; punter 2 (18) beats the dealer (17)."""
    table, (dealer, p1, p2) = private_table(app, "hoyle-1913", "Hoyle dealer", "Hoyle 1", "Hoyle 2")
    app.fix_next_shoe(table, ["AC", "TD", "TH", "QC", "8D", "7H"] + ["2S"] * 8)
    rid = app.start_round(table, actor=dealer)["round_id"]
    app.place_stake(rid, p1, 300)
    app.place_stake(rid, p2, 100)
    app.act(rid, "stand", actor=p2, hand="h2")
    app.act(rid, "dealer_stand", actor=dealer)
    assert app.get_round(rid).ended
    return rid


def play_vingt_un_pool(app: TwentyOneLedger) -> str:
    """Two rounds at a Vingt-un table with a pool: antes of 50 (VU-27a), a 500 penalty when the
    dealer overdraws (VU-27b), then 70 paid out of the pool (VU-28). The pool ends at 630."""
    dealer, a, b = (fund(app, name) for name in ("VU dealer", "VU A", "VU B"))
    options = {"min_stake": 100, "max_stake": 1000, "pool_ante": 50, "pool_dealer_overdraw": 500}
    table = app.open_table("vingt-un", options)["table_id"]
    for seat, pid in enumerate((dealer, a, b), start=1):
        app.seat_player(table, pid, seat)
    app.choose_dealer(table, dealer)
    # A 19, B 18, the dealer 18: A wins, the dealer takes B's tie (VU-14).
    # Then A 18, B 18, the dealer 16 draws a 9 and overdraws.
    for shoe, dealer_acts in (
        (["TC", "9C", "TD", "9D", "9H", "8D"], "dealer_stand"),
        (["TC", "9C", "TD", "8C", "9D", "6D", "9S"], "dealer_draw"),
    ):
        app.fix_next_shoe(table, shoe + ["2S"] * 6)
        rid = app.start_round(table)["round_id"]
        app.place_stake(rid, a, 200)
        app.place_stake(rid, b, 100)
        app.act(rid, "dealer_double", actor=dealer, called=False)
        app.act(rid, "stand", actor=a, hand="h1")
        app.act(rid, "stand", actor=b, hand="h2")
        app.act(rid, dealer_acts, actor=dealer)
        assert app.get_round(rid).ended
    app.pay_from_pool(table, b, 70, "best hand of the evening")
    return table


def play_history(app: TwentyOneLedger, rounds: int = 2) -> dict[str, str]:
    """Every family; returns the ids of the fixed tables (``casino``, ``hoyle``, ``pool``)."""
    play_simulations(app, rounds)
    casino = str(app.get_round(play_fixed_casino(app)).table_id)
    hoyle = str(app.get_round(play_hoyle_natural(app)).table_id)
    return {"casino": casino, "hoyle": hoyle, "pool": play_vingt_un_pool(app)}


# -- reading the store and the views -------------------------------------------------------------


def event_log(app: TwentyOneLedger) -> list[tuple[Any, Any]]:
    """(notification, domain event) for every stored event, in global order."""
    notes = app.recorder.select_notifications(start=1, limit=EVERYTHING)
    return [(n, app.mapper.to_domain_event(n)) for n in notes]


# Tables left out of the comparisons (none: every view is identical however it was built).
BATCH_DEPENDENT: frozenset = frozenset()


def snapshot(proj: Projections, exclude: frozenset = BATCH_DEPENDENT) -> dict[str, list[tuple]]:
    """Every row of every read-model table, sorted: two equal snapshots are the same views."""
    tables = [t for p in proj.projectors for t in p.tables if t not in exclude]
    return {t: sorted(tuple(r) for r in proj.views.read(f"SELECT * FROM {t}")) for t in tables}


def rebuilt(
    app: TwentyOneLedger, env: dict, exclude: frozenset = BATCH_DEPENDENT
) -> dict[str, list[tuple]]:
    """The rows of one rebuild from scratch, in one batch, by another ``Projections``."""
    fresh = open_projections(app, env)
    try:
        fresh.rebuild()
        return snapshot(fresh, exclude)
    finally:
        fresh.close()


@contextmanager
def module_store(store: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """An eventsourcing env for ``store``, built as ``store_env`` (tests/conftest.py) builds it:
    PostgreSQL in a schema of its own, dropped afterwards."""
    if store != "postgres":
        path = str(tmp_path_factory.mktemp(store) / "ledger.sqlite3")
        yield {**build_store_env(store, sqlite_path=path, environ={}), **FIXED_SHOES}
        return
    environ = {"POSTGRES_POOL_SIZE": "1", **POSTGRES_DEFAULTS, **os.environ}
    environ["POSTGRES_SCHEMA"] = name = create_schema()
    try:
        yield {**build_store_env("postgres", environ=environ), **FIXED_SHOES}
    finally:
        drop_schema(name)


STORES = ["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def history_on(store: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    """(app, projections caught up, fixed tables) for a module-scoped fixture: one history per
    store, shared by a module's read-only checks. ``store_env`` gives each test a store of its
    own, and playing the history again for every check took most of the time on PostgreSQL."""
    with module_store(store, tmp_path_factory) as env:
        app = TwentyOneLedger(env=env)
        proj = open_projections(app, env)
        try:
            tables = play_history(app)
            proj.catch_up()
            yield app, proj, tables
        finally:
            proj.close()
            app.close()


@pytest.fixture(scope="module", params=STORES)
def projected(request, tmp_path_factory):
    yield from history_on(request.param, tmp_path_factory)


@pytest.fixture
def live(store_env):
    app = TwentyOneLedger(env=store_env)
    proj = open_projections(app, store_env)
    try:
        yield app, proj
    finally:
        proj.close()
        app.close()


# -- bankroll ------------------------------------------------------------------------------------


def test_every_account_balance_equals_the_folded_ledger_and_all_sum_to_zero(projected):
    app, proj, _ = projected
    views = dict(proj.views.read("SELECT account, balance FROM view_accounts"))
    assert views == fold_balances(app)
    assert sum(views.values()) == 0
    assert any(a.startswith("pool:") for a in views) and any(a.startswith("house:") for a in views)


def test_each_account_has_one_movement_per_transfer_side_with_a_running_balance(projected):
    app, proj, _ = projected
    moves: dict[str, list[tuple]] = defaultdict(list)
    for row in proj.views.read(
        "SELECT account, seq, position, from_account, to_account, amount, change, balance"
        " FROM view_movements ORDER BY account, seq"
    ):
        moves[row[0]].append(row[1:])
    expected: dict[str, list[tuple]] = defaultdict(list)
    for n, e in event_log(app):
        if hasattr(e, "from_account"):
            for account, change in ((e.from_account, -e.amount), (e.to_account, e.amount)):
                expected[account].append((n.id, e.from_account, e.to_account, e.amount, change))
    assert {a: [m[1:6] for m in ms] for a, ms in moves.items()} == expected
    accounts = {a: (b, c) for a, b, c in proj.views.read(
        "SELECT account, balance, movements FROM view_accounts")}  # fmt: skip
    for account, ms in moves.items():
        assert [m[0] for m in ms] == list(range(1, len(ms) + 1)), account
        running = 0
        for seq, *_, change, balance in ms:
            running += change
            assert balance == running, (account, seq)
        assert accounts[account] == (running, len(ms))


def escrowed(app: TwentyOneLedger, rid: str) -> dict[str, int]:
    """What each wallet has moved into the round's escrow, less what came back to it."""
    out: dict[str, int] = defaultdict(int)
    for t in transfers(app):
        if t.to_account == f"escrow:{rid}" and t.from_account.startswith("player:"):
            out[t.from_account] += t.amount
        elif t.from_account == f"escrow:{rid}" and t.to_account.startswith("player:"):
            out[t.to_account] -= t.amount
    return dict(out)


def domain_held(app: TwentyOneLedger, rid: str, player: str) -> int:
    """What the round itself says the player has in its escrow (his hands, his bank cover)."""
    rnd = app.get_round(rid)
    held = sum(h["held"] for h in rnd.hands.values() if h["player"] == player)
    return held + (rnd.bank_held if rnd.dealer == player else 0)


def held(proj: Projections, pid: str) -> int:
    proj.catch_up()
    return q.account(proj.views, f"player:{pid}")["held"]


def test_stakes_are_held_while_the_round_is_open_and_released_when_it_ends(live):
    app, proj = live
    ann, bob = fund(app, "Ann"), fund(app, "Bob")
    table = app.open_table("casino", {"insurance": False})["table_id"]
    app.seat_player(table, ann, 1)
    app.seat_player(table, bob, 2)
    # Ann 5 6 doubles on 11 and draws a ten; Bob 19; the dealer 17.
    app.fix_next_shoe(table, ["5H", "TS", "TD", "6C", "9S", "7D", "TC"] + ["2C"] * 10)
    rid = app.start_round(table)["round_id"]
    app.place_stake(rid, ann, 500)
    app.place_stake(rid, bob, 300)
    for pid in (ann, bob):
        assert held(proj, pid) == escrowed(app, rid)[f"player:{pid}"] == domain_held(app, rid, pid)
    assert (held(proj, ann), held(proj, bob)) == (500, 300)
    app.act(rid, "double_down", actor=ann, hand="h1")
    assert held(proj, ann) == escrowed(app, rid)[f"player:{ann}"] == 1000
    assert not app.get_round(rid).ended
    app.act(rid, "stand", actor=bob, hand="h2")
    assert app.get_round(rid).ended
    assert (held(proj, ann), held(proj, bob)) == (0, 0)
    assert proj.views.read("SELECT * FROM view_holds") == []


def test_a_private_bankers_cover_is_held_with_the_punters_stakes(live):
    app, proj = live
    table, (dealer, p1, p2) = private_table(app, "hoyle-1913", "Dealer", "P1", "P2")
    app.fix_next_shoe(table, ["TC", "9D", "TH", "8C", "9S", "8H"] + ["2S"] * 8)
    rid = app.start_round(table, actor=dealer)["round_id"]
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)
    money = escrowed(app, rid)
    for pid in (dealer, p1, p2):
        assert held(proj, pid) == money[f"player:{pid}"] == domain_held(app, rid, pid) > 0
    app.act(rid, "stand", actor=p1, hand="h1")
    app.act(rid, "stand", actor=p2, hand="h2")
    app.act(rid, "dealer_stand", actor=dealer)
    assert [held(proj, pid) for pid in (dealer, p1, p2)] == [0, 0, 0]


# A hand settled while its round is still open (a casino bust, a Hoyle overdraw paid at once,
# H13-7) holds nothing any more, though its stake left the escrow for the house or the banker,
# not for the punter's wallet: holds are folded from the round's own events.


def test_a_stake_settled_before_the_round_ends_is_no_longer_held_casino_bust(live):
    app, proj = live
    ann, bob = fund(app, "Ann"), fund(app, "Bob")
    table = app.open_table("casino", {"insurance": False})["table_id"]
    app.seat_player(table, ann, 1)
    app.seat_player(table, bob, 2)
    app.fix_next_shoe(table, ["TH", "TS", "TD", "6C", "9S", "7D", "TC"] + ["2C"] * 10)
    rid = app.start_round(table)["round_id"]
    app.place_stake(rid, ann, 500)
    app.place_stake(rid, bob, 500)
    app.act(rid, "hit", actor=ann, hand="h1")  # 26: settled at once, Bob still to play
    assert not app.get_round(rid).ended and domain_held(app, rid, ann) == 0
    assert (held(proj, ann), held(proj, bob)) == (0, 500)


def test_a_stake_settled_before_the_round_ends_is_no_longer_held_hoyle_overdraw(live):
    app, proj = live
    table, (dealer, p1, p2) = private_table(app, "hoyle-1913", "Dealer", "P1", "P2")
    app.fix_next_shoe(table, ["TC", "5D", "TH", "6C", "4D", "8H", "9C"] + ["2S"] * 8)
    rid = app.start_round(table, actor=dealer)["round_id"]
    app.place_stake(rid, p1, 200)
    app.place_stake(rid, p2, 300)
    app.act(rid, "hit", actor=p1, hand="h1")  # 25: pays the dealer at once (H13-7)
    assert not app.get_round(rid).ended
    for pid in (dealer, p1, p2):
        assert held(proj, pid) == domain_held(app, rid, pid), pid


# -- audit trail ---------------------------------------------------------------------------------


def test_a_rounds_audit_trail_is_its_whole_stream_and_its_wallet_and_pool_transfers_in_order(
    projected,
):
    app, proj, _ = projected
    log = event_log(app)
    rids = [str(n.originator_id) for n, _ in log if event_name(n.topic) == "Round.Started"]
    transfers = ("Player.FundsTransferred", "Table.FundsTransferred")
    pool_legs = 0
    for rid in rids:
        expected = [
            (n.id, str(n.originator_id), n.originator_version, event_name(n.topic), e.hash)
            for n, e in log
            if str(n.originator_id) == rid
            or (event_name(n.topic) in transfers and e.round_id == rid)
        ]
        pool_legs += sum(1 for *_, name, _ in expected if name == "Table.FundsTransferred")
        trail = q.round_trail(proj.views, rid)
        got = [(t["position"], t["stream"], t["version"], t["type"], t["hash"]) for t in trail]
        assert got == expected, rid
        own = [t for t in trail if t["stream"] == rid]
        stream = list(app.events.get(UUID(rid)))
        assert [(t["version"], t["hash"]) for t in own] == [
            (e.originator_version, e.hash) for e in stream
        ]
        assert [t["prev_hash"] for t in own[1:]] == [t["hash"] for t in own[:-1]]
        assert any(t["stream"] != rid for t in trail), "the stakes come from wallet streams"
        for t in trail:
            if t["type"] == "Round.CardDealt":
                assert t["card"] == t["data"]["card"] and t["hand"] == t["data"]["hand"]
            if t["type"].endswith("FundsTransferred"):
                assert t["amount"] == t["data"]["amount"] and t["clauses"] == t["data"]["clause"]
    assert pool_legs, "the scenario moves money into a pool during a round"
    total = proj.views.read("SELECT SUM(events) FROM view_audit_trail")[0][0]
    assert total == sum(len(q.round_trail(proj.views, rid)) for rid in rids)


@pytest.mark.parametrize("store_env", ["memory"], indirect=True)
def test_the_views_tables_are_the_ones_these_tests_compare(live):
    _, proj = live
    proj.catch_up()
    assert sorted(snapshot(proj, exclude=frozenset())) == sorted(VIEW_TABLES)
