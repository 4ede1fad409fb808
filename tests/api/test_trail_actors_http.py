"""Over HTTP, a round's trail (``GET /v1/rounds/{id}/trail``) names each event's actor as its
audit (``GET /v1/rounds/{id}/audit``) does, the wallets' ``round_movements`` included; and a
player, whose own audit hides who acted on a hand he cannot see, reads no trail at all (the
trail holds every card and actor: admins and auditors only). (Every family, every store:
tests/replay/test_trail_actors.py.)"""

from __future__ import annotations

from test_read_models import casino_double_down, hoyle_split_against_a_banker

from api.visibility import CLOSED_EVENT


def actors(audit: dict) -> dict[tuple[str, int], object]:
    """(stream, version) → actor of every event of the audit the trail holds too."""
    found = {(e["stream"], e["version"]): e["actor"] for e in audit["events"]}
    found |= {(t["stream"], t["version"]): t["actor"] for t in audit["round_transfers"]}
    for balance in audit["balances"]:
        for m in balance["round_movements"]:
            found[(balance["player"], m["version"])] = m["actor"]
    return found


def test_the_trail_names_each_events_actor_as_the_audit_does(http):
    for t in (casino_double_down(http), hoyle_split_against_a_banker(http)):
        audit = http.get(f"/v1/rounds/{t.rid}/audit", key=http.keys["auditor"])
        trail = http.get(f"/v1/rounds/{t.rid}/trail", key=http.keys["auditor"])["entries"]
        assert {(e["stream"], e["version"]): e["actor"] for e in trail} == actors(audit)
        by_type = {}
        for e in trail:
            by_type.setdefault(e["type"], set()).add(e["actor"])
        for kind in ("Round.PhaseEntered", "Round.HandSettled", "Round.Ended"):
            assert by_type[kind] == {"ledger"}, kind
        assert by_type["Player.FundsTransferred"] == {"ledger"}
        assert t.ids["Ann"] in by_type["Round.StakePlaced"]
        moves = [m for b in audit["balances"] for m in b["round_movements"]]
        assert moves and {m["actor"] for m in moves} == {"ledger"}


def test_a_player_whose_audit_hides_an_actor_reads_no_trail(http):
    t = hoyle_split_against_a_banker(http)
    trail = f"/v1/rounds/{t.rid}/trail"
    full = {(e["stream"], e["version"]): e for e in http.get(trail)["entries"]}
    hid = 0
    for who in ("Ann", "Bob", "dealer"):
        seen = http.get(f"/v1/rounds/{t.rid}/audit", key=http.keys[who])
        hidden = [e for e in seen["events"] if e["actor"] is None]
        for e in hidden:
            assert e["type"] in ("HandStood", CLOSED_EVENT), e
            # The trail names who did it: only those who see the whole audit may read it.
            entry = full[(e["stream"], e["version"])]
            assert isinstance(entry["actor"], str) and entry["actor"], entry
        hid += len(hidden)
        http.get(trail, key=http.keys[who], status=403)
    assert hid, "an audit that hid who acted on a hand"
