"""Burned cards are face down (SHUFFLE.md "Cutting and burning": a casino burn deals cards
face down to the discard). A key that is not admin or auditor reads a ``CardBurned``'s card as
``"??"`` (the event and its ``shoe_index`` stay) until the shoe's seed may be shown to it
(api/shoe_secrets.py), in the round's events, the table feed and its live stream, and the
round's audit (JSON and HTML). Cut cards (``Table.CutForDeal``, VU-2) are turned up and stay
shown."""

from __future__ import annotations

import json
import random

from ledger_client import Http
from test_rounds_http import open_table

HIDDEN = "??"
HOUSE_OPTIONS = {"insurance": False, "decks": 1, "penetration": 90, "burn": 5}


def _step(http: Http, rid: str) -> dict:
    """One admin move: stake 200, draw below 17."""
    view = http.get(f"/v1/rounds/{rid}")
    if view["phase"] == "betting":
        hand = next(h for h in view["hands"] if h["stake"] == 0)
        body = {"action": "stake", "amount": 200, "actor": hand["player"]}
    else:
        assert view["phase"] == "play", view
        hand = next(h for h in view["hands"] if h["id"] == view["current_turn"])
        body = {"action": "hit" if hand["total"] < 17 else "stand", "hand": hand["id"]}
    return http.post(f"/v1/rounds/{rid}/actions", body)["round"]


def _key(http: Http, who: str) -> str:
    return http.admin if who == "admin" else http.keys[who]


def _burns(events: list[dict]) -> list[dict]:
    return [e["data"] for e in events if e["type"] == "CardBurned"]


def _round_events(http: Http, rid: str, who: str) -> list[dict]:
    return http.get(f"/v1/rounds/{rid}/events", key=_key(http, who))


def _feed(http: Http, table_id: str, who: str) -> list[dict]:
    return http.get(f"/v1/tables/{table_id}/events?after=0&limit=1000", key=_key(http, who))[
        "items"
    ]


def _stream(http: Http, table_id: str, who: str) -> list[dict]:
    response = http.client.get(
        f"/v1/tables/{table_id}/events/stream?after=0&timeout=0",
        headers={"Authorization": f"Bearer {_key(http, who)}"},
    )
    blocks = response.get_data(as_text=True).split("\n\n")
    return [json.loads(b.split("\ndata: ", 1)[1]) for b in blocks if b.startswith("id:")]


def _audit(http: Http, rid: str, who: str) -> dict:
    return http.get(f"/v1/rounds/{rid}/audit", key=_key(http, who))


def _audit_page(http: Http, rid: str, who: str) -> str:
    response = http.client.get(
        f"/audit/rounds/{rid}", headers={"Authorization": f"Bearer {_key(http, who)}"}
    )
    assert response.status_code == 200
    return response.get_data(as_text=True)


def _quoted(cards: list[str]) -> list[str]:
    return [f'"{c}"' for c in cards]


def _start(http: Http, table_id: str) -> str:
    made = http.post(f"/v1/tables/{table_id}/rounds", key=http.keys["dealer"], status=201)
    return made["round_id"]


def _play_out(http: Http, rid: str) -> None:
    view = http.get(f"/v1/rounds/{rid}")
    while not view["ended"]:
        view = _step(http, rid)


NOT_SEEING = ("Ann", "Bob", "dealer", "Eve")


def test_burned_cards_read_face_down_to_players_and_the_dealer_while_the_shoe_is_in_play(http):
    t = open_table(http, "casino", HOUSE_OPTIONS)
    rid = _start(http, t.table_id)
    burned = _burns(_round_events(http, rid, "admin"))
    cards = [b["card"] for b in burned]
    assert len(cards) == 5 and HIDDEN not in cards  # one pack: five distinct cards
    assert [b["card"] for b in _burns(_round_events(http, rid, "auditor"))] == cards
    assert [b["card"] for b in _burns(_feed(http, t.table_id, "auditor"))] == cards

    for who in NOT_SEEING:
        for read in (_round_events(http, rid, who), _feed(http, t.table_id, who)):
            # Still there, with the shoe and where in it: only the face is down.
            assert _burns(read) == [{**b, "card": HIDDEN} for b in _without_chain(burned)]
            assert not any(c in json.dumps(read) for c in _quoted(cards)), who
        streamed = _stream(http, t.table_id, who)
        assert [b["card"] for b in _burns(streamed)] == [HIDDEN] * 5
        assert not any(c in json.dumps(streamed) for c in _quoted(cards)), who


def _without_chain(burned: list[dict]) -> list[dict]:
    return [{k: v for k, v in b.items() if k not in ("hash", "prev_hash")} for b in burned]


def test_burned_cards_stay_face_down_in_the_audit_until_the_shoe_is_revealed(http):
    t = open_table(http, "casino", HOUSE_OPTIONS)
    rid = _start(http, t.table_id)
    _play_out(http, rid)  # the round has ended; its shoe deals the next round
    cards = [b["card"] for b in _burns(_round_events(http, rid, "admin"))]
    assert [
        e["card"] for e in _audit(http, rid, "auditor")["events"] if e["type"] == "CardBurned"
    ] == cards

    for who in ("Ann", "Bob"):  # the round's own players read its audit
        audit = _audit(http, rid, who)
        entries = [e for e in audit["events"] if e["type"] == "CardBurned"]
        assert [(e["card"], e["data"]["card"]) for e in entries] == [(HIDDEN, HIDDEN)] * 5
        assert audit["shoe"]["check"]["cards"] == []  # not revealed: nothing to check yet
        assert not any(c in json.dumps(audit) for c in _quoted(cards)), who
        page = _audit_page(http, rid, who)
        for card in cards:
            assert f'data-card="{card}"' not in page, (who, card)
    for who in NOT_SEEING:
        assert [b["card"] for b in _burns(_round_events(http, rid, who))] == [HIDDEN] * 5

    # Closing the table retires and reveals the shoe: its seed rebuilds the burned cards for
    # anyone, so they are shown, and the audit checks them against the shuffle.
    http.post(f"/v1/tables/{t.table_id}/close")
    for who in NOT_SEEING:
        assert [b["card"] for b in _burns(_round_events(http, rid, who))] == cards, who
        assert [b["card"] for b in _burns(_feed(http, t.table_id, who))] == cards, who
    audit = _audit(http, rid, "Ann")
    assert [e["card"] for e in audit["events"] if e["type"] == "CardBurned"] == cards
    checked = [c for c in audit["shoe"]["check"]["cards"] if c["type"] == "CardBurned"]
    assert [(c["card"], c["ok"]) for c in checked] == [(c, True) for c in cards]
    page = _audit_page(http, rid, "Ann")
    assert all(f'data-card="{card}"' in page for card in cards)


def test_VU_29_burns_of_a_shoe_used_up_mid_round_stay_down_until_the_round_ends(http):
    """A casino round that runs out goes on from the used cards, cut and burned (VU-29). The
    used-up shoe is revealed at once but its seed withheld while the round is in play, so the
    cards burned from it (in an earlier round) stay face down until the round has ended; the
    fresh shoe's burns stay down until it is revealed in its turn."""
    http.ledger.shoes.rng = random.Random(1)  # seeded shuffles and cuts: the same every run
    t = open_table(http, "casino", HOUSE_OPTIONS)
    rounds: list[str] = []
    for _ in range(30):
        rid = _start(http, t.table_id)
        view = http.get(f"/v1/rounds/{rid}")
        while not view["ended"]:
            view = _step(http, rid)
            events = _round_events(http, rid, "admin")
            if any(e["type"] == "ShoeReplaced" for e in events) and not view["ended"]:
                break
        else:
            rounds.append(rid)
            continue
        break
    else:
        raise AssertionError("no shoe was used up mid-round")

    (fresh,) = [e["data"]["shoe"] for e in events if e["type"] == "ShoeReplaced"]
    used_up = next(e["data"]["shoe"] for e in events if e["type"] == "CardDealt")
    assert http.ledger.get_shoe(used_up).revealed
    first = next(  # the round that started the used-up shoe, and burned from it
        r
        for r in rounds
        if any(b["shoe"] == used_up for b in _burns(_round_events(http, r, "admin")))
    )
    old = [b["card"] for b in _burns(_round_events(http, first, "admin"))]
    new = [b["card"] for b in _burns(events) if b["shoe"] == fresh]
    assert len(old) == len(new) == 5

    for who in NOT_SEEING:
        assert [b["card"] for b in _burns(_round_events(http, first, who))] == [HIDDEN] * 5
        assert [b["card"] for b in _burns(_round_events(http, rid, who))] == [HIDDEN] * 5
        fed = [b for b in _burns(_feed(http, t.table_id, who)) if b["shoe"] in (used_up, fresh)]
        assert [b["card"] for b in fed] == [HIDDEN] * 10, who
    assert [
        e["card"] for e in _audit(http, first, "Ann")["events"] if e["type"] == "CardBurned"
    ] == [HIDDEN] * 5

    _play_out(http, rid)
    for who in NOT_SEEING:
        assert [b["card"] for b in _burns(_round_events(http, first, who))] == old, who
        assert [b["card"] for b in _burns(_round_events(http, rid, who))] == [HIDDEN] * 5, who
        fed = {b["shoe"]: [] for b in _burns(_feed(http, t.table_id, who))}
        for b in _burns(_feed(http, t.table_id, who)):
            fed[b["shoe"]].append(b["card"])
        assert (fed[used_up], fed[fresh]) == (old, [HIDDEN] * 5), who
    assert [
        e["card"] for e in _audit(http, first, "Ann")["events"] if e["type"] == "CardBurned"
    ] == old
    audit = _audit(http, rid, "Ann")  # the fresh shoe deals no more: it waits to be revealed
    assert [e["card"] for e in audit["events"] if e["type"] == "CardBurned"] == [HIDDEN] * 5
