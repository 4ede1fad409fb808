"""API keys read from the store are kept for a short while per process; a revocation through
this process is immediate, through another within API_KEY_CACHE_SECONDS."""

import time

from api import create_app
from api.store import ApiStore


def _app(memory_env, seconds):
    return create_app({"STORE_ENV": memory_env, "TESTING": True, "API_KEY_CACHE_SECONDS": seconds})


def test_a_key_found_once_is_served_from_the_cache_until_it_expires(memory_env):
    store = ApiStore(env=memory_env)
    secret, key = store.create_key("auditor")

    assert store.find_key(secret, max_age=0.2).id == key.id
    store._key_cache[key.id] = (store._key_cache[key.id][0], "cached")  # mark the cached copy
    assert store.find_key(secret, max_age=0.2) == "cached"
    time.sleep(0.25)
    assert store.find_key(secret, max_age=0.2).id == key.id  # read again once expired


def test_a_revocation_through_the_same_store_is_immediate(memory_env):
    app = _app(memory_env, 60)
    store = app.extensions["api_store"]
    secret, key = store.create_key("auditor")
    client = app.test_client()
    headers = {"Authorization": f"Bearer {secret}"}
    assert (
        client.get("/v1/tables/00000000-0000-0000-0000-000000000000", headers=headers).status_code
        == 404
    )

    store.revoke(key.id)

    assert (
        client.get("/v1/tables/00000000-0000-0000-0000-000000000000", headers=headers).status_code
        == 401
    )


def test_without_a_cache_every_request_reads_the_store(memory_env):
    store = ApiStore(env=memory_env)
    secret, key = store.create_key("auditor")

    assert store.find_key(secret).id == key.id
    assert not store._key_cache
