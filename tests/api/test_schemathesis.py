"""Schemathesis against the app's own OpenAPI document: no input, however malformed, may
produce a 5xx or a response that breaks the document (a status its operation does not list,
content type, body schema, headers), and a request the document calls valid must not fail
the body's schema.

Bounded: 25 examples an operation, no deadline; the whole file runs in seconds.
"""

import json
import zlib

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import positive_data_acceptance

from api import create_app
from api.schemas.common import INTEGER_ONLY
from ledger.config import store_env

# Schemathesis parametrizes at collection, so the document is read at import from an app of
# its own, through ``GET /openapi.json`` like any client would; each operation's test then
# runs against the ``app`` fixture (a fresh app on the memory store).
schema = schemathesis.openapi.from_wsgi(
    "/openapi.json", create_app({"STORE_ENV": store_env("memory", environ={})})
)
VALIDATION_ERROR = "https://twenty-one-ledger.example/problems/validation-error"
PROJECTION_LAG = "https://twenty-one-ledger.example/problems/projection-lag"
# The stream answers until its timeout: with a real table it would hold the test up to 300 s.
NO_REAL_IDS = {"/v1/tables/{table_id}/events/stream"}


@pytest.fixture
def app(memory_env):
    """No waiting for read models: a generated ``?position=`` beyond the log answers its 503
    at once instead of after the default two seconds."""
    return create_app({"TESTING": True, "STORE_ENV": memory_env, "LEDGER_PROJECTION_WAIT_MS": 0})


@pytest.fixture
def world(app):
    """A player with funds seated at a casino table with a round in play: random UUIDs only
    reach the 404s, so half the cases are sent to these instead."""
    ledger = app.extensions["ledger"]
    pid = ledger.register_player("Ann")["player_id"]
    ledger.deposit(pid, 100_000)
    tid = ledger.open_table("casino", {})["table_id"]
    ledger.seat_player(tid, pid, 1)
    rid = ledger.start_round(tid)["round_id"]
    return {"player_id": pid, "table_id": tid, "round_id": rid}


def aim_at_world(case, world):
    """Half the valid cases (by their id, so a case keeps its choice when replayed) use real
    ids. Invalid cases keep theirs: they are refused before any lookup, and schemathesis
    would take a request made valid here (its ids, our key) for an invalid one accepted."""
    params = case.path_parameters
    positive = case.meta is not None and case.meta.generation.mode.is_positive
    if not params or not positive or case.path in NO_REAL_IDS or zlib.crc32(case.id.encode()) % 2:
        return
    for name in params.keys() & world.keys():
        params[name] = world[name]


def valid_data_passes_the_schema(ctx, response, case):
    """Schemathesis' own "valid data accepted" check also fails the ledger's refusals of
    well-formed requests that no JSON Schema can express (unknown table options for the family,
    an Idempotency-Key reused with another body: 422 invalid-rules, idempotency-conflict).
    What must never happen is the schema validation (422 validation-error) refusing a body
    the document calls valid: that is the document and the marshmallow schema disagreeing.

    One disagreement is known and stated in the document's descriptions: JSON Schema's
    "integer" admits ``6.0`` (schemathesis sends one on purpose), and this API reads numbers as
    written and takes only JSON integers (api/body.py: money is never rounded). A refusal whose
    every message is that one is accepted; any other is not."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 422:
        return None
    problem = json.loads(response.content or b"{}")
    if problem.get("type") != VALIDATION_ERROR:
        return None
    messages = list(_messages(problem.get("errors")))
    assert messages and all(INTEGER_ONLY in message for message in messages), (
        f"a request valid by the OpenAPI document failed validation: {problem.get('errors')}"
    )
    return None


def _messages(errors):
    """Every message of a problem's ``errors`` (nested by field, dict key and list index)."""
    if isinstance(errors, str):
        yield errors
    elif isinstance(errors, dict):
        for value in errors.values():
            yield from _messages(value)
    elif isinstance(errors, list):
        for value in errors:
            yield from _messages(value)


def status_is_documented(ctx, response, case):
    """Stricter than schemathesis' status check, which any status passes once an operation has
    a ``default`` response: every status the server answers must be listed for the operation
    itself (api/responses.py derives them; ``default`` is only for a 500). The 405 that
    schemathesis provokes with a method the path lacks (TRACE) is no operation's answer: its
    own unsupported-method check judges it."""
    if case.method.upper() != case.operation.method.upper():
        return None
    documented = set(case.operation.definition.raw["responses"]) - {"default"}
    assert str(response.status_code) in documented, (
        f"{case.method} {case.path} answered {response.status_code}, which its operation does "
        f"not document (it documents {sorted(documented)})"
    )
    return None


def no_server_error_but_lag(ctx, response, case):
    """Schemathesis' "not a server error", but for the one documented 503: a read asked to
    wait for a position the read models have not reached (``projection-lag``, with the lag
    and ``Retry-After``). Any other 5xx fails."""
    if response.status_code == 503:
        problem = json.loads(response.content or b"{}")
        if problem.get("type") == PROJECTION_LAG:
            retry = response.headers.get("retry-after")
            assert retry == ["1"], "a projection-lag 503 says when to retry"
            assert problem["lag"] == problem["wanted"] - problem["reached"] > 0
            return None
    return not_a_server_error(ctx, response, case)


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms(case, app, world, admin_key, auth):
    aim_at_world(case, world)
    case.call_and_validate(
        app=app,
        headers=auth(admin_key),
        excluded_checks=[positive_data_acceptance, not_a_server_error],
        additional_checks=[
            valid_data_passes_the_schema,
            no_server_error_but_lag,
            status_is_documented,
        ],
    )
