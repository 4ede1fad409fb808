"""``GET /audit/rounds/{id}`` (api/audit_page.py): the audit of a disputed round as an HTML
page, from the same document as ``GET /v1/rounds/{id}/audit``, behind the same keys, with a
sign-in form for people with a browser. The rounds are test_audit.py's."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from uuid import uuid4

import pytest
from ledger_client import Http
from markupsafe import escape
from test_rounds_http import HIDDEN, Table, casino_double_down, open_table

from api.audit_page import COOKIE, HOME
from api.audit_value_words import when
from api.openapi import build_spec

BROWSER = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


def vingt_un_round(http: Http, finish: bool = True) -> Table:
    t = open_table(http, "vingt-un")
    t.start(["TC", "9D", "8H", "KC", "7D", "9C", "6D"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    http.act(t.rid, "Bob", action="stake", amount=200)
    http.act(t.rid, "dealer", action="dealer_double", called=True)
    http.act(t.rid, "Ann", action="stand", hand="h1")
    if finish:
        http.act(t.rid, "Bob", action="hit", hand="h2")
        http.act(t.rid, "dealer", action="dealer_stand")
    return t


def page(t: Table, who: str = "auditor", status: int = 200, headers=None) -> str:
    key = t.http.admin if who == "admin" else t.http.keys[who]
    sent = {"Authorization": f"Bearer {key}", **(headers or {})}
    response = t.http.client.get(f"/audit/rounds/{t.rid}", headers=sent)
    assert response.status_code == status, response.get_data(as_text=True)[:2000]
    assert response.mimetype == "text/html"
    return response.get_data(as_text=True)


def audit(t: Table, who: str = "auditor") -> dict:
    return t.http.get(f"/v1/rounds/{t.rid}/audit", key=t.http.keys[who])


class Timeline(HTMLParser):
    """The timeline's rows (type, hand) and the card each pictures, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict] = []
        self.inside = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "table":
            self.inside = a.get("id") == "events"
        elif self.inside and tag == "tr" and "event" in (a.get("class") or ""):
            self.rows.append(
                {
                    "type": a["data-type"],
                    "hand": a.get("data-hand"),
                    "position": int(a["data-position"]),
                    "cards": [],
                }
            )
        elif self.inside and tag == "svg" and self.rows:
            self.rows[-1]["cards"].append(a["data-card"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.inside = False


def timeline(html: str) -> list[dict]:
    parser = Timeline()
    parser.feed(html)
    return parser.rows


def section(html: str, element_id: str) -> str:
    start = html.index(f'id="{element_id}"')
    return html[start : html.index("</section>", start)]


# -- what the page shows -------------------------------------------------------------------


def dealer_divides(http: Http, options: dict | None = None, *, tie: bool = False) -> Table:
    """Ann's 18 and Bob's 17 against the dealer's 8 8, divided: 8 3 K (21) and 8 T 5 (23,
    over-drawn), Ann staking 500; or, with ``tie``, 8 T (18, Ann's tie) and 8 7 K (25), Ann
    staking 300. Bob stakes 100."""
    t = open_table(http, "vingt-un", options)
    if tie:
        cards, ann, dealer = ["TH", "7H", "KD"], 300, ("stand", "draw")
    else:
        cards, ann, dealer = ["3C", "TH", "KD", "5H"], 500, ("draw", "stand", "draw")
    t.start(["TS", "TD", "8C", "8D", "7D", "8S", *cards])
    http.act(t.rid, "Ann", action="stake", amount=ann)
    http.act(t.rid, "Bob", action="stake", amount=100)
    http.act(t.rid, "dealer", action="dealer_double", called=False)
    http.act(t.rid, "Ann", action="stand", hand="h1")
    http.act(t.rid, "Bob", action="stand", hand="h2")
    for action in ("split", *dealer):
        http.act(t.rid, "dealer", action=f"dealer_{action}")
    return t


def test_an_auditor_reads_the_whole_round_as_a_page(http):
    t = casino_double_down(http)
    html = page(t)
    report = audit(t)

    assert report["round_id"] in html and report["table_id"] in html
    assert "Casino blackjack" in html and "Finished" in html
    assert "Hash chain: PASS" in html and "Full record" in html
    # Money is minor units in the data, shown as currency with the rule said out loud.
    assert "1050 is shown as 10.50" in html
    h1 = section(html, "hand-h1")
    assert "Doubled down" in h1 and "4.00" in h1 and "+4.00" in h1 and "400 × 1 = 400" in h1
    assert [m["total"] for m in report["hands"][0]["totals"]] == [6, 11, 21]
    assert re.findall(r'<td class="num">(\d+)</td>', h1) == ["6", "11", "21"]
    assert re.findall(r'data-card="(\w+)"', h1) == ["6C", "5D", "TH"]
    assert "hand-h2" in html and "hand-dealer" in html
    # Balances before and after, formatted.
    assert "1,000.00" in html and "1,004.00" in html and "1,003.00" in html
    # The timeline is the JSON's events and its shoe's (commitment, cut), in the order of
    # their positions in the log, each card pictured once.
    rows = timeline(html)
    listed = [*report["events"], *report["shoe"]["events"]]
    in_log = sorted(listed, key=lambda e: e["position"])
    assert [(r["type"], r["position"]) for r in rows] == [
        (e["type"], e["position"]) for e in in_log
    ]
    assert [r["type"] for r in rows if r["type"] in ("Committed", "Cut")] == ["Committed", "Cut"]
    types = [r["type"] for r in rows]
    assert types.index("Committed") < types.index("CardDealt")
    assert "Commitment and cut first: PASS" in html
    committed = report["shoe"]["recorded"]["committed"]
    assert f"at position {committed['position']} in the log" in html
    pictured = [c for r in rows for c in r["cards"]]
    assert pictured == [e["card"] for e in report["events"] if e["type"] == "CardDealt"]
    assert when(report["started_at"]) in html and when(report["events"][-1]["time"]) in html


def test_each_wallets_movements_are_listed_with_their_positions_in_the_log(http):
    t = vingt_un_round(http)
    html, report = page(t), audit(t)
    for balance in report["balances"]:
        moves = section(html, f"balance-{balance['player']}")
        shown = [int(p) for p in re.findall(r'<tr><td class="num">(\d+)</td>', moves)]
        assert shown and shown == [m["position"] for m in balance["round_movements"]]


def test_each_movement_of_money_names_its_actor_as_the_json_does(http):
    from api.audit_name_words import who

    transfers_shown = 0
    pooled = dealer_divides(http, {"pool_dealer_overdraw": 50, "pool_tie_share": "1/3"}, tie=True)
    for t in (casino_double_down(http), vingt_un_round(http), pooled):
        html, report = page(t), audit(t)
        names = {pid: name for name, pid in t.ids.items()}
        for balance in report["balances"]:
            moves = section(html, f"balance-{balance['player']}")
            rows = re.findall(
                r"<tr><td class=\"num\">\d+</td><td>[^<]*</td><td>[^<]*</td><td>([^<]*)</td>", moves
            )
            expected = [str(escape(who(m["actor"], names))) for m in balance["round_movements"]]
            assert rows and rows == expected
        if report["round_transfers"]:
            start = html.index('id="round-transfers"')
            moved = html[start : html.index("</table>", start)]
            rows = re.findall(
                r"<tr><td class=\"num\">\d+</td><td>[^<]*</td><td>([^<]*)</td>", moved
            )
            expected = [str(escape(who(e["actor"], names))) for e in report["round_transfers"]]
            assert rows and rows == expected
            transfers_shown += len(rows)
    assert transfers_shown


def test_the_admin_reads_the_same_page_as_an_auditor(http):
    t = casino_double_down(http)
    strip = re.compile(r"Signed in as [^<]*")
    assert strip.sub("", page(t, "admin")) == strip.sub("", page(t))


def test_every_settlement_clause_appears_with_its_text(http):
    for t in (casino_double_down(http), vingt_un_round(http)):
        html = page(t)
        for hand in audit(t)["hands"]:
            settled = section(html, f"hand-{hand['id']}")
            clauses = hand["settlement"]["clauses"]
            assert clauses
            for clause in clauses:
                assert clause["text"]
                label = f'<span class="clause">{escape(clause["id"])}</span>'
                assert f"{label}: {escape(clause['text'])}" in settled


def test_a_player_sees_only_his_own_hands_and_no_hidden_card_of_another(http):
    t = vingt_un_round(http)
    html = page(t, "Ann")
    report = audit(t, "Ann")
    assert report["scope"] == "player" and "Your view of this round" in html
    assert "hand-h1" in html and "hand-h2" not in html
    assert f"balance-{t.ids['Ann']}" in html and f"balance-{t.ids['Bob']}" not in html
    # Bob's face-down cards (9D, 7D) stay hidden from Ann, as in the JSON audit.
    rows = timeline(html)
    bob = [c for r in rows if r["hand"] == "h2" for c in r["cards"]]
    assert bob == ["hidden", "hidden", "6D"]
    assert 'data-card="9D"' not in html and 'data-card="7D"' not in html
    assert "9 of diamonds" not in html and "7 of diamonds" not in html
    # The page pictures exactly the JSON's cards, hidden ones as a card's back.
    json_cards = [e["card"] for e in report["events"] if e["type"] == "CardDealt"]
    pictured = [c for r in rows for c in r["cards"]]
    assert pictured == ["hidden" if c == HIDDEN else c for c in json_cards]
    assert json_cards.count(HIDDEN) == 4


def test_a_player_waits_for_the_end_of_his_round(http):
    t = vingt_un_round(http, finish=False)
    html = page(t, "Ann", status=403)
    assert "once it has ended" in html


def test_a_player_of_another_round_is_refused(http):
    t = casino_double_down(http)
    html = page(t, "Eve", status=403)
    assert "only the round&#39;s own players" in html and "Sign in with another key" in html
    assert "hand-h1" not in html and "Hash chain" not in html


def test_an_unknown_round_is_a_readable_404(http):
    unknown = http.client.get(f"/audit/rounds/{uuid4()}", headers=http_auth(http))
    assert unknown.status_code == 404 and unknown.mimetype == "text/html"
    assert "404 · Not found" in unknown.get_data(as_text=True)
    malformed = http.client.get("/audit/rounds/not-a-round", headers=http_auth(http))
    assert malformed.status_code == 404 and malformed.mimetype == "text/html"


def http_auth(http: Http) -> dict:
    return {"Authorization": f"Bearer {http.admin}"}


def test_labels_and_data_are_escaped(http, make_key):
    t = casino_double_down(http)
    http.keys["odd"] = make_key("auditor", label="<script>alert('x')</script>")
    html = page(t, "odd")
    assert "<script" not in html and "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html


# -- keys: header, redirect, sign-in form --------------------------------------------------


def test_a_browser_without_a_key_is_sent_to_the_sign_in_form(http):
    t = casino_double_down(http)
    response = http.client.get(f"/audit/rounds/{t.rid}", headers=BROWSER)
    assert response.status_code == 303
    assert response.headers["Location"] == f"/audit/login?next=/audit/rounds/{t.rid}"


def test_an_api_client_without_a_key_gets_401_html(http):
    t = casino_double_down(http)
    for headers in ({}, {"Authorization": "Bearer tol_not-a-key", **BROWSER}):
        response = http.client.get(f"/audit/rounds/{t.rid}", headers=headers)
        assert response.status_code == 401 and response.mimetype == "text/html"
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
        assert "Sign-in needed" in response.get_data(as_text=True)


def test_the_sign_in_form_sets_a_strict_cookie_that_opens_the_page(http):
    t = casino_double_down(http)
    target = f"/audit/rounds/{t.rid}"
    form = http.client.get(f"/audit/login?next={target}")
    assert form.status_code == 200
    assert f'name="next" value="{target}"' in form.get_data(as_text=True)

    response = http.client.post("/audit/login", data={"key": http.keys["Ann"], "next": target})
    assert response.status_code == 303 and response.headers["Location"] == target
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith(f"{COOKIE}={http.keys['Ann']};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/audit" in cookie

    opened = http.client.get(target, headers=BROWSER)
    assert opened.status_code == 200 and "Your view of this round" in opened.get_data(as_text=True)
    assert "Sign out" in opened.get_data(as_text=True)
    signed_in = http.client.get("/audit/login").get_data(as_text=True)
    assert "You are signed in as player" in signed_in

    out = http.client.post("/audit/logout")
    assert out.status_code == 303 and f"{COOKIE}=;" in out.headers["Set-Cookie"]
    assert http.client.get(target, headers=BROWSER).status_code == 303


def test_the_cookie_is_not_a_key_for_the_json_api(http):
    t = casino_double_down(http)
    # Sent everywhere on purpose (a browser would send it only under /audit).
    http.client.set_cookie(COOKIE, http.keys["auditor"], path="/")
    assert http.client.get(f"/v1/rounds/{t.rid}/audit").status_code == 401
    assert http.client.get(f"/audit/rounds/{t.rid}").status_code == 200


def test_a_wrong_key_is_refused_by_the_form(http):
    response = http.client.post("/audit/login", data={"key": "tol_wrong", "next": HOME})
    assert response.status_code == 401 and "Set-Cookie" not in response.headers
    assert "not accepted" in response.get_data(as_text=True)


def test_a_revoked_key_in_the_cookie_is_forgotten(http, app):
    t = casino_double_down(http)
    secret = http.make_key("auditor")
    http.client.post("/audit/login", data={"key": secret, "next": HOME})
    store = app.extensions["api_store"]
    store.revoke(store.find_key(secret).id)
    response = http.client.get(f"/audit/rounds/{t.rid}", headers=BROWSER)
    assert response.status_code == 303 and f"{COOKIE}=;" in response.headers["Set-Cookie"]


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/audit/rounds/x",
        "//evil.example/audit/rounds/x",
        "/\\evil.example",
        "/audit/\\evil.example",
        "javascript:alert(1)",
        "/v1/rounds",
        "/audit/rounds/x\r\nSet-Cookie: a=b",
        "",
    ],
)
def test_sign_in_never_redirects_off_the_audit_pages(http, target):
    response = http.client.post("/audit/login", data={"key": http.admin, "next": target})
    assert response.status_code == 303 and response.headers["Location"] == HOME
    form = http.client.get("/audit/login", query_string={"next": target}).get_data(as_text=True)
    assert f'name="next" value="{HOME}"' in form


def test_a_sign_in_posted_from_another_site_is_refused(http):
    for headers in (
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "https://evil.example"},
        {"Origin": "null"},  # a sandboxed frame or a data: page on another site
        {"Origin": "null", "Sec-Fetch-Site": "same-origin"},
    ):
        response = http.client.post(
            "/audit/login", data={"key": http.admin, "next": HOME}, headers=headers
        )
        assert response.status_code == 403 and "Set-Cookie" not in response.headers, headers


def test_the_pages_own_form_posts_its_origin_and_signs_in(http):
    form = http.client.get("/audit/login")
    # same-origin: the browser posts the form with this site's Origin (no-referrer made it null)
    assert form.headers["Referrer-Policy"] == "same-origin"
    assert '<meta name="referrer" content="same-origin">' in form.get_data(as_text=True)
    for headers in ({"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}, {}):
        response = http.client.post(
            "/audit/login", data={"key": http.admin, "next": HOME}, headers=headers
        )
        assert response.status_code == 303 and f"{COOKIE}=" in response.headers["Set-Cookie"]


def cookie_of_sign_in(app, make_key, setting: str | None, scheme: str) -> str:
    if setting is not None:
        app.config["AUDIT_COOKIE_SECURE"] = setting
    client = app.test_client()
    response = client.post(
        "/audit/login",
        data={"key": make_key("auditor"), "next": HOME},
        base_url=f"{scheme}://localhost",
    )
    assert response.status_code == 303
    return response.headers["Set-Cookie"]


@pytest.mark.parametrize(
    "setting, scheme, secure",
    [
        (None, "http", False),  # auto: as the request came
        (None, "https", True),
        ("true", "http", True),  # a TLS proxy the server cannot see
        ("false", "https", False),
    ],
)
def test_the_sign_in_cookie_is_secure_as_configured(
    app, make_key, setting, scheme, secure, monkeypatch
):
    monkeypatch.delenv("AUDIT_COOKIE_SECURE", raising=False)
    cookie = cookie_of_sign_in(app, make_key, setting, scheme)
    assert ("; Secure" in cookie) is secure
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/audit" in cookie


def test_a_bad_cookie_setting_stops_the_app_at_start(memory_env, monkeypatch):
    from api import create_app

    monkeypatch.setenv("AUDIT_COOKIE_SECURE", "sometimes")
    with pytest.raises(ValueError, match="AUDIT_COOKIE_SECURE must be one of auto, true, false"):
        create_app({"TESTING": True, "STORE_ENV": memory_env})
    monkeypatch.setenv("AUDIT_COOKIE_SECURE", "TRUE")
    app = create_app({"TESTING": True, "STORE_ENV": memory_env})
    assert app.config["AUDIT_COOKIE_SECURE"] == "true"


# -- self-contained, and not part of the API ------------------------------------------------

_LINK = re.compile(r"""\b(src|href|action|srcset|xlink:href)\s*=\s*["']?([^"'\s>]*)""", re.I)


def assert_self_contained(html: str) -> None:
    for attribute, value in _LINK.findall(html):
        assert value.startswith(("/", "#")) and not value.startswith("//"), (attribute, value)
        assert "http:" not in value and "https:" not in value
    lowered = html.lower()
    for tag in ("<script", "<link", "<img", "<iframe", "<object", "<embed", "@import", "url("):
        assert tag not in lowered, tag


def test_the_pages_load_nothing_from_elsewhere(http):
    t = casino_double_down(http)
    http.ledger.close_table(t.table_id)  # the revealed shoe adds its check table
    pages = [
        page(t),
        page(vingt_un_round(http), "Ann"),
        http.client.get("/audit/login?next=/audit/rounds/x").get_data(as_text=True),
        page(t, "Eve", status=403),
    ]
    for html in pages:
        assert_self_contained(html)
    response = http.client.get(f"/audit/rounds/{t.rid}", headers=http_auth(http))
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src" not in policy
    assert response.headers["Cache-Control"] == "no-store"


def test_the_shoe_check_shows_once_the_seed_is_revealed(http):
    t = casino_double_down(http)
    assert "Shoe check: not yet possible" in page(t)
    http.ledger.close_table(t.table_id)
    html = page(t)
    assert "Shoe check: PASS" in html and html.count('<span class="verdict pass">yes</span>') == 8


def test_the_html_routes_stay_out_of_the_openapi_document(app):
    paths = build_spec(app)["paths"]
    assert not [p for p in paths if p.startswith("/audit")]


# -- money between players, hands settled early, the bank's cover ---------------------------


def vingt_un_natural_collects(http: Http) -> Table:
    """VU-10 with ``natural_collects_from_players``: Ann's natural (ace, king) collects one stake
    from Bob (10, 9) and is paid double by the dealer; Bob then loses to the dealer's 20."""
    t = open_table(http, "vingt-un", {"natural_collects_from_players": True})
    t.start(["AC", "TC", "TD", "KC", "9C", "QD"])
    http.act(t.rid, "Ann", action="stake", amount=200)
    http.act(t.rid, "Bob", action="stake", amount=300)
    http.act(t.rid, "dealer", action="dealer_double", called=False)
    http.act(t.rid, "Bob", action="stand", hand="h2")
    http.act(t.rid, "dealer", action="dealer_stand")
    return t


def test_a_natural_collecting_from_another_player_counts_in_both_hands_nets(http):
    t = vingt_un_natural_collects(http)
    assert t.changes() == {"Dee": -100, "Ann": 700, "Bob": -600}
    report = audit(t)
    hands = {h["id"]: h for h in report["hands"]}
    assert {k: (h["settlement"]["amount"], h["side_net"], h["net"]) for k, h in hands.items()} == {
        "h1": (400, 300, 700),
        "h2": (-300, -300, -600),
    }
    [collected] = hands["h1"]["side_payments"]
    assert (collected["from_hand"], collected["clause"]) == ("h2", "VU-10")
    html = page(t)
    results = html[html.index('id="results"') : html.index("</table>", html.index('id="results"'))]
    assert "+7.00" in results and "−6.00" in results
    assert "+4.00" not in results and "−3.00" not in results
    assert "Paid to the holder of hand 1" in section(html, "hand-h2")
    assert "Collected from hand 2" in section(html, "hand-h1")


def test_a_hand_settled_before_the_dealer_played_says_so_not_that_it_was_hidden(http):
    t = vingt_un_natural_collects(http)
    html = page(t)
    natural = section(html, "hand-h1")
    assert "settled before the dealer played" in natural
    assert "not shown to you" not in natural
    assert "dealer 20" in section(html, "hand-h2")
    assert audit(t)["hands"][0]["settlement"]["dealer_played"] is False


def test_a_settlement_against_the_dealers_divided_hands_shows_each_total(http):
    """VU-21: Ann's 18 against the dealer's 8 3 K (21) and 8 T 5 (23): -2 and +1. Each total
    weighed is in the audit (JSON and page), so the payout can be recomputed by hand."""
    t = dealer_divides(http)
    assert t.changes() == {"Dee": 600, "Ann": -500, "Bob": -100}

    for who in ("auditor", "Ann"):
        settled = audit(t, who)["hands"][0]["settlement"]
        assert (settled["amount"], settled["multiplier"]) == (-500, "-1")
        assert settled["dealer_totals"] == {"dealer": 21, "dealer2": 23}
    events = [e for e in audit(t, "Ann")["events"] if e["type"] == "HandSettled"]
    assert [e["data"]["dealer_totals"] for e in events] == [{"dealer": 21, "dealer2": 23}] * 2
    assert "dealer 21 (the dealer&#39;s hand), 23 (the dealer&#39;s second hand)" in section(
        page(t), "hand-h1"
    )


def test_the_bank_covers_release_reads_as_returned_to_the_banker(http):
    t = vingt_un_natural_collects(http)
    released = [
        e for e in audit(t)["events"] if e["type"] == "BankCovered" and e["data"]["amount"] < 0
    ]
    assert released
    rows = [r for r in page(t).split("<tr") if 'data-type="BankCovered"' in r]
    assert any("released back to the banker" in r for r in rows)
    assert sum("cover was set aside" in r for r in rows) == len(rows) - len(released)


def test_the_dealers_cover_released_for_the_pool_names_each_payment(http):
    """VU-27 (b), (c): Ann's 18 ties the dealer's first divided hand (8 T) and wins on his
    second (8 7 K), which over-draws; Bob's 17 loses to one and wins on the other. Nothing
    moves between them, but the dealer pays the pool 50 for the over-draw and a third of
    Ann's 300 received on the tie, each from his cover, and the page says which is which."""
    options = {"pool_dealer_overdraw": 50, "pool_tie_share": "1/3"}
    t = dealer_divides(http, options, tie=True)
    assert t.changes() == {"Dee": -150, "Ann": 0, "Bob": 0}

    released = [
        e["data"]["amount"]
        for e in audit(t)["events"]
        if e["type"] == "BankCovered" and e["data"]["clause"] == "VU-27" and e["amount"] < 0
    ]
    assert released == [-50, -100]
    rows = [r for r in page(t).split("<tr") if 'data-type="BankCovered"' in r]
    paid = [r.split(" to pay ")[1].split("<span")[0].strip() for r in rows if " to pay " in r]
    assert paid == [
        "the dealer&#39;s over-draw penalty (VU-27 b)",
        "the dealer&#39;s share of his receipts on ties (VU-27 c)",
    ]
    assert audit(t)["money_reconciles"]["ok"] is True


def test_the_house_is_named_as_who_dealt_the_casino_deal_and_its_own_draws(http):
    t = casino_double_down(http)  # Bob's stake set the deal going
    html = page(t)
    rows = re.findall(
        r'<tr class="[^"]*event[^"]*"[^>]*data-type="CardDealt"[^>]*>.*?</tr>', html, re.S
    )
    hands = [re.search(r'data-hand="([^"]*)"', row).group(1) for row in rows]
    house = ["The house (casino dealer)" in row for row in rows]

    assert hands == ["h1", "h2", "dealer", "h1", "h2", "dealer", "h1", "dealer"]
    # Every card but Ann's double down (hers, at her asking): the hole card and the draw too.
    assert house == [True] * 6 + [False, True]
    assert "Player at seat 1" in rows[6]
