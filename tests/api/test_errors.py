"""Every failure is an RFC 9457 problem document with the right status."""

import pytest

from api.errors import status_for
from api.problems import PROBLEM_MEDIA_TYPE, TYPE_BASE, problem
from ledger import errors as ledger_errors


def assert_problem(response, status, kind=None):
    assert response.status_code == status
    assert response.mimetype == PROBLEM_MEDIA_TYPE
    body = response.get_json(force=True)
    assert body["status"] == status
    assert body["title"]
    assert body["type"].startswith(TYPE_BASE)
    if kind is not None:
        assert body["type"] == TYPE_BASE + kind
    return body


def test_unknown_route_is_a_404_problem(client):
    body = assert_problem(client.get("/v1/no-such-thing"), 404, "not-found")
    # The same title as the ledger's own 404s, and the path asked for, not werkzeug's "URL".
    assert body["title"] == "Not found"
    assert body["detail"].startswith("nothing at /v1/no-such-thing: check the path")


def test_an_id_that_is_no_uuid_is_named_by_its_path(client, admin_key, auth):
    body = assert_problem(client.get("/v1/players/not-a-uuid", headers=auth(admin_key)), 404)
    assert body["title"] == "Not found"
    assert "/v1/players/not-a-uuid" in body["detail"] and "UUIDs" in body["detail"]


def test_wrong_method_is_a_405_problem_with_allow(client):
    response = client.delete("/health")
    assert assert_problem(response, 405, "method-not-allowed")["title"] == "Method not allowed"
    assert "GET" in response.headers["Allow"]


def test_oversized_body_is_a_413_problem(probe_client, admin_key, auth):
    body = b'{"name": "' + b"x" * (70 * 1024) + b'"}'
    response = probe_client.post(
        "/v1/_probe/players",
        data=body,
        headers=auth(admin_key),
        content_type="application/json",
    )
    body = assert_problem(response, 413, "payload-too-large")
    assert body["title"] == "Payload too large"
    assert body["detail"] == "the body is too large: a request body is at most 64 KiB"


def test_validation_error_lists_fields(probe_client, admin_key, auth):
    response = probe_client.post("/v1/_probe/players", json={"nom": "x"}, headers=auth(admin_key))
    body = assert_problem(response, 422, "validation-error")
    assert "name" in body["errors"]
    assert "nom" in body["errors"]


def test_malformed_json_is_a_400_problem(probe_client, admin_key, auth):
    response = probe_client.post(
        "/v1/_probe/players",
        data=b'{"name": ',
        headers=auth(admin_key),
        content_type="application/json",
    )
    assert_problem(response, 400, "malformed-json")


EXPECTED = {
    "InvalidCommand": 422,
    "InvalidRules": 422,
    "NotFound": 404,
    "UnknownTable": 404,
    "UnknownRound": 404,
    "UnknownPlayer": 404,
    "UnknownHand": 404,
    "UnknownSeat": 404,
    "OutOfTurn": 409,
    "WrongPhase": 409,
    "StakeOutOfLimits": 409,
    "NotAPair": 409,
    "HandClosed": 409,
    "MustStand": 409,
    "DrawLimitReached": 409,
    "InsufficientFunds": 409,
    "AlreadySeated": 409,
    "FixedShoeRefused": 409,
    "RuleViolation": 409,
    "NotPermitted": 403,
    "ConcurrentUpdate": 409,
    "IdempotencyConflict": 422,
}


@pytest.mark.parametrize(("name", "status"), sorted(EXPECTED.items()))
def test_ledger_errors_map_to_statuses_with_their_clause(probe_client, name, status):
    response = probe_client.get(f"/v1/_probe/raise/{name}")
    kind = getattr(ledger_errors, name).kind
    body = assert_problem(response, status, kind)
    assert body["clause"] == "VU-7"
    assert body["detail"] == f"refused: {name}"


def test_every_ledger_error_class_has_a_mapping():
    classes = [
        c
        for c in vars(ledger_errors).values()
        if isinstance(c, type) and issubclass(c, ledger_errors.LedgerError)
    ]
    for cls in classes:
        if cls is not ledger_errors.LedgerError:
            assert cls.__name__ in EXPECTED, cls
            assert status_for(cls("x")) == EXPECTED[cls.__name__]


def test_clause_is_left_out_when_absent(app):
    with app.test_request_context():
        from api.errors import handle_ledger_error

        response = handle_ledger_error(ledger_errors.UnknownTable("no table"))
    assert "clause" not in response.get_json(force=True)


def test_unexpected_exception_is_a_500_without_internals(probe_client, caplog):
    response = probe_client.get("/v1/_probe/boom")
    body = assert_problem(response, 500, "internal-error")
    assert "hunter2" not in response.get_data(as_text=True)
    assert "RuntimeError" not in str(body)
    assert any("hunter2" in (r.exc_text or "") or r.exc_info for r in caplog.records)


def test_problem_helper(app):
    with app.test_request_context():
        response = problem(409, "Conflict", "taken", clause="VU-1", headers={"Retry-After": "1"})
    assert response.status_code == 409
    assert response.headers["Retry-After"] == "1"
    assert response.get_json(force=True) == {
        "type": TYPE_BASE + "conflict",
        "title": "Conflict",
        "status": 409,
        "detail": "taken",
        "clause": "VU-1",
    }


def test_openapi_declares_problem_and_bearer_scheme(app, probe):
    from api.openapi import build_spec

    spec = build_spec(app)
    assert "Problem" in spec["components"]["schemas"]
    assert spec["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    post = spec["paths"]["/v1/_probe/players"]["post"]
    assert post["security"] == [{"bearerAuth": []}]
    assert {"400", "401", "403", "413", "415", "422"} <= set(post["responses"])
    assert any(p["name"] == "Idempotency-Key" for p in post["parameters"])
    # A read any key may make has no role to refuse.
    assert "403" not in spec["paths"]["/v1/_probe/anyone"]["get"]["responses"]


def test_shared_error_responses_are_documented_as_problems(app, probe):
    spec = app.extensions["api"].spec.to_dict()
    for name in ("UNPROCESSABLE_ENTITY", "DEFAULT_ERROR"):
        content = spec["components"]["responses"][name]["content"]
        assert list(content) == [PROBLEM_MEDIA_TYPE]
        assert content[PROBLEM_MEDIA_TYPE]["schema"] == {"$ref": "#/components/schemas/Problem"}


def test_every_kind_of_problem_fits_the_documented_problem_schema(app, probe_client, admin_key):
    """The Problem schema refuses members it does not name (additionalProperties: false), so
    each handler's output is checked against it: a member added to one must be documented."""
    from jsonschema import Draft202012Validator

    from api.errors import handle_projection_lag, handle_projection_superseded
    from api.openapi import build_spec
    from replay.projections import ProjectionLag, ProjectionSuperseded

    schema = build_spec(app)["components"]["schemas"]["Problem"]
    assert schema["additionalProperties"] is False
    validator = Draft202012Validator(schema)
    auth = {"Authorization": f"Bearer {admin_key}"}
    responses = [
        probe_client.get("/v1/no-such-thing"),
        probe_client.delete("/health"),
        probe_client.get("/v1/_probe/whoami"),
        probe_client.get("/v1/_probe/raise/OutOfTurn"),
        probe_client.post("/v1/_probe/players", json={"nom": "x"}, headers=auth),
        probe_client.post(
            "/v1/_probe/players", data=b"{", headers=auth, content_type="application/json"
        ),
        probe_client.post(
            "/v1/_probe/players", data=b"{}", headers=auth, content_type="text/plain"
        ),
    ]
    with app.test_request_context():
        responses.append(handle_projection_lag(ProjectionLag(9, 7, 0.0)))
        responses.append(handle_projection_superseded(ProjectionSuperseded("bankroll", 3, 2)))
    kinds = set()
    for response in responses:
        body = response.get_json(force=True)
        kinds.add(body["type"].rsplit("/", 1)[1])
        errors = [e.message for e in validator.iter_errors(body)]
        assert not errors, (body, errors)
    assert {"projection-superseded", "projection-lag", "malformed-json"} <= kinds
