"""Round history (per table, per player, per hand) and table results say what the rounds'
own events say: numbers, roles, stakes, each wallet's net, settlements, naturals and busts, and
the house's, banker's and pool's money (see ``test_projections.py`` for the history played)."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any
from uuid import UUID

import pytest
from test_projections import FAMILIES, event_log, private_table

from ledger.application import TwentyOneLedger
from ledger.balances import fold_balances, transfers
from replay.projections import queries as q
from replay.projections.projector import event_name

STAKES = ("StakePlaced", "StakeRaised")


def wallet_nets(app: TwentyOneLedger) -> dict[tuple[str, str], int]:
    """(round id, player id) -> the change of the player's wallet from the round's transfers."""
    nets: dict[tuple[str, str], int] = defaultdict(int)
    for t in transfers(app):
        for account, change in ((t.from_account, -t.amount), (t.to_account, t.amount)):
            if t.round_id and account.startswith("player:"):
                nets[(t.round_id, account.removeprefix("player:"))] += change
    return nets


def rounds_by_table(log: list[tuple[Any, Any]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for n, e in log:
        if event_name(n.topic) == "Round.Started":
            out[str(e.table_id)].append(str(n.originator_id))
    return out


def round_events(log: list[tuple[Any, Any]]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = defaultdict(list)
    for n, e in log:
        if event_name(n.topic).startswith("Round."):
            out[str(n.originator_id)].append(e)
    return out


def kind(event: Any) -> str:
    return type(event).__name__


# -- round history -------------------------------------------------------------------------------


def test_each_tables_rounds_are_numbered_in_order_with_their_state(projected):
    app, proj, _ = projected
    by_table = rounds_by_table(event_log(app))
    assert len(by_table) == len(FAMILIES) + 3
    for table, rids in by_table.items():
        rows = q.table_rounds(proj.views, table, limit=1000)
        assert [r["round_id"] for r in rows] == rids
        assert [r["number"] for r in rows] == list(range(1, len(rids) + 1))
        for row in rows:
            rnd = app.get_round(row["round_id"])
            assert (row["table_id"], row["dealer"]) == (table, rnd.dealer)
            assert row["status"] == ("ended" if rnd.ended else "open")
            assert bool(row["ended_at"]) == rnd.ended
            assert row["settled"] == sum(1 for h in rnd.order if rnd.hands[h]["settled"])


def test_a_round_is_open_until_it_ends(live):
    app, proj = live
    table, (dealer, p1, p2) = private_table(app, "ochko", "Banker", "P1", "P2")
    # P1 18, P2 18 against the banker's 19 (OC-8); the banker stands.
    app.fix_next_shoe(table, ["TC", "9D", "TH", "8C", "9S", "9H"] + ["2S"] * 8)
    rid = app.start_round(table, actor=dealer)["round_id"]
    proj.catch_up()
    [row] = q.table_rounds(proj.views, table)
    assert (row["round_id"], row["status"], row["ended_at"], row["family"]) == (
        rid, "open", None, "ochko")  # fmt: skip
    for pid in (p1, p2):
        app.place_stake(rid, pid, 100)
    app.act(rid, "stand", actor=p1, hand="h1")
    app.act(rid, "stand", actor=p2, hand="h2")
    app.act(rid, "dealer_stand", actor=dealer)
    proj.catch_up()
    [row] = q.table_rounds(proj.views, table)
    assert (row["status"], row["settled"]) == ("ended", 2) and row["ended_at"] >= row["started_at"]
    roles = {p["player_id"]: (p["role"], p["staked"], p["net"]) for p in row["players"]}
    assert roles == {dealer: ("banker", 0, 200), p1: ("punter", 100, -100),
                     p2: ("punter", 100, -100)}  # fmt: skip


def expected_players(app: TwentyOneLedger, rid: str, events: list[Any]) -> dict[str, tuple]:
    """player -> (role, hands, staked) from the round's own events."""
    rnd = app.get_round(rid)
    owner = {h: v["player"] for h, v in rnd.hands.items()}
    out: dict[str, list] = {}
    if rnd.dealer != "house":
        out[rnd.dealer] = ["banker", 0, 0]
    for e in events:
        if kind(e) in ("HandOpened", "HandSplit"):
            out.setdefault(owner[getattr(e, "new_hand", e.hand)], ["punter", 0, 0])[1] += 1
        elif kind(e) in STAKES:
            out[owner[e.hand]][2] += e.amount
    return {pid: tuple(v) for pid, v in out.items()}


def test_each_players_part_in_a_round_has_his_role_stakes_and_wallet_net(projected):
    app, proj, _ = projected
    nets, events = wallet_nets(app), round_events(event_log(app))
    movement_nets: dict[tuple[str, str], int] = defaultdict(int)
    for account, rid, change in proj.views.read(
        "SELECT account, round_id, change FROM view_movements WHERE round_id <> ''"
    ):
        if account.startswith("player:"):
            movement_nets[(rid, account.removeprefix("player:"))] += change
    assert movement_nets == nets
    seen = set()
    for table in rounds_by_table(event_log(app)):
        for row in q.table_rounds(proj.views, table, limit=1000):
            rid = row["round_id"]
            parts = {p["player_id"]: (p["role"], p["hands"], p["staked"]) for p in row["players"]}
            assert parts == expected_players(app, rid, events[rid]), rid
            for p in row["players"]:
                assert p["net"] == nets.get((rid, p["player_id"]), 0), (rid, p)
                seen.add((rid, p["player_id"]))
    assert {k for k, v in nets.items() if v} <= seen
    bankers = {(rid, pid) for rid, pid in seen if app.get_round(rid).dealer == pid}
    assert any(nets.get(k) for k in bankers), "some banker won or lost money"


def test_a_players_history_lists_every_round_he_played_or_banked_oldest_first(projected):
    app, proj, _ = projected
    log = event_log(app)
    played: dict[str, list[str]] = defaultdict(list)
    for rids in rounds_by_table(log).values():
        for rid in rids:
            rnd = app.get_round(rid)
            for pid in {rnd.dealer, *(h["player"] for h in rnd.hands.values())} - {"house"}:
                played[pid].append(rid)
    starts = {str(n.originator_id): e.timestamp for n, e in log if kind(e) == "Started"}
    assert len(played) >= 10
    for pid, rids in played.items():
        rows = q.player_rounds(proj.views, pid, limit=1000)
        assert [r["round_id"] for r in rows] == sorted(rids, key=lambda r: (starts[r], r)), pid
        for r in rows:
            assert r["role"] == ("banker" if app.get_round(r["round_id"]).dealer == pid
                                 else "punter")  # fmt: skip


def test_each_hand_row_matches_its_settlement_event(projected):
    app, proj, _ = projected
    hands_checked = 0
    for rid, events in round_events(event_log(app)).items():
        expected = {}
        for e in events:
            if kind(e) == "HandSettled":
                expected[e.hand] = (e.player, e.outcome, e.amount, " ".join(e.clauses))
        naturals = {e.hand for e in events if kind(e) == "NaturalDeclared"}
        busts = {e.hand for e in events if kind(e) == "HandOverdrawn"}
        stakes = Counter()
        for e in events:
            if kind(e) in STAKES:
                stakes[e.hand] += e.amount
        rows = {r["hand"]: r for r in q.round_hands(proj.views, rid)}
        assert set(rows) == set(expected), rid
        for hand, row in rows.items():
            got = (row["player_id"], row["outcome"], row["net"], row["clauses"])
            assert got == expected[hand], (rid, hand)
            assert (row["is_natural"], row["is_bust"]) == (hand in naturals, hand in busts)
            assert row["stake"] == stakes[hand]
            hands_checked += 1
    assert hands_checked > 20


# -- table results -------------------------------------------------------------------------------


def test_table_results_count_rounds_naturals_and_busts_from_the_events(projected):
    app, proj, _ = projected
    log = event_log(app)
    events = round_events(log)
    totals = Counter()
    for table, rids in rounds_by_table(log).items():
        result = q.table_results(proj.views, table)
        theirs = [e for rid in rids for e in events[rid]]
        counted = {
            "rounds": len(rids),
            "naturals": sum(kind(e) == "NaturalDeclared" for e in theirs),
            "busts": sum(kind(e) == "HandOverdrawn" for e in theirs),
        }
        assert {k: result[k] for k in counted} == counted, table
        totals.update(counted)
    assert totals["naturals"] > 0 and totals["busts"] > 0  # else the counts prove nothing


def test_table_results_sum_up_the_accounts_they_summarise(projected):
    app, proj, fixed = projected
    log = event_log(app)
    books, nets, events = fold_balances(app), wallet_nets(app), round_events(log)
    for table, rids in rounds_by_table(log).items():
        result = q.table_results(proj.views, table)
        banker = punters = staked = 0
        for rid in rids:
            rnd = app.get_round(rid)
            for (r, pid), net in nets.items():
                if r == rid:
                    banker += net if pid == rnd.dealer else 0
                    punters += 0 if pid == rnd.dealer else net
            owner = {h: v["player"] for h, v in rnd.hands.items()}
            staked += sum(e.amount for e in events[rid]
                          if kind(e) in STAKES and owner[e.hand] != rnd.dealer)  # fmt: skip
        assert result["pool_balance"] == books.get(f"pool:{table}", 0)
        assert result["house_net"] == books.get(f"house:{table}", 0)
        assert (result["banker_net"], result["punters_net"]) == (banker, punters), table
        assert result["staked"] == staked and result["returned"] == staked + punters
        assert result["return_to_player"] == q.ratio(staked + punters, staked)
    assert q.table_results(proj.views, fixed["pool"])["pool_balance"] == 630
    casino = q.table_results(proj.views, fixed["casino"])
    # Ann's doubled split hand wins 1000 and her other loses 500; Bob wins 500 (see
    # play_fixed_casino): 2000 staked, 3000 returned.
    assert (casino["staked"], casino["punters_net"], casino["house_net"]) == (2000, 1000, -1000)
    assert casino["return_to_player"] == "1.5000"
    hoyle = q.table_results(proj.views, fixed["hoyle"])
    assert (hoyle["banker_net"], hoyle["house_net"], hoyle["naturals"]) == (-700, 0, 1)
    assert hoyle["return_to_player"] == "2.7500"  # 400 staked, 1100 returned (H13-6)


@pytest.mark.parametrize(
    ("numerator", "denominator", "places", "text"),
    [
        (3000, 2000, 4, "1.5000"),
        (1, 3, 4, "0.3333"),
        (2, 3, 4, "0.6667"),
        (0, 7, 4, "0.0000"),
        (1, 8, 2, "0.13"),  # 0.125: half rounds up
        (3, 8, 2, "0.38"),
        (1, 20_000, 4, "0.0001"),  # 0.00005
        (1, 20_001, 4, "0.0000"),  # just under half
        (-1, 8, 2, "-0.13"),  # half rounds away from zero on the negative side too
        (-1, 3, 4, "-0.3333"),
        (-1, 30_000, 4, "0.0000"),  # no "-0.0000"
        (9_999, 10_000, 2, "1.00"),
        (10**30 + 1, 10**30, 4, "1.0000"),  # exact on integers far beyond a float's precision
        (2 * 10**30 + 10**26, 2 * 10**30, 4, "1.0001"),  # 1.00005 exactly: up
    ],
)
def test_ratio_is_exact_and_rounds_half_up(numerator, denominator, places, text):
    assert q.ratio(numerator, denominator, places) == text


def test_a_table_without_stakes_has_no_return_to_player(live):
    app, proj = live
    table = app.open_table("casino", {"insurance": False})["table_id"]
    proj.catch_up()
    result = q.table_results(proj.views, table)
    assert (result["rounds"], result["staked"], result["return_to_player"]) == (0, 0, None)
    assert q.table_results(proj.views, str(UUID(int=1))) is None
