"""One casino table played through gunicorn with 4 worker processes on one PostgreSQL schema,
by concurrent clients: a player per thread, each on its own keep-alive connection (so on
whichever worker accepted it), all staking at once and then acting when their turn comes.

Afterwards a fresh ledger application on the same schema checks what the workers wrote:
every hash chain verifies, the money sums to zero, no round holds money in escrow, every round
ended, and the settled hands and their results are exactly those the clients were shown."""

from __future__ import annotations

import threading
import time
from collections import Counter
from uuid import UUID

import pytest

from benchmarks.client import Client, HttpError
from ledger import accounts
from ledger.application import TwentyOneLedger
from ledger.balances import fold_balances
from ledger.domain.chain import verify_chain

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.parametrize("store_env", ["postgres"], indirect=True),
]

PLAYERS = 4
ROUNDS = 4
STAKE = 500
DEPOSIT = 100_000
WAIT = 30.0  # seconds any one step may take before the test gives up


def post_retrying(client: Client, path: str, body: dict) -> dict:
    """A POST that another worker's concurrent write may beat: the loser gets 409
    concurrent-update, wrote nothing, and simply sends it again."""
    for _ in range(50):
        status, out = client.call("POST", path, body)
        if status == 409 and out["type"].endswith("/concurrent-update"):
            time.sleep(0.005)
            continue
        if status != 200:
            raise HttpError("POST", path, status, out)
        return out
    raise AssertionError(f"POST {path} lost 50 races in a row")


class Seat:
    """One player's client thread: per round, stake at once, then stand each own hand when
    the round's turn reaches it; keeps what it was shown of its settled hands."""

    def __init__(self, client: Client, player_id: str):
        self.client, self.player_id = client, player_id
        self.settled: dict[tuple[str, str], int] = {}  # (round, hand) -> result

    def play(self, round_id: str) -> None:
        path = f"/v1/rounds/{round_id}"
        view = post_retrying(self.client, f"{path}/actions", {"action": "stake", "amount": STAKE})
        view = view["round"]
        deadline = time.monotonic() + WAIT
        while not view["ended"]:
            assert time.monotonic() < deadline, f"round {round_id} never ended: {view}"
            turn = view["current_turn"]
            mine = [h for h in view["hands"] if h["id"] == turn and h["player"] == self.player_id]
            if mine:
                body = {"action": "stand", "hand": turn}
                view = post_retrying(self.client, f"{path}/actions", body)["round"]
            else:
                time.sleep(0.01)
                view = self.client.get(path)
        for hand in view["hands"]:
            if hand["player"] == self.player_id:
                assert hand["settled"], hand
                self.settled[(round_id, hand["id"])] = hand["result"]


def play_table(server, admin: Client, keys, table_id: str) -> tuple[list[Seat], list[str]]:
    seats = []
    for n in range(1, PLAYERS + 1):
        pid = admin.post("/v1/players", {"name": f"P{n}"}, 201)["player_id"]
        admin.post(f"/v1/players/{pid}/deposits", {"amount": DEPOSIT})
        client = server.client(keys.create_key("player", pid)[0])
        client.post(f"/v1/tables/{table_id}/seats", {"player_id": pid, "seat": n}, 201)
        seats.append(Seat(client, pid))
    dealer = server.client(keys.create_key("dealer")[0])

    barrier = threading.Barrier(PLAYERS + 1, timeout=WAIT)
    current: list[str] = []
    errors: list[BaseException] = []

    def run(seat: Seat) -> None:
        try:
            for _ in range(ROUNDS):
                barrier.wait()  # the round is open
                seat.play(current[-1])
                barrier.wait()  # every seat has seen it end
        except BaseException as error:  # noqa: BLE001 - re-raised by the main thread
            errors.append(error)
            barrier.abort()

    threads = [threading.Thread(target=run, args=(seat,), daemon=True) for seat in seats]
    for thread in threads:
        thread.start()
    try:
        for _ in range(ROUNDS):
            current.append(dealer.post(f"/v1/tables/{table_id}/rounds", expect=201)["round_id"])
            barrier.wait()
            barrier.wait()
    except threading.BrokenBarrierError:
        pass
    for thread in threads:
        thread.join(WAIT)
    if errors:
        raise errors[0]
    assert not any(t.is_alive() for t in threads), "a client thread hung"
    return seats, current


def test_a_table_through_four_workers_on_postgres(store_env, serve):
    from api.store import ApiStore

    environ = {
        "LEDGER_STORE": "postgres",
        **{k: v for k, v in store_env.items() if k.startswith("POSTGRES_")},
        "WEB_CONCURRENCY": "4",
        "GUNICORN_THREADS": "2",
        "POSTGRES_POOL_SIZE": "2",
    }
    keys = ApiStore(env=store_env)
    ledger = None
    try:
        server = serve(environ)
        admin = server.client(keys.create_key("admin")[0])
        body = {"family": "casino", "options": {"insurance": False}, "name": "four workers"}
        table_id = admin.post("/v1/tables", body, 201)["table_id"]
        seats, round_ids = play_table(server, admin, keys, table_id)
        balances = {s.player_id: admin.get(f"/v1/players/{s.player_id}")["balance"] for s in seats}
        assert server.stop() == 0, server.log()[-3000:]

        ledger = TwentyOneLedger(env=store_env)
        check_ledger(ledger, table_id, round_ids, seats, balances)
    finally:
        keys.close()
        if ledger is not None:
            ledger.close()


def check_ledger(ledger, table_id, round_ids, seats, balances) -> None:
    notifications = ledger.recorder.select_notifications(start=1, limit=10**6)
    for stream in dict.fromkeys(n.originator_id for n in notifications):
        ok, fault = verify_chain(ledger.events.get(stream))
        assert ok, fault

    books = fold_balances(ledger)
    assert sum(books.values()) == 0
    assert ledger.get_table(table_id).rounds == ROUNDS
    shown = {key: result for seat in seats for key, result in seat.settled.items()}
    recorded, per_player = {}, Counter()
    for rid in round_ids:
        rnd = ledger.get_round(rid)
        assert rnd.ended
        assert books.get(accounts.escrow(UUID(rid)), 0) == 0, f"round {rid} holds money"
        for hand_id, hand in rnd.hands.items():
            assert hand["settled"]
            recorded[(rid, hand_id)] = hand["result"]
            per_player[hand["player"]] += hand["result"]
    assert len(recorded) >= PLAYERS * ROUNDS
    assert recorded == shown  # the same hands, the same results, as the clients were shown
    for seat in seats:
        assert balances[seat.player_id] == DEPOSIT + per_player[seat.player_id]
        assert books[accounts.player(UUID(seat.player_id))] == balances[seat.player_id]
    assert books.get(accounts.house(table_id), 0) == -sum(per_player.values())
