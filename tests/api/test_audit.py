"""``GET /v1/rounds/{id}/audit`` (replay/audit.py): a settled casino round with a double down
and a Vingt-un round with the dealer's double, audited by an auditor and by the players."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

from test_rounds_http import HIDDEN, Table, casino_double_down, open_table

from replay.clauses import CITED, clauses, parse_rules

GAMES = Path(__file__).resolve().parents[2] / "ledger" / "games"


def audit(t: Table, who: str = "auditor", status: int = 200) -> dict:
    return t.http.get(f"/v1/rounds/{t.rid}/audit", key=t.http.keys[who], status=status)


def settled_events(report: dict) -> dict[str, dict]:
    return {e["hand"]: e for e in report["events"] if e["type"] == "HandSettled"}


def check_settlements(report: dict) -> None:
    recorded = settled_events(report)
    assert recorded.keys() == {h["id"] for h in report["hands"]}
    for hand in report["hands"]:
        s = hand["settlement"]
        event = recorded[hand["id"]]
        assert s["amount"] == event["amount"] == event["data"]["amount"]
        assert Fraction(s["raw"]) == s["stake"] * Fraction(s["multiplier"])
        assert s["arithmetic"] == f"{s['stake']} × {s['multiplier']} = {s['raw']}"
        if s["rounding"] == "none":
            assert Fraction(s["raw"]) == s["amount"]
        assert s["clauses"] and all(c["text"] for c in s["clauses"])
        assert [c["id"] for c in s["clauses"]] == event["data"]["clauses"]


def check_balances(t: Table, report: dict) -> None:
    by_player = {b["player"]: b for b in report["balances"]}
    for name, pid in t.ids.items():
        assert by_player[pid]["before"] == t.before[name]
        assert by_player[pid]["after"] == t.http.balance(pid)
        moved = sum(m["change"] for m in by_player[pid]["round_movements"])
        assert by_player[pid]["change"] == moved


def check_shoe(t: Table) -> None:
    before = audit(t)
    assert before["shoe"]["check"]["status"] == "not yet revealed"
    assert before["shoe"]["server_seed"] is None and before["shoe"]["commitment"]
    t.http.ledger.close_table(t.table_id)
    after = audit(t)
    check = after["shoe"]["check"]
    assert after["shoe"]["revealed"] and check["status"] == "ok" and check["ok"]
    dealt = [e for e in after["events"] if e["type"] == "CardDealt"]
    assert len(check["cards"]) == len(dealt) and all(c["ok"] for c in check["cards"])
    assert [c["card"] for c in check["cards"]] == [e["card"] for e in dealt]


def test_casino_round_audit(http):
    t = casino_double_down(http)

    report = audit(t)
    assert report["scope"] == "full" and report["ended"]
    chain = report["chain"]
    assert (chain["ok"], chain["fault"], chain["events"]) == (True, None, len(report["events"]))
    # The table's too: the audit reads its record of the round (table_record).
    assert [s["kind"] for s in chain["streams"]] == ["round", "wallet", "wallet", "table", "shoe"]
    assert report["table_record"]["ok"] is True
    assert report["table_record"]["fact"].startswith("the round ended (Round.Ended v")
    assert chain["events_checked"] == sum(s["events"] for s in chain["streams"])
    assert [e["version"] for e in report["events"]] == list(range(1, len(report["events"]) + 1))
    assert all(e["time"].endswith("+00:00") for e in report["events"])
    check_settlements(report)
    h1, h2 = report["hands"]
    assert [s["reason"] for s in h1["stakes"]] == ["stake", "double_down"]
    assert h1["stake"] == 400 and h1["settlement"]["amount"] == 400
    assert [m["total"] for m in h1["totals"]] == [6, 11, 21]
    assert h1["settlement"]["clauses"][0]["id"] in clauses()
    assert h2["settlement"]["amount"] == 300
    assert [m["total"] for m in report["dealer_hands"][0]["totals"]] == [9, 16, 24]
    check_balances(t, report)
    assert http.get(f"/v1/rounds/{t.rid}/audit") == report  # admin sees the same

    ann = audit(t, "Ann")
    assert ann["scope"] == "player" and [h["id"] for h in ann["hands"]] == ["h1"]
    assert [b["player"] for b in ann["balances"]] == [t.ids["Ann"]]
    assert "hash" not in ann["events"][0]["data"]
    assert [h["id"] for h in audit(t, "Bob")["hands"]] == ["h2"]
    audit(t, "Eve", status=403)
    check_shoe(t)


def test_vingt_un_round_audit_with_a_dealer_double(http):
    t = open_table(http, "vingt-un")
    t.start(["TC", "9D", "8H", "KC", "7D", "9C", "6D"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    http.act(t.rid, "Bob", action="stake", amount=200)
    http.act(t.rid, "dealer", action="dealer_double", called=True)
    http.act(t.rid, "Ann", action="stand", hand="h1")
    audit(t, "Ann", status=403)  # not before the round has ended
    http.act(t.rid, "Bob", action="hit", hand="h2")
    http.act(t.rid, "dealer", action="dealer_stand")

    report = audit(t)
    assert report["chain"]["ok"]
    check_settlements(report)
    amounts = {h["id"]: h["settlement"]["amount"] for h in report["hands"]}
    assert amounts == {"h1": 400, "h2": -400}
    assert any(e["type"] == "DealerDoubleCalled" for e in report["events"])
    h2 = report["hands"][1]
    assert [m["total"] for m in h2["totals"]] == [9, 16, 22]
    check_balances(t, report)

    ann = audit(t, "Ann")
    assert [h["id"] for h in ann["hands"]] == ["h1"]
    dealt = [e for e in ann["events"] if e["type"] == "CardDealt"]
    bob = [e["card"] for e in dealt if e["hand"] == "h2"]
    assert bob == [HIDDEN, HIDDEN, "6D"]  # Bob's face-down cards stay hidden from Ann
    dee = audit(t, "dealer")  # the dealer's key: Dee's own (dealer) hands only
    assert dee["hands"] == [] and dee["dealer_hands"][0]["cards"] == ["8H", "9C"]
    assert [b["player"] for b in dee["balances"]] == [t.ids["Dee"]]
    audit(t, "Eve", status=403)
    check_shoe(t)
    masked = audit(t, "Ann")["shoe"]["check"]["cards"]
    assert [c["card"] for c in masked].count(HIDDEN) == 4 and all(c["ok"] for c in masked)


def test_every_cited_clause_has_a_text():
    cited = set()
    for path in GAMES.glob("*.py"):
        cited.update(CITED.findall(path.read_text(encoding="utf-8")))
    assert cited and {"CB-X-DOUBLE", "VU-14"} <= cited
    missing = sorted(c for c in cited if not clauses().get(c))
    assert not missing, f"clauses cited without a text in replay/clauses.json: {missing}"


def test_clauses_parse_joins_wrapped_lines():
    text = "Intro\n- VU-14 Dealer stands: each player\n  still standing declares.\n\n- CB-1 Bets.\n"
    assert parse_rules(text) == {
        "VU-14": "Dealer stands: each player still standing declares.",
        "CB-1": "Bets.",
    }
    assert re.fullmatch(CITED, "CB-X-6:5") and re.fullmatch(CITED, "L-FIXED-SHOE")
