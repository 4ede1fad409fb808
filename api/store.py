"""The API's own event-sourced store: API keys and stored idempotent responses.

Kept apart from the ledger's streams: keys and HTTP replies are not part of the game's record,
and an auditor replaying the ledger must not meet them. On PostgreSQL eventsourcing names the
tables after the application ("apistore_events"); the SQLite recorder always uses one table
name, so on SQLite the store gets its own file beside the ledger's (``<path>.api``).

A key's id is derived from the SHA-256 of its secret, so the secret itself is never stored and
looking a key up is one stream read. ``find_key`` may keep what it read for a few seconds
(``max_age``): a key revoked through this store is forgotten at once, but a revocation by
another process (another gunicorn worker, ``flask keys revoke``) is honoured here only once the
kept copy expires.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from typing import Any, Self
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError

from ledger.config import sibling_store_env
from ledger.errors import InvalidCommand, UnknownPlayer
from ledger.startup import ConcurrentStartup

ROLES = ("admin", "dealer", "player", "auditor")
SECRET_PREFIX = "tol_"
_KEY_NS = uuid5(NAMESPACE_URL, "twenty-one-ledger/api-key")
_RESPONSE_NS = uuid5(NAMESPACE_URL, "twenty-one-ledger/stored-response")


def key_id_for(secret: str) -> UUID:
    return uuid5(_KEY_NS, hashlib.sha256(secret.encode()).hexdigest())


def response_id_for(idempotency_key: str, key_id: str | UUID) -> UUID:
    return uuid5(_RESPONSE_NS, f"{key_id}\n{idempotency_key}")


class ApiKey(Aggregate):
    class Issued(Aggregate.Created):
        role: str
        player_id: str | None
        label: str

    class Revoked(Aggregate.Event):
        def apply(self, key: ApiKey) -> None:
            key.revoked = True

    @classmethod
    def issue(cls, key_id: UUID, role: str, player_id: str | None, label: str) -> Self:
        return cls._create(cls.Issued, id=key_id, role=role, player_id=player_id, label=label)

    def __init__(self, role: str, player_id: str | None, label: str) -> None:
        self.role = role
        self.player_id = player_id
        self.label = label
        self.revoked = False

    def revoke(self) -> None:
        self.trigger_event(self.Revoked)


class StoredResponse(Aggregate):
    class Stored(Aggregate.Created):
        idempotency_key: str
        key_id: str
        fingerprint: str
        status: int
        body: str
        mimetype: str
        headers: dict[str, str]

    @classmethod
    def store(cls, idempotency_key: str, key_id: str, **fields: Any) -> Self:
        return cls._create(
            cls.Stored,
            id=response_id_for(idempotency_key, key_id),
            idempotency_key=idempotency_key,
            key_id=key_id,
            **fields,
        )

    def __init__(
        self,
        idempotency_key: str,
        key_id: str,
        fingerprint: str,
        status: int,
        body: str,
        mimetype: str,
        headers: dict[str, str],
    ) -> None:
        self.idempotency_key = idempotency_key
        self.key_id = key_id
        self.fingerprint = fingerprint
        self.status = status
        self.body = body
        self.mimetype = mimetype
        self.headers = dict(headers)


class ApiStore(ConcurrentStartup, Application):
    name = "ApiStore"

    KEY_CACHE_MAXSIZE = 10_000

    def __init__(self, env: dict[str, Any] | None = None) -> None:
        super().__init__(sibling_store_env(env or {}, "api"))
        # No one follows this store's log by position (``list_keys`` reads all of it), so on
        # PostgreSQL its appends need not queue for the table lock, nor for the server-wide
        # lock a NOTIFYing commit holds: an idempotent reply is stored beside the ledger's
        # appends, not after them.
        unordered = getattr(self.recorder, "append_unordered", None)
        if unordered is not None:
            unordered()
        # Keys found recently, by id: (monotonic expiry, key). Only found keys are kept (a new
        # key works at once everywhere); a revocation here evicts its key and bumps the
        # generation, so a lookup that raced with it does not keep the stale copy.
        self._key_cache: dict[UUID, tuple[float, ApiKey]] = {}
        self._key_generation = 0
        self._key_lock = threading.Lock()

    # -- keys ----------------------------------------------------------------------------

    def create_key(
        self, role: str, player_id: str | None = None, label: str = ""
    ) -> tuple[str, ApiKey]:
        """Issue a key; the secret is returned once and never kept."""
        if role not in ROLES:
            raise InvalidCommand(f"role must be one of {', '.join(ROLES)}, got {role!r}")
        if role == "player" and not player_id:
            raise InvalidCommand("a player key needs the player's id")
        if role in ("admin", "auditor") and player_id:
            raise InvalidCommand(f"an {role} key acts for no player")
        if player_id is not None:
            try:
                player_id = str(UUID(str(player_id)))
            except ValueError:
                raise UnknownPlayer(f"no player {player_id!r}") from None
        if len(label) > 200:
            raise InvalidCommand("a key's label is at most 200 characters")
        secret = SECRET_PREFIX + secrets.token_urlsafe(32)
        key = ApiKey.issue(key_id_for(secret), role, player_id, label)
        self.save(key)
        return secret, key

    def find_key(self, secret: str, max_age: float = 0.0) -> ApiKey | None:
        """The key the secret names, or None. With ``max_age`` (seconds) a key read within that
        long is served from this process's memory; treat it as read-only."""
        key_id = key_id_for(secret)
        now = time.monotonic()
        if max_age > 0:
            hit = self._key_cache.get(key_id)
            if hit is not None and hit[0] > now:
                return hit[1]
        generation = self._key_generation
        try:
            key = self.repository.get(key_id)
        except AggregateNotFoundError:
            return None
        if max_age > 0:
            with self._key_lock:
                if generation == self._key_generation:
                    if len(self._key_cache) >= self.KEY_CACHE_MAXSIZE:
                        self._key_cache.clear()
                    self._key_cache[key_id] = (now + max_age, key)
        return key

    def _forget_key(self, key_id: UUID) -> None:
        with self._key_lock:
            self._key_generation += 1
            self._key_cache.pop(key_id, None)

    def get_key(self, key_id: str | UUID) -> ApiKey | None:
        try:
            key = self.repository.get(UUID(str(key_id)))
        except (AggregateNotFoundError, ValueError):
            return None
        return key if isinstance(key, ApiKey) else None

    def revoke(self, key_id: str | UUID) -> ApiKey:
        key = self.get_key(key_id)
        if key is None:
            raise InvalidCommand(f"no API key {key_id}")
        if not key.revoked:
            key.revoke()
            self._forget_key(key.id)
            try:
                self.save(key)
            finally:
                self._forget_key(key.id)
        return key

    def list_keys(self) -> list[ApiKey]:
        """Every key ever issued, oldest first (a scan: keys are few)."""
        topic = f"{ApiKey.Issued.__module__}:{ApiKey.Issued.__qualname__}"
        found: list[ApiKey] = []
        start = 1
        while True:
            page = self.recorder.select_notifications(start=start, limit=500, topics=[topic])
            for notification in page:
                key = self.get_key(notification.originator_id)
                if key is not None:
                    found.append(key)
            if len(page) < 500:
                return found
            start = page[-1].id + 1

    def any_admin_key(self) -> bool:
        return any(k.role == "admin" and not k.revoked for k in self.list_keys())

    # -- idempotent responses -------------------------------------------------------------

    def get_response(self, idempotency_key: str, key_id: str) -> StoredResponse | None:
        try:
            return self.repository.get(response_id_for(idempotency_key, key_id))
        except AggregateNotFoundError:
            return None

    def save_response(
        self, idempotency_key: str, key_id: str, **fields: Any
    ) -> StoredResponse | None:
        """Keep a response; None when saved, the earlier one when a twin request won."""
        try:
            self.save(StoredResponse.store(idempotency_key, key_id, **fields))
        except IntegrityError:
            return self.get_response(idempotency_key, key_id)
        return None
