"""Twins over HTTP on PostgreSQL: a client retries a POST with the same ``Idempotency-Key``
while the first try is still in flight, from several threads at once. The command applies
once, and every twin answers with the first response (its status and body) marked
``Idempotent-Replayed: true``: never the ledger's own record of the command (``replayed``)."""

from __future__ import annotations

import threading
from typing import Any
from uuid import UUID

import pytest

from api import create_app
from ledger.domain.round import Round

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.parametrize("store_env", ["postgres"], indirect=True),
]

TWINS = 4
REPEATS = 4
STAKE = 1_000
DEPOSIT = 100_000
SHOE = ["5H", "9S", "6H", "8D", "TC", "2C", "3D", "4H", "2D", "3H", "4S", "7C", "7D"]


def race(apps: list[Any], path: str, body: dict, headers: dict) -> list[Any]:
    """POST ``body`` to ``path`` from one thread per app, released together."""
    barrier = threading.Barrier(len(apps))
    answers: list[Any] = [None] * len(apps)

    def run(i: int) -> None:
        client = apps[i].test_client()
        barrier.wait(timeout=10)
        answers[i] = client.post(path, json=body, headers=headers)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(apps))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive(), "a twin hung"
    return answers


@pytest.mark.parametrize("workers", [1, TWINS], ids=["threads-of-one-app", "an-app-each"])
def test_twins_with_one_idempotency_key_all_get_the_first_response(store_env, workers):
    apps = [create_app({"TESTING": True, "STORE_ENV": store_env}) for _ in range(workers)]
    try:
        ledger = apps[0].extensions["ledger"]
        ann = ledger.register_player("Ann")["player_id"]
        ledger.deposit(ann, DEPOSIT)
        secret, _ = apps[0].extensions["api_store"].create_key("player", ann)
        for n in range(REPEATS):
            table = ledger.open_table("casino", {"insurance": False})["table_id"]
            ledger.seat_player(table, ann, 1)
            ledger.fix_next_shoe(table, SHOE)
            rid = ledger.start_round(table)["round_id"]
            headers = {"Authorization": f"Bearer {secret}", "Idempotency-Key": f"stake-{n}"}

            answers = race(
                [apps[i % workers] for i in range(TWINS)],
                f"/v1/rounds/{rid}/actions",
                {"action": "stake", "amount": STAKE},
                headers,
            )

            assert [a.status_code for a in answers] == [200] * TWINS, [a.json for a in answers]
            replayed = sorted(a.headers.get("Idempotent-Replayed", "") for a in answers)
            assert replayed == [""] + ["true"] * (TWINS - 1)
            first = next(a for a in answers if "Idempotent-Replayed" not in a.headers)
            assert all(a.get_data() == first.get_data() for a in answers)
            assert "replayed" not in first.json["result"]  # the request that applied it
            stakes = [e for e in ledger.events.get(UUID(rid)) if isinstance(e, Round.StakePlaced)]
            assert len(stakes) == 1
        balance = (
            apps[0]
            .test_client()
            .get(f"/v1/players/{ann}", headers={"Authorization": f"Bearer {secret}"})
        )
        assert balance.json["balance"] == DEPOSIT - REPEATS * STAKE
    finally:
        for app in apps:
            for name in ("ledger", "api_store"):
                app.extensions[name].close()
