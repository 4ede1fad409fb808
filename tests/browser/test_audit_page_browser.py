"""The audit page (``/audit/rounds/{id}``) in a real headless chromium against a real gunicorn:
a casino round with a double down played over HTTP, the page opened with a Bearer key and
through the sign-in form, and a full-page screenshot checked for the key content."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from benchmarks.client import Client
from benchmarks.server import GunicornServer

STAKE = 200
DEPOSIT = 100_000
RED_CARD = (200, 16, 46)  # the red of hearts and diamonds in api/templates/audit/_cards.html
MAX_ROUNDS = 12  # a random shoe: retry until a round has a double down and a red card


@dataclass
class Played:
    server: GunicornServer
    keys: dict[str, str]
    ids: dict[str, str]  # name -> player id
    table_id: str
    round_id: str = ""
    audit: dict[str, Any] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"{self.server.url}/audit/rounds/{self.round_id}"

    def dealt(self) -> list[str]:
        return [e["card"] for e in self.audit["events"] if e["type"] in ("CardDealt", "CardBurned")]


def _round_with_a_double_down(dealer: Client, players: dict[str, Client], tid: str) -> tuple:
    """One casino round: everyone stakes; the first hand whose turn comes doubles down if the
    rules let it (not on a natural), every other hand stands. (round id, whether doubled)."""
    view = dealer.post(f"/v1/tables/{tid}/rounds", expect=201)
    actions = f"/v1/rounds/{view['round_id']}/actions"
    for client in players.values():
        view = client.post(actions, {"action": "stake", "amount": STAKE})["round"]
    doubled = False
    for _ in range(4 * len(players) + 4):  # every action closes a hand: bounded
        if view["ended"]:
            return view["round_id"], doubled
        turn = view["current_turn"]
        owner = players[next(h["player"] for h in view["hands"] if h["id"] == turn)]
        if not doubled:
            status, body = owner.call("POST", actions, {"action": "double_down", "hand": turn})
            if status == 200:
                doubled, view = True, body["round"]
                continue
        view = owner.post(actions, {"action": "stand", "hand": turn})["round"]
    raise AssertionError(f"round {view['round_id']} did not end")


@pytest.fixture
def played(chromium, server: GunicornServer, make_key) -> Played:
    admin = server.client(make_key("admin"))
    dealer = server.client(make_key("dealer"))  # the house dealer
    tid = admin.post("/v1/tables", {"family": "casino", "options": {"insurance": False}}, 201)
    tid = tid["table_id"]
    keys, ids, players = {"auditor": make_key("auditor")}, {}, {}
    for seat, name in enumerate(("Ann", "Bob"), start=1):
        pid = admin.post("/v1/players", {"name": name}, 201)["player_id"]
        admin.post(f"/v1/players/{pid}/deposits", {"amount": DEPOSIT})
        keys[name], ids[name] = make_key("player", pid), pid
        players[pid] = server.client(keys[name])
        players[pid].post(f"/v1/tables/{tid}/seats", {"player_id": pid, "seat": seat}, 201)

    game = Played(server, keys, ids, tid)
    auditor = server.client(keys["auditor"])
    for _ in range(MAX_ROUNDS):
        game.round_id, doubled = _round_with_a_double_down(dealer, players, tid)
        game.audit = auditor.get(f"/v1/rounds/{game.round_id}/audit")
        if doubled and any(card[1] in "HD" for card in game.dealt()):
            break
    else:
        raise AssertionError(f"no double down with a red card in {MAX_ROUNDS} rounds")
    admin.post(f"/v1/tables/{tid}/close")  # reveals the shoe's seed: the shoe check runs
    game.audit = auditor.get(f"/v1/rounds/{game.round_id}/audit")
    assert game.audit["shoe"]["check"]["ok"] is True
    return game


def _watch_requests(page: Any, origin: str) -> list[str]:
    """Every URL the page asks for that is not this server's (there must be none)."""
    elsewhere: list[str] = []
    page.on(
        "request",
        lambda request: None if request.url.startswith(origin) else elsewhere.append(request.url),
    )
    return elsewhere


def _check_screenshot(path: Path, red_expected: bool) -> None:
    from PIL import Image

    assert path.is_file() and path.stat().st_size > 30_000
    with Image.open(path) as shot:
        image = shot.convert("RGB")
    width, height = image.size
    assert width >= 1000 and height > 1500, image.size  # the full page, not the viewport
    colours = image.getcolors(maxcolors=width * height)
    assert colours is not None and len(colours) > 64, "the screenshot looks blank"
    background = max(colours)[0]
    assert background < 0.9 * width * height, "the screenshot is one colour"
    if red_expected:
        red = sum(
            count
            for count, (r, g, b) in colours
            if abs(r - RED_CARD[0]) <= 12 and g <= 30 and abs(b - RED_CARD[2]) <= 16
        )
        assert red > 200, f"no red suit drawn ({red} red pixels)"


def test_the_audit_page_in_chromium_with_a_bearer_key(played: Played, browser, tmp_path):
    context = browser(extra_http_headers={"Authorization": f"Bearer {played.keys['auditor']}"})
    page = context.new_page()
    elsewhere = _watch_requests(page, played.server.url)
    response = page.goto(played.url, wait_until="load")
    assert response is not None and response.status == 200
    shot = tmp_path / "audit.png"
    page.screenshot(path=str(shot), full_page=True)

    text = page.inner_text("body")
    report = played.audit
    assert played.round_id in text and report["table_id"] in text
    assert "Hash chain: PASS" in text and "Shoe check: PASS" in text
    for hand in report["hands"]:
        settlement = hand["settlement"]
        assert settlement["outcome"].lower() in text.lower()
        for clause in settlement["clauses"]:
            assert clause["id"] in text and clause["text"] in text
    assert "Doubled down" in text
    cited = {c["id"] for e in report["events"] for c in e["clauses"]}
    assert cited and all(clause in text for clause in cited)

    # One picture per card drawn from the shoe in the timeline, the same cards in order.
    pictured = page.eval_on_selector_all(
        "#events svg.card", "cards => cards.map(c => c.dataset.card)"
    )
    assert pictured == played.dealt() and len(pictured) == report["shoe"]["cards_of_this_round"]
    hands = page.locator("section.hand").count()
    assert hands == len(report["hands"]) + len(report["dealer_hands"])
    assert elsewhere == []

    red = any(card[1] in "HD" for card in played.dealt())
    _check_screenshot(shot, red_expected=red)


def test_a_player_signs_in_through_the_form(played: Played, browser, tmp_path):
    context = browser()
    page = context.new_page()
    elsewhere = _watch_requests(page, played.server.url)
    page.goto(played.url)
    assert "/audit/login?next=" in page.url  # sent to the form, and back after it
    page.fill("#key", played.keys["Ann"])
    page.click("#login button[type=submit]")
    page.wait_for_url(played.url)

    text = page.inner_text("body")
    assert "Your view of this round" in text and played.round_id in text
    mine = [h["id"] for h in played.audit["hands"] if h["player"] == played.ids["Ann"]]
    shown = page.eval_on_selector_all("section.hand", "s => s.map(e => e.id)")
    assert shown == [f"hand-{h}" for h in mine] + ["hand-dealer"]
    assert "Hash chain: PASS" in text

    (cookie,) = [c for c in context.cookies() if c["name"] == "audit_key"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/audit"
    page.screenshot(path=str(tmp_path / "player.png"), full_page=True)
    assert elsewhere == []
