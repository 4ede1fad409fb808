"""A shoe used up in the middle of a round is revealed at once, but its seed would rebuild the
face-down cards of the round still in play: the feed, the audit of an earlier round on that
shoe (JSON) and its page (HTML) withhold the seed from everyone but admins and auditors until
every round that dealt from the shoe has ended (api/shoe_secrets.py)."""

from __future__ import annotations

import json
import random

from ledger_client import Http
from test_rounds_http import open_table

from ledger.shuffle import dealing_order


def _step(http: Http, rid: str) -> dict:
    """One admin move of a plain strategy: stake 100, no dealer double, draw below 19, the
    dealer below 17."""
    view = http.get(f"/v1/rounds/{rid}")
    phase = view["phase"]
    if phase == "staking":
        hand = next(h for h in view["hands"] if h["stake"] == 0)
        body = {"action": "stake", "amount": 100, "actor": hand["player"]}
    elif phase == "dealer_double":
        body = {"action": "dealer_double", "called": False}
    elif phase == "play":
        hand = next(h for h in view["hands"] if h["id"] == view["current_turn"])
        body = {"action": "hit" if hand["total"] < 19 else "stand", "hand": hand["id"]}
    else:
        assert phase == "dealer", view
        body = {"action": "dealer_draw" if view["dealer_hand"]["total"] < 17 else "dealer_stand"}
    return http.post(f"/v1/rounds/{rid}/actions", body)["round"]


def _a_round_in_play_on_a_replacement_shoe(http: Http):
    """Plays seeded Vingt-un rounds until one uses up its shoe and goes on from a fresh one.
    Returns the table, the earlier rounds, the round in play and the used-up shoe's id."""
    http.ledger.shoes.rng = random.Random(1)  # seeded shuffles and cuts: the same every run
    t = open_table(http, "vingt-un", {"natural_passes_deal": False})
    ended = []
    for _ in range(60):
        rid = http.post(f"/v1/tables/{t.table_id}/rounds", key=http.keys["dealer"], status=201)[
            "round_id"
        ]
        view = http.get(f"/v1/rounds/{rid}")
        while not view["ended"]:
            view = _step(http, rid)
            events = http.get(f"/v1/rounds/{rid}/events")
            replaced = [e for e in events if e["type"] == "ShoeReplaced"]
            if replaced and not view["ended"]:
                used_up = next(e["data"]["shoe"] for e in events if e["type"] == "CardDealt")
                return t, ended, rid, used_up
        ended.append(rid)
    raise AssertionError("no shoe was used up mid-round")


def _audited_shoe(http: Http, rid: str, shoe: str, key: str | None) -> dict | None:
    audit = http.get(f"/v1/rounds/{rid}/audit", key=key)
    return next((s for s in audit["shoes"] if s["shoe_id"] == shoe), None)


def test_the_seed_of_a_shoe_used_up_mid_round_is_withheld_until_the_round_ends(http):
    t, ended, rid, used_up = _a_round_in_play_on_a_replacement_shoe(http)
    earlier = next(r for r in reversed(ended) if _audited_shoe(http, r, used_up, None))
    full = _audited_shoe(http, earlier, used_up, http.admin)
    seed = full["server_seed"]
    assert full["revealed"] and seed  # revealed in the store, and shown to an admin
    assert _audited_shoe(http, earlier, used_up, http.keys["auditor"])["server_seed"] == seed

    # The seed would rebuild the round in play's hidden cards (what the review showed).
    events = http.get(f"/v1/rounds/{rid}/events")
    order = dealing_order(seed, full["client_seed"], full["nonce"], full["packs"], full["cut"])
    dealt = [e["data"] for e in events if e["type"] == "CardDealt"]
    assert all(order[d["shoe_index"]] == d["card"] for d in dealt if d["shoe"] == used_up)

    # The shoe of used cards the round goes on from (VU-29) lists them: the pack less the
    # cards on the table, face-down ones included, so they are withheld as the seed is.
    (replaced,) = [e["data"]["shoe"] for e in events if e["type"] == "ShoeReplaced"]

    def stock(key: str) -> list | None:
        feed = http.get(f"/v1/tables/{t.table_id}/events?after=0&limit=1000", key=key)["items"]
        (committed,) = [
            e for e in feed if e["type"] == "Committed" and e["aggregate_id"] == replaced
        ]
        return committed["data"]["stock"]

    assert len(stock(http.admin)) > 40

    for who in ("Ann", "Bob", "dealer"):
        key = http.keys[who]
        assert stock(key) is None
        shoe = _audited_shoe(http, earlier, used_up, key)
        assert shoe["server_seed"] is None and shoe["check"]["cards"] == []
        assert shoe["check"]["status"].startswith("withheld")
        # The shoe's own events are listed with the audit (its reveal among them): the seed
        # and order masked there too; the commitment and where it was recorded are public.
        (shown,) = [e for e in shoe["events"] if e["type"] == "Revealed"]
        assert shown["data"]["server_seed"] is None and shown["data"]["fixed_order"] is None
        assert shoe["recorded"] == full["recorded"] and shoe["commitment"] == full["commitment"]
        assert seed not in json.dumps(http.get(f"/v1/rounds/{earlier}/audit", key=key))
        html = http.client.get(
            f"/audit/rounds/{earlier}", headers={"Authorization": f"Bearer {key}"}
        ).get_data(as_text=True)
        assert seed not in html and "withheld until every round" in html
        feed = http.get(f"/v1/tables/{t.table_id}/events?after=0&limit=1000", key=key)["items"]
        (revealed,) = [e for e in feed if e["type"] == "Revealed" and e["aggregate_id"] == used_up]
        assert revealed["data"]["server_seed"] is None
        assert seed not in str(feed)

    # Once the round that dealt from it has ended, the seed is shown to the round's players.
    view = http.get(f"/v1/rounds/{rid}")
    while not view["ended"]:
        view = _step(http, rid)
    assert _audited_shoe(http, earlier, used_up, http.keys["Ann"])["server_seed"] == seed
    feed = http.get(f"/v1/tables/{t.table_id}/events?after=0&limit=1000", key=http.keys["Ann"])
    assert seed in str(feed["items"])
    assert stock(http.keys["Ann"]) == stock(http.admin)
