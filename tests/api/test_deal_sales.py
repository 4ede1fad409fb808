"""Selling the deal over HTTP (VU-31, "for an agreed price"): the dealer offers with his
dealer key, the buyer accepts with his own key at the price offered; nothing moves on an
offer alone; players cannot make a one-step sale, admins can record an agreed one."""

from __future__ import annotations

from ledger_client import Http
from test_rounds_http import open_table


def _balances(http: Http, t) -> dict[str, int]:
    return {n: http.balance(pid) for n, pid in t.ids.items()}


def test_the_dealer_cannot_take_the_buyers_money_without_his_consent(http):
    t = open_table(http, "vingt-un")
    before = _balances(http, t)
    path = f"/v1/tables/{t.table_id}/deal-sales"
    sale = {"buyer": t.ids["Ann"], "price": 1_000}
    # The one-step sale the review used, with the dealer's keys: refused, nothing moves.
    for key in (http.keys["dealer"], http.keys["Dee"], http.keys["Ann"]):
        http.post(path, sale, key=key, status=403)
    assert _balances(http, t) == before
    assert http.get(f"/v1/tables/{t.table_id}")["dealer"] == t.ids["Dee"]

    # An offer moves nothing: the buyer reads it, and accepts it or not.
    offer = {"buyer": t.ids["Ann"], "price": 1_000}
    made = http.post(
        f"/v1/tables/{t.table_id}/deal-offer", offer, key=http.keys["dealer"], status=201
    )
    assert (made["seller"], made["buyer"], made["price"]) == (t.ids["Dee"], t.ids["Ann"], 1_000)
    assert http.get(f"/v1/tables/{t.table_id}/deal-offer", key=http.keys["Ann"]) == {
        "table_id": t.table_id,
        "seller": t.ids["Dee"],
        "buyer": t.ids["Ann"],
        "price": 1_000,
    }
    assert _balances(http, t) == before
    feed = http.get(f"/v1/tables/{t.table_id}/events?after=0&limit=1000", key=http.keys["Bob"])
    assert [e["data"]["clause"] for e in feed["items"] if e["type"] == "DealOffered"] == ["VU-31"]

    acceptance = f"/v1/tables/{t.table_id}/deal-offer/acceptance"
    http.post(acceptance, {"price": 1_000}, key=http.keys["Bob"], status=403)  # not offered
    http.post(acceptance, {"price": 1_000}, key=http.keys["dealer"], status=403)  # a dealer key
    http.post(acceptance, {"price": 900}, key=http.keys["Ann"], status=409)  # not the price
    body = {"price": 1_000, "buyer": t.ids["Ann"]}
    http.post(acceptance, body, key=http.keys["Ann"], status=403)  # buyer: admins only
    assert _balances(http, t) == before

    sold = http.post(acceptance, {"price": 1_000}, key=http.keys["Ann"])
    assert (sold["dealer"], sold["seller"], sold["price"]) == (t.ids["Ann"], t.ids["Dee"], 1_000)
    assert _balances(http, t) == {
        **before,
        "Dee": before["Dee"] + 1_000,
        "Ann": before["Ann"] - 1_000,
    }
    http.get(f"/v1/tables/{t.table_id}/deal-offer", key=http.keys["Ann"], status=404)


def test_an_offer_is_withdrawn_by_the_seller_or_declined_by_the_buyer(http):
    t = open_table(http, "vingt-un")
    path = f"/v1/tables/{t.table_id}/deal-offer"
    offer = {"buyer": t.ids["Ann"], "price": 300}
    http.post(path, offer, key=http.keys["dealer"], status=201)
    http.call("DELETE", path, key=http.keys["Bob"], status=403)  # a stranger to the offer
    http.call("DELETE", path, key=http.keys["Dee"], status=403)  # the seller's player key
    out = http.call("DELETE", path, key=http.keys["dealer"])
    assert out["withdrawn"]["buyer"] == t.ids["Ann"] and out["actor"] == t.ids["Dee"]
    http.call("DELETE", path, key=http.keys["dealer"], status=404)  # nothing open
    http.post(path, offer, key=http.keys["dealer"], status=201)
    assert http.call("DELETE", path, key=http.keys["Ann"])["actor"] == t.ids["Ann"]
    http.post(f"{path}/acceptance", {"price": 300}, key=http.keys["Ann"], status=409)


def test_withdrawing_when_no_offer_is_open_is_not_found_as_reading_it_is(http):
    """With no offer open there is nothing to withdraw or decline: 404 ``not-found`` with the
    very detail and clause the GET answers, for every key that may withdraw, and nothing is
    written (``Http.call`` compares the stores before and after)."""
    t = open_table(http, "vingt-un")
    path = f"/v1/tables/{t.table_id}/deal-offer"
    read = http.get(path, key=http.keys["Ann"], status=404)
    assert (read["type"].rsplit("/", 1)[-1], read["clause"]) == ("not-found", "VU-31")
    assert read["detail"] == "no offer of the deal is open at this table"
    for key in (http.keys["dealer"], http.keys["Ann"], http.admin):  # never made
        refused = http.call("DELETE", path, key=key, status=404)
        assert {k: refused[k] for k in ("type", "title", "detail", "clause")} == {
            k: read[k] for k in ("type", "title", "detail", "clause")
        }
    offer = {"buyer": t.ids["Ann"], "price": 300}
    http.post(path, offer, key=http.keys["dealer"], status=201)
    t.start(["TC", "9D", "8H", "KC", "7D", "9C"])  # the offer lapses
    assert http.call("DELETE", path, key=http.keys["Ann"], status=404)["detail"] == read["detail"]


def test_an_offer_lapses_when_a_round_starts(http):
    t = open_table(http, "vingt-un")
    before = _balances(http, t)
    offer = {"buyer": t.ids["Ann"], "price": 300}
    http.post(f"/v1/tables/{t.table_id}/deal-offer", offer, key=http.keys["dealer"], status=201)
    t.start(["TC", "9D", "8H", "KC", "7D", "9C"])
    http.get(f"/v1/tables/{t.table_id}/deal-offer", status=404)
    http.post(
        f"/v1/tables/{t.table_id}/deal-offer/acceptance",
        {"price": 300},
        key=http.keys["Ann"],
        status=409,
    )
    assert _balances(http, t) == before


def test_an_offer_lapses_when_the_table_closes(http):
    t = open_table(http, "vingt-un")
    path = f"/v1/tables/{t.table_id}/deal-offer"
    http.post(path, {"buyer": t.ids["Ann"], "price": 300}, key=http.keys["dealer"], status=201)
    assert http.get(path)["price"] == 300
    http.post(f"/v1/tables/{t.table_id}/close")
    http.get(path, status=404)
    http.call("DELETE", path, key=http.keys["dealer"], status=404)
    refused = http.post(f"{path}/acceptance", {"price": 300}, key=http.keys["Ann"], status=409)
    assert "table closes" in refused["detail"]


def test_an_admin_records_an_agreed_sale_in_one_step(http):
    t = open_table(http, "vingt-un")
    sold = http.post(f"/v1/tables/{t.table_id}/deal-sales", {"buyer": t.ids["Bob"], "price": 200})
    assert sold["dealer"] == t.ids["Bob"] and http.balance(t.ids["Dee"]) == 100_200


def test_a_buyer_short_of_the_price_is_told_his_own_balance_and_an_admin_too(http):
    t = open_table(http, "vingt-un")
    offer = {"buyer": t.ids["Ann"], "price": 10**12}
    http.post(f"/v1/tables/{t.table_id}/deal-offer", offer, key=http.keys["dealer"], status=201)
    problem = http.post(
        f"/v1/tables/{t.table_id}/deal-offer/acceptance",
        {"price": 10**12},
        key=http.keys["Ann"],
        status=409,
    )
    assert "holds 100000" in problem["detail"]  # his own wallet: he is told
    problem = http.post(
        f"/v1/tables/{t.table_id}/deal-sales", {"buyer": t.ids["Ann"], "price": 10**12}, status=409
    )
    assert "holds 100000" in problem["detail"]  # an admin is told too


def _lose_the_first_answer(http: Http, monkeypatch, path: str, body: dict) -> dict:
    """The first try applies in the ledger but its answer is never kept (the process died
    between the two writes); the retry with the same key and body is what the client sees."""
    from api import idempotency

    store = http.app.extensions["api_store"]
    real_save = store.save_response

    def crash(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(store, "save_response", crash)
    headers = {"Authorization": f"Bearer {http.admin}", "Idempotency-Key": "lost answer"}
    assert http.client.post(path, json=body, headers=headers).status_code == 500
    monkeypatch.setattr(store, "save_response", real_save)
    monkeypatch.setattr(idempotency, "FIRST_RESPONSE_WAIT", 0.05)
    response = http.client.post(path, json=body, headers=headers)
    assert response.headers.get("Idempotent-Replayed") == "true", response.json
    return response.json


def test_an_admins_retried_sale_naming_no_seller_replays_once_the_deal_has_moved(http, monkeypatch):
    """``seller`` left out means the dealer when the sale runs: read inside the command, so
    the retry, after the buyer has become the dealer, still names the same command."""
    t = open_table(http, "vingt-un")
    before = _balances(http, t)
    path = f"/v1/tables/{t.table_id}/deal-sales"
    sold = _lose_the_first_answer(http, monkeypatch, path, {"buyer": t.ids["Bob"], "price": 200})
    assert (sold["seller"], sold["dealer"]) == (t.ids["Dee"], t.ids["Bob"])
    assert _balances(http, t) == {**before, "Dee": before["Dee"] + 200, "Bob": before["Bob"] - 200}


def test_an_admins_retried_acceptance_naming_no_buyer_replays_once_the_offer_is_gone(
    http, monkeypatch
):
    t = open_table(http, "vingt-un")
    offer = {"buyer": t.ids["Ann"], "price": 300}
    http.post(f"/v1/tables/{t.table_id}/deal-offer", offer, key=http.keys["dealer"], status=201)
    before = _balances(http, t)
    path = f"/v1/tables/{t.table_id}/deal-offer/acceptance"
    sold = _lose_the_first_answer(http, monkeypatch, path, {"price": 300})
    assert (sold["seller"], sold["dealer"]) == (t.ids["Dee"], t.ids["Ann"])
    assert _balances(http, t) == {**before, "Dee": before["Dee"] + 300, "Ann": before["Ann"] - 300}


def test_the_house_dealer_key_is_told_it_holds_no_deal_to_offer(http):
    t = open_table(http, "vingt-un")
    house = http.make_key("dealer")
    offer = {"buyer": t.ids["Ann"], "price": 300}
    refused = http.post(f"/v1/tables/{t.table_id}/deal-offer", offer, key=house, status=403)
    assert "house's dealer key holds no deal" in refused["detail"]


def test_an_offer_to_oneself_is_bad_input_and_to_a_stranger_a_conflict(http):
    t = open_table(http, "vingt-un")
    path = f"/v1/tables/{t.table_id}/deal-offer"
    dealer = http.keys["dealer"]
    refused = http.post(path, {"buyer": t.ids["Dee"], "price": 300}, key=dealer, status=422)
    assert refused["detail"] == "the buyer must be another player than the seller"
    eve = http.post("/v1/players", {"name": "Eve"}, status=201)["player_id"]
    refused = http.post(path, {"buyer": eve, "price": 300}, key=dealer, status=409)
    assert refused["detail"] == f"the buyer {eve} is not seated at this table"
    assert refused["clause"] == "VU-31"
