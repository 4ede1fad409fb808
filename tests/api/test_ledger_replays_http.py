"""A retry the ledger answers from its record of the command (README, Retries) is a replay
on every endpoint: marked ``Idempotent-Replayed: true``, and a twin sent while the first try
is in flight answers with the first response. Shown on the endpoints whose bodies describe a
player, table or round rather than the command's result (deposits, withdrawals, player
registration, table opening and round start), and on an action, whose body carries it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from api import idempotency


class Scene:
    """An admin key, a player with 1 000 and a casino table where he sits."""

    def __init__(self, app: Any, make_key: Callable[..., str]) -> None:
        self.app = app
        self.ledger = app.extensions["ledger"]
        self.secret = make_key("admin")
        self.ann = self.ledger.register_player("Ann")["player_id"]
        self.ledger.deposit(self.ann, 1_000)
        self.table = self.ledger.open_table("casino", {"decks": 1})["table_id"]
        self.ledger.seat_player(self.table, self.ann, 1)

    def round(self) -> str:
        return self.ledger.start_round(self.table)["round_id"]

    def post(self, path: str, body: dict, idem: str) -> Any:
        headers = {"Authorization": f"Bearer {self.secret}", "Idempotency-Key": idem}
        return self.app.test_client().post(path, json=body, headers=headers)

    def written(self) -> int:
        return self.ledger.recorder.max_notification_id()


# What each endpoint is sent: path and body, from the scene.
ENDPOINTS = {
    "deposit": lambda s: (f"/v1/players/{s.ann}/deposits", {"amount": 700}),
    "withdrawal": lambda s: (f"/v1/players/{s.ann}/withdrawals", {"amount": 300}),
    "registration": lambda s: ("/v1/players", {"name": "Bob"}),
    "table": lambda s: ("/v1/tables", {"family": "casino", "options": {"decks": 2}}),
    "round": lambda s: (f"/v1/tables/{s.table}/rounds", {}),
    # whose body carries the ledger's result, ``replayed`` and all
    "action": lambda s: (
        f"/v1/rounds/{s.round()}/actions",
        {"action": "stake", "amount": 200, "actor": s.ann},
    ),
}


@pytest.fixture
def scene(app, make_key, monkeypatch):
    # A kept first response never comes after a crash: do not wait long for it.
    monkeypatch.setattr(idempotency, "FIRST_RESPONSE_WAIT", 0.05)
    return Scene(app, make_key)


@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_a_retry_after_a_crash_is_answered_as_a_replay(scene, monkeypatch, endpoint):
    """The ledger wrote, the process died before the response was kept: the retry is
    answered from the ledger's record, says so, and writes nothing."""
    path, body = ENDPOINTS[endpoint](scene)
    store = scene.app.extensions["api_store"]
    keep = store.save_response

    def crash(*_: Any, **__: Any) -> None:
        raise RuntimeError("the process died before keeping the response")

    monkeypatch.setattr(store, "save_response", crash)
    assert scene.post(path, body, "once").status_code == 500
    monkeypatch.setattr(store, "save_response", keep)
    applied = scene.written()

    retry = scene.post(path, body, "once")

    assert retry.status_code in (200, 201)
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert scene.written() == applied
    again = scene.post(path, body, "once")  # the retry's answer is kept now
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_data() == retry.get_data()


@pytest.mark.parametrize(
    ("endpoint", "left"), [("deposit", 1_700), ("withdrawal", 700)], ids=["deposit", "withdrawal"]
)
def test_a_replayed_deposit_or_withdrawal_answers_the_balance_it_left(
    scene, monkeypatch, endpoint, left
):
    """The ledger's record keeps the balance the command left; the wallet has moved since."""
    path, body = ENDPOINTS[endpoint](scene)
    store = scene.app.extensions["api_store"]
    keep = store.save_response
    monkeypatch.setattr(store, "save_response", lambda *_, **__: 1 / 0)
    assert scene.post(path, body, "once").status_code == 500
    monkeypatch.setattr(store, "save_response", keep)
    scene.ledger.deposit(scene.ann, 50)  # something else happens meanwhile

    retry = scene.post(path, body, "once")

    assert retry.headers["Idempotent-Replayed"] == "true"
    assert retry.json["balance"] == left
    assert scene.ledger.get_player(scene.ann).balance == left + 50


@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_a_twin_in_flight_answers_with_the_first_response(scene, monkeypatch, endpoint):
    """The first try applies the command and is slow to keep its response; its twin, answered
    by the ledger from its record, waits for that response and answers with it."""
    monkeypatch.setattr(idempotency, "FIRST_RESPONSE_WAIT", 5.0)
    path, body = ENDPOINTS[endpoint](scene)
    store = scene.app.extensions["api_store"]
    keep = store.save_response
    keeping = threading.Event()

    def slow_first(*args: Any, **kwargs: Any) -> Any:
        if not keeping.is_set():
            keeping.set()
            time.sleep(0.3)
        return keep(*args, **kwargs)

    monkeypatch.setattr(store, "save_response", slow_first)
    answers: dict[str, Any] = {}
    first = threading.Thread(target=lambda: answers.update(first=scene.post(path, body, "k")))
    first.start()
    assert keeping.wait(timeout=10)  # the command is applied; its response not yet kept
    applied = scene.written()
    twin = scene.post(path, body, "k")
    first.join(timeout=30)

    assert "Idempotent-Replayed" not in answers["first"].headers
    assert twin.headers["Idempotent-Replayed"] == "true"
    assert twin.status_code == answers["first"].status_code
    assert twin.get_data() == answers["first"].get_data()
    assert scene.written() == applied
