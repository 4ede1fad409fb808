"""An HTTP client of the ledger's API for the end-to-end and browser tests and the HTTP load
figure: JSON over one keep-alive ``http.client`` connection, each request's latency kept
(``Client``), and one casino round played through it (``play_casino_round``)."""

from __future__ import annotations

import http.client
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import orjson

STAKE = 200  # what play_casino_round stakes on each hand


class HttpError(AssertionError):
    def __init__(self, method: str, path: str, status: int, body: Any):
        super().__init__(f"{method} {path} -> {status}: {body}")
        self.status, self.body = status, body


class _Line:
    """One keep-alive connection, which several clients (keys) may share."""

    def __init__(self) -> None:
        self.conn: http.client.HTTPConnection | None = None
        self.used = 0.0


class Client:
    """JSON over one keep-alive connection; every request's latency is kept in ``latencies``.

    A connection idle for longer than the server keeps it (gunicorn's ``keepalive``) is
    replaced before use; one that the server closed anyway is re-sent on a new connection only
    when that is safe: a GET, or a POST carrying an ``Idempotency-Key``."""

    IDLE = 3.0  # seconds; below gunicorn.conf.py's keepalive of 5

    def __init__(
        self,
        base_url: str,
        key: str | None = None,
        timeout: float = 10.0,
        line: _Line | None = None,
    ):
        parts = urlsplit(base_url)
        self.base_url = base_url
        self.host, self.port, self.key, self.timeout = parts.hostname, parts.port, key, timeout
        self.line = line or _Line()
        self.latencies: list[float] = []
        self.last_headers: dict[str, str] = {}

    def sharing(self, key: str | None = None) -> Client:
        """A client with its own key and latencies on this client's connection."""
        return Client(self.base_url, key, self.timeout, self.line)

    def close(self) -> None:
        if self.line.conn is not None:
            self.line.conn.close()
            self.line.conn = None

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        expect: int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> tuple[int, Any]:
        sent = {"Accept": "application/json", **(headers or {})}
        if self.key:
            sent.setdefault("Authorization", f"Bearer {self.key}")
        # orjson: the load generator shares the machine's two cores with the server, so its
        # own CPU per request is kept small (it parses every round's view)
        data = None if body is None else orjson.dumps(body)
        if data is not None:
            sent["Content-Type"] = "application/json"
        retry_safe = method == "GET" or "Idempotency-Key" in sent
        line = self.line
        for attempt in (1, 2):
            if line.conn is not None and time.monotonic() - line.used > self.IDLE:
                self.close()
            if line.conn is None:
                line.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            started = time.perf_counter()
            try:
                line.conn.request(method, path, body=data, headers=sent)
                response = line.conn.getresponse()
                raw = response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.close()
                if attempt == 2 or not retry_safe:
                    raise
                continue
            self.latencies.append(time.perf_counter() - started)
            line.used = time.monotonic()
            self.last_headers = dict(response.getheaders())
            out = orjson.loads(raw) if raw else None
            if expect is not None and response.status != expect:
                raise HttpError(method, path, response.status, out)
            return response.status, out
        raise AssertionError("unreachable")  # pragma: no cover

    def post(self, path: str, body: Any = None, expect: int = 200, **kw: Any) -> Any:
        return self.call("POST", path, {} if body is None else body, expect=expect, **kw)[1]

    def get(self, path: str, expect: int = 200) -> Any:
        return self.call("GET", path, expect=expect)[1]


def play_casino_round(dealer: Client, players: Mapping[str, Client], table_id: str) -> dict:
    """One round at a casino table without insurance, whatever the shoe deals: every seated
    player (``players``: player id -> that player's client) stakes, every hand stands when
    its turn comes, the house plays itself. Returns the final view of the round."""
    view = dealer.post(f"/v1/tables/{table_id}/rounds", expect=201)
    actions = f"/v1/rounds/{view['round_id']}/actions"
    for client in players.values():
        view = client.post(actions, {"action": "stake", "amount": STAKE})["round"]
    for _ in range(4 * len(players) + 4):  # every stand closes a hand: bounded
        if view["ended"]:
            return view
        turn = view["current_turn"]
        if turn is None:
            raise AssertionError(f"round waits in phase {view['phase']!r} with no turn")
        owner = next(h["player"] for h in view["hands"] if h["id"] == turn)
        view = players[owner].post(actions, {"action": "stand", "hand": turn})["round"]
    raise AssertionError(f"round {view['round_id']} did not end: {view}")
