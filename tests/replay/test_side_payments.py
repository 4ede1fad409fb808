"""Money between players' hands (VU-10: a natural collects one stake from each other player)
belongs to both hands' nets, in the audit and in the round history, so a player's hands' nets
sum to his wallet's change for the round; what he paid into the pool is shown as such."""

from __future__ import annotations

from types import SimpleNamespace

from test_projections import fund

from replay.audit import audit_round
from replay.projections import queries as q
from replay.side_payments import SidePayment, side_payment

# A natural (ace, king); B 10, 9 = 19; C 8, 7 = 15; the dealer 10, queen = 20.
SHOE = ["AC", "TC", "8C", "TD", "KC", "9C", "7H", "QD"] + ["2S"] * 6
STAKES = {"A": 200, "B": 300, "C": 100}


def natural_collects(app, ante: int = 0) -> tuple[str, dict[str, str]]:
    ids = {name: fund(app, f"VU-10 {name}") for name in ("D", "A", "B", "C")}
    options = {"min_stake": 100, "max_stake": 1000, "natural_collects_from_players": True}
    table = app.open_table("vingt-un", {**options, "pool_ante": ante})["table_id"]
    for seat, name in enumerate(ids, start=1):
        app.seat_player(table, ids[name], seat)
    app.choose_dealer(table, ids["D"])
    app.fix_next_shoe(table, SHOE)
    rid = app.start_round(table)["round_id"]
    for name, amount in STAKES.items():
        app.place_stake(rid, ids[name], amount)
    app.act(rid, "dealer_double", actor=ids["D"], called=False)
    app.act(rid, "stand", actor=ids["B"], hand="h2")
    app.act(rid, "stand", actor=ids["C"], hand="h3")
    app.act(rid, "dealer_stand", actor=ids["D"])
    assert app.get_round(rid).ended
    return rid, ids


def test_the_audits_hand_nets_count_the_stakes_a_natural_collects_from_other_players(app):
    rid, ids = natural_collects(app, ante=50)
    report = audit_round(app, rid)
    hands = {h["id"]: h for h in report["hands"]}
    nets = {k: (h["settlement"]["amount"], h["side_net"], h["net"]) for k, h in hands.items()}
    assert nets == {"h1": (400, 400, 800), "h2": (-300, -300, -600), "h3": (-100, -100, -200)}
    assert [(p["from_hand"], p["amount"], p["clause"]) for p in hands["h1"]["side_payments"]] == [
        ("h2", 300, "VU-10"),
        ("h3", 100, "VU-10"),
    ]
    [paid] = hands["h3"]["side_payments"]
    assert (paid["to_hand"], paid["amount"], paid["clause"]) == ("h1", -100, "VU-10")
    # The antes (VU-27) moved each punter's wallet but are no hand's result.
    balances = {b["player"]: b for b in report["balances"]}
    for name in ("A", "B", "C"):
        b = balances[ids[name]]
        mine = sum(h["net"] for h in hands.values() if h["player"] == ids[name])
        assert b["parts"] == {"hands": mine, "insurance": 0, "pool": -50, "banking": 0}
        assert mine - 50 == b["change"]
    assert balances[ids["D"]]["parts"]["banking"] == balances[ids["D"]]["change"] == 0


def test_the_history_hands_nets_sum_to_each_players_wallet_net(live):
    app, proj = live
    rid, ids = natural_collects(app)
    proj.catch_up()
    rows = {r["hand"]: r for r in q.round_hands(proj.views, rid)}
    got = {k: (r["net"], r["side_net"], r["side_clauses"], r["clauses"]) for k, r in rows.items()}
    assert got == {
        "h1": (800, 400, "VU-10", "VU-10"),
        "h2": (-600, -300, "VU-10", "VU-14"),
        "h3": (-200, -100, "VU-10", "VU-14"),
    }
    [rnd] = q.table_rounds(proj.views, str(app.get_round(rid).table_id))
    players = {p["player_id"]: p for p in rnd["players"]}
    for name in ("A", "B", "C"):
        hands_net = sum(r["net"] for r in rows.values() if r["player_id"] == ids[name])
        assert hands_net == players[ids[name]]["net"], name


def test_a_side_payment_recorded_before_to_hand_existed_is_read_from_its_memo():
    old = SimpleNamespace(
        hand="h3", amount=-100, clause="VU-10", memo="natural on h1 collects one stake"
    )
    assert side_payment(old) == SidePayment("h3", "h1", 100, "VU-10", old.memo)
    grown = SimpleNamespace(
        hand="h1", amount=200, clause="VU-21", memo="the dealer divided his pair"
    )
    assert side_payment(grown) is None
