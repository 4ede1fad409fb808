"""A table's results count only settled money: a round's stakes and nets join them when the
round ends, and the rounds still in play are counted apart (how many, their stakes, what their
escrow holds). A player's net in a round reads null until it ends (see ``History.ended``)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from replay_history import casino_table
from test_projections import event_log, play_history, private_table

from ledger.balances import fold_balances
from replay.projections import queries as q
from replay.projections.projector import event_name

NOTHING_SETTLED = {"staked": 0, "punters_net": 0, "banker_net": 0, "house_net": 0,
                   "returned": 0, "return_to_player": None}  # fmt: skip


def figures(result: dict[str, Any], *names: str) -> dict[str, Any]:
    return {name: result[name] for name in names}


def settlements(log: list[tuple[Any, Any]], rid: str) -> int:
    """The sum of the round's ``HandSettled`` amounts: what its punters won, less lost."""
    return sum(
        e.amount
        for n, e in log
        if str(n.originator_id) == rid and event_name(n.topic) == "Round.HandSettled"
    )


def nets_of_round(proj: Any, table: str, player: str) -> tuple[dict[str, Any], list[Any]]:
    """A round's players' nets as the table's rounds list them, and the player's own list."""
    [rnd] = q.table_rounds(proj.views, table)
    mine = [r["net"] for r in q.player_rounds(proj.views, player)]
    return {p["player_id"]: p["net"] for p in rnd["players"]}, mine


def test_a_casino_round_in_play_shows_no_loss_until_it_ends(live):
    """CB-7: Ann's bust loses at once, and Bob's stake waits in escrow; neither is counted
    until the round ends, when the house's net is the punters' loss to the minor unit."""
    app, proj = live
    table, ann, bob = casino_table(app)
    # h1 T, h2 T, dealer T, h1 6, h2 9, dealer 7; Ann hits a T (26), Bob stands on 19.
    app.fix_next_shoe(table, ["TH", "TS", "TD", "6C", "9S", "7D", "TC"] + ["2C"] * 20)
    rid = app.start_round(table)["round_id"]
    app.place_stake(rid, ann, 500)
    app.place_stake(rid, bob, 300)
    app.act(rid, "hit", actor=ann, hand="h1")
    assert app.get_round(rid).hands["h1"]["settled"] and not app.get_round(rid).ended
    proj.catch_up()
    books = fold_balances(app)
    assert books[f"house:{table}"] == 500, "the bust was paid to the house at once"
    result = q.table_results(proj.views, table)
    assert figures(result, *NOTHING_SETTLED) == NOTHING_SETTLED
    assert figures(result, "rounds", "in_play_rounds", "in_play_staked", "held") == {
        "rounds": 1, "in_play_rounds": 1, "in_play_staked": 800, "held": 300}  # fmt: skip
    assert result["held"] == books[f"escrow:{rid}"]
    assert nets_of_round(proj, table, ann) == ({ann: None, bob: None}, [None])

    app.act(rid, "stand", actor=bob, hand="h2")  # the dealer stands on 17: Bob wins 300
    assert app.get_round(rid).ended
    proj.catch_up()
    result = q.table_results(proj.views, table)
    log = event_log(app)
    assert settlements(log, rid) == -500 + 300
    assert figures(result, "staked", "punters_net", "house_net", "banker_net", "returned") == {
        "staked": 800, "punters_net": -200, "house_net": 200, "banker_net": 0,
        "returned": 600}  # fmt: skip
    assert result["return_to_player"] == "0.7500"
    assert result["punters_net"] + result["house_net"] == 0
    assert result["house_net"] == fold_balances(app)[f"house:{table}"]
    assert figures(result, "in_play_rounds", "in_play_staked", "held") == {
        "in_play_rounds": 0, "in_play_staked": 0, "held": 0}  # fmt: skip
    assert nets_of_round(proj, table, ann) == ({ann: -500, bob: 300}, [-500])


def test_a_private_round_in_play_counts_neither_its_paid_natural_nor_the_banks_cover(live):
    """H13-6: a punter's natural is paid double at once, mid-round; the table counts it, and
    the other punter's stake, when the round ends. The banker's net is the punters' loss."""
    app, proj = live
    table, (dealer, p1, p2) = private_table(app, "hoyle-1913", "Dee", "P1", "P2")
    app.fix_next_shoe(table, ["AC", "TD", "TH", "QC", "8D", "7H"] + ["2S"] * 8)
    rid = app.start_round(table, actor=dealer)["round_id"]
    app.place_stake(rid, p1, 300)
    app.place_stake(rid, p2, 100)
    rnd = app.get_round(rid)
    assert rnd.hands["h1"]["settled"] and not rnd.ended, "the natural was paid at once"
    proj.catch_up()
    books = fold_balances(app)
    assert books[f"player:{p1}"] == 1_000_600
    result = q.table_results(proj.views, table)
    assert figures(result, *NOTHING_SETTLED) == NOTHING_SETTLED
    assert (result["in_play_rounds"], result["in_play_staked"]) == (1, 400)
    assert result["held"] == books[f"escrow:{rid}"] > 0
    nets = {dealer: None, p1: None, p2: None}
    assert nets_of_round(proj, table, dealer) == (nets, [None])

    app.act(rid, "stand", actor=p2, hand="h2")
    app.act(rid, "dealer_stand", actor=dealer)  # 17 against P2's 18
    proj.catch_up()
    result = q.table_results(proj.views, table)
    assert settlements(event_log(app), rid) == 600 + 100
    assert figures(result, "staked", "punters_net", "banker_net", "house_net", "returned") == {
        "staked": 400, "punters_net": 700, "banker_net": -700, "house_net": 0,
        "returned": 1100}  # fmt: skip
    assert result["return_to_player"] == "2.7500"
    assert (result["in_play_rounds"], result["in_play_staked"], result["held"]) == (0, 0, 0)
    assert fold_balances(app)[f"escrow:{rid}"] == 0
    nets = {dealer: -700, p1: 600, p2: 100}
    assert nets_of_round(proj, table, dealer) == (nets, [-700])


def expected_results(log: list[tuple[Any, Any]], upto: int, owners: dict) -> dict[str, dict]:
    """Each table's money figures read straight from the first ``upto`` events of the log: the
    stakes and wallet and house changes of the rounds ended by then, the escrow of every
    round, the pool, and the rounds still in play."""
    tables: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    table_of, dealer_of, ended = {}, {}, set()
    for n, e in log[:upto]:
        name = event_name(n.topic)
        rid = str(n.originator_id)
        if name == "Round.Started":
            table_of[rid], dealer_of[rid] = str(e.table_id), e.dealer
        elif name == "Round.Ended":
            ended.add(rid)
    for n, e in log[:upto]:
        name = event_name(n.topic)
        rid = str(n.originator_id)
        if name in ("Round.StakePlaced", "Round.StakeRaised"):
            if owners[rid][e.hand] != dealer_of[rid]:
                key = "staked" if rid in ended else "in_play_staked"
                tables[table_of[rid]][key] += e.amount
        elif name.endswith("FundsTransferred"):
            for account, change in ((e.from_account, -e.amount), (e.to_account, e.amount)):
                kind, _, owner = account.partition(":")
                settled = e.round_id in ended
                if kind == "pool":
                    tables[owner]["pool_balance"] += change
                elif kind == "house" and (settled or not e.round_id):
                    tables[owner]["house_net"] += change
                elif kind == "escrow":
                    tables[table_of[owner]]["held"] += change
                elif kind == "player" and settled:
                    role = "banker_net" if owner == dealer_of[e.round_id] else "punters_net"
                    tables[table_of[e.round_id]][role] += change
    for rid, table in table_of.items():
        tables[table]["in_play_rounds"] += rid not in ended
    return {t: dict(v) for t, v in tables.items()}


MONEY = ("staked", "punters_net", "banker_net", "house_net", "pool_balance", "in_play_rounds",
         "in_play_staked", "held")  # fmt: skip


def test_at_every_position_a_tables_money_is_that_of_its_ended_rounds(live):
    """Every family (casino, Vingt-un with a pool, Hoyle, Очко): folded one event at a time,
    each table's figures equal those read from the log up to there, and between writes no
    money of an ended round is left in escrow."""
    app, proj = live
    play_history(app, rounds=1)
    log = event_log(app)
    rounds = [str(n.originator_id) for n, _ in log if event_name(n.topic) == "Round.Started"]
    owners = {rid: {h: v["player"] for h, v in app.get_round(rid).hands.items()} for rid in rounds}
    tables = {str(n.originator_id) for n, _ in log if event_name(n.topic) == "Table.Opened"}
    in_play_seen = 0
    for upto, (n, _) in enumerate(log, start=1):
        proj.catch_up(until=n.id)
        expected = expected_results(log, upto, owners)
        for table in tables:
            result = q.table_results(proj.views, table) or dict.fromkeys(MONEY, 0)
            want = {k: expected.get(table, {}).get(k, 0) for k in MONEY}
            assert figures(result, *MONEY) == want, (upto, table)
            in_play_seen += result["in_play_rounds"]
    assert in_play_seen > 100, "the history was folded mid-round often"
    for table in tables:
        result = q.table_results(proj.views, table)
        assert (result["in_play_rounds"], result["held"]) == (0, 0)
        # Sums to zero: what punters won the banker, the house or the pool lost, but for what
        # the pool paid out between rounds (VU-28), which no round's figures hold.
        paid_out = sum(e.amount for _, e in log if getattr(e, "from_account", "") ==
                       f"pool:{table}" and not e.round_id)  # fmt: skip
        money = result["punters_net"] + result["banker_net"] + result["house_net"]
        assert money + result["pool_balance"] + paid_out == 0, table


def test_a_rounds_own_figures_sum_to_its_tables(live):
    app, proj = live
    play_history(app, rounds=1)
    proj.catch_up()
    rows = proj.views.read(
        "SELECT table_id, staked, punters_net, banker_net, house_net, held FROM view_rounds"
    )
    sums: dict[str, list[int]] = defaultdict(lambda: [0] * 5)
    for table, *values in rows:
        sums[table] = [a + b for a, b in zip(sums[table], values, strict=True)]
    assert len(sums) >= 6
    for table, (staked, punters, banker, house, held) in sums.items():
        result = q.table_results(proj.views, table)
        assert (result["staked"], result["punters_net"], result["banker_net"]) == (
            staked, punters, banker)  # fmt: skip
        assert (result["house_net"], result["held"], held) == (house, 0, 0)
