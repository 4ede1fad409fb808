"""API keys read from the store are kept for a short while per process; a revocation through
this process is immediate, through another within API_KEY_CACHE_SECONDS."""

import time

import pytest

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


@pytest.mark.parametrize("value", ["abc", "-1", "nan", "2s"])
def test_a_bad_cache_time_stops_the_app_at_start(memory_env, monkeypatch, value):
    monkeypatch.setenv("API_KEY_CACHE_SECONDS", value)

    with pytest.raises(ValueError, match="API_KEY_CACHE_SECONDS must be a number of seconds"):
        create_app({"STORE_ENV": memory_env, "TESTING": True})


@pytest.mark.parametrize(("value", "seconds"), [(None, 2.0), ("", 2.0), ("0", 0.0), ("0.5", 0.5)])
def test_the_cache_time_comes_from_the_environment(memory_env, monkeypatch, value, seconds):
    monkeypatch.delenv("API_KEY_CACHE_SECONDS", raising=False)
    if value is not None:
        monkeypatch.setenv("API_KEY_CACHE_SECONDS", value)

    app = create_app({"STORE_ENV": memory_env, "TESTING": True})

    assert app.config["API_KEY_CACHE_SECONDS"] == seconds
