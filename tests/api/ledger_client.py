"""The API tests' small HTTP client: each call asserts its status and, for an expected
refusal, that nothing was written to any store."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Http:
    """A small client: ``call(method, path, key, json, status)`` asserts the status, and for
    an expected refusal (4xx) that it wrote nothing to any store."""

    app: object
    client: object
    make_key: object
    admin: str
    keys: dict[str, str] = field(default_factory=dict)

    def call(self, method: str, path: str, key: str | None = None, json=None, status=200, **kw):
        headers = {"Authorization": f"Bearer {key or self.admin}", **kw.pop("headers", {})}
        before = self.stored() if status >= 400 else None
        response = self.client.open(path, method=method, json=json, headers=headers, **kw)
        assert response.status_code == status, (method, path, response.get_json())
        if before is not None:
            assert self.stored() == before, f"refused {method} {path} wrote to a store"
        return response.get_json()

    def stored(self) -> tuple[int, int, int]:
        """The newest position of the ledger, its shoe vault and the API's own store."""
        return (
            self.ledger.recorder.max_notification_id() or 0,
            self.ledger.vault.recorder.max_notification_id() or 0,
            self.app.extensions["api_store"].recorder.max_notification_id() or 0,
        )

    def post(self, path, json=None, key=None, status=200, **kw):
        return self.call("POST", path, key, json, status, **kw)

    def get(self, path, key=None, status=200):
        return self.call("GET", path, key, None, status)

    @property
    def ledger(self):
        return self.app.extensions["ledger"]

    def player(self, name: str, amount: int = 100_000) -> str:
        pid = self.post("/v1/players", {"name": name}, status=201)["player_id"]
        self.post(f"/v1/players/{pid}/deposits", {"amount": amount})
        self.keys[name] = self.make_key("player", pid)
        return pid

    def balance(self, pid: str) -> int:
        return self.get(f"/v1/players/{pid}")["balance"]

    def act(self, rid: str, who: str, status=200, **body):
        return self.post(f"/v1/rounds/{rid}/actions", body, key=self.keys[who], status=status)
