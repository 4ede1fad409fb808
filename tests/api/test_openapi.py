"""The OpenAPI document (``/openapi.json``, committed as ``schemas/openapi.json``) and the
human-readable docs rendered from it (``/docs``)."""

import json
import re

import pytest

from api.openapi import COMMITTED, build_spec, generate, main, spec_path

PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}
# The audit pages (api/audit_page.py) are HTML for people, not part of the API.
SKIPPED_ROUTES = {"/static/{filename}", "/audit/rounds/{round_id}", "/audit/rounds/{anything}"}
SKIPPED_ROUTES |= {"/audit/login", "/audit/logout"}


@pytest.fixture
def spec(client):
    response = client.get("/openapi.json")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    return response.get_json()


def operations(spec):
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method != "parameters":
                yield path, method, operation


def test_the_committed_document_is_up_to_date():
    committed = COMMITTED.read_text(encoding="utf-8") if COMMITTED.exists() else ""
    assert committed == generate(), (
        f"{COMMITTED} is stale: the API changed. Run `python -m api.openapi` (or `make openapi`) "
        "and commit the result."
    )


def test_the_generator_is_deterministic_and_checks(tmp_path, capsys):
    target = tmp_path / "openapi.json"
    assert main(["--check", "--output", str(target)]) == 1
    assert "stale" in capsys.readouterr().err
    assert main(["--output", str(target)]) == 0
    first = target.read_text(encoding="utf-8")
    assert main(["--output", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == first
    assert (
        first.endswith("}\n")
        and first
        == json.dumps(json.loads(first), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    )
    assert main(["--check", "--output", str(target)]) == 0


def test_served_at_openapi_json_as_openapi_3_1(app, spec):
    assert spec["openapi"] == "3.1.0"
    assert spec["info"]["title"] == "Twenty-One Ledger"
    assert spec == json.loads(json.dumps(build_spec(app)))
    # The same document the file holds (the file is generated from an app like this one).
    assert spec == json.loads(generate())


def test_every_route_of_the_app_is_documented(app, spec):
    documented = {(path, method) for path, method, _ in operations(spec)}
    for rule in app.url_map.iter_rules():
        path = spec_path(rule.rule)
        if path in SKIPPED_ROUTES:
            continue
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            assert (path, method.lower()) in documented, f"{method} {rule.rule} is undocumented"
    for path in ("/health", "/openapi.json", "/docs", "/v1/rounds/{round_id}/actions"):
        assert path in spec["paths"]


def test_bearer_security_scheme_and_roles(spec):
    assert spec["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http",
        "scheme": "bearer",
        "description": spec["components"]["securitySchemes"]["bearerAuth"]["description"],
    }
    for path, method, operation in operations(spec):
        if path.startswith("/v1/"):
            assert operation["security"] == [{"bearerAuth": []}], (method, path)
            assert "admin" in operation["x-roles"], (method, path)
            assert ("auditor" in operation["x-roles"]) == (method == "get"), (method, path)
            assert operation["summary"]
        else:
            assert operation["security"] == [], (method, path)
    actions = spec["paths"]["/v1/rounds/{round_id}/actions"]["post"]
    assert actions["x-roles"] == ["admin", "dealer", "player"]


def test_errors_are_problem_documents(spec):
    problem_content = {"application/problem+json": {"schema": PROBLEM_REF}}
    for path, _method, operation in operations(spec):
        for status, response in operation["responses"].items():
            if not status.startswith("2"):
                assert response["content"] == problem_content, (path, status)
        assert "internal-error" in operation["responses"]["default"]["description"]
        if path.startswith("/v1/"):
            unauthorized = operation["responses"]["401"]
            assert unauthorized["headers"]["WWW-Authenticate"]["required"] is True
    assert "responses" not in spec["components"]  # flask-smorest's shared ones are replaced
    problem = spec["components"]["schemas"]["Problem"]
    assert set(problem["required"]) == {"type", "title", "status"}
    assert {"detail", "clause", "errors"} <= set(problem["properties"])
    assert "Error" not in spec["components"]["schemas"]  # flask-smorest's, replaced by Problem


def test_the_action_union_is_a_tagged_one_of(spec):
    body = spec["paths"]["/v1/rounds/{round_id}/actions"]["post"]["requestBody"]
    schema = body["content"]["application/json"]["schema"]
    assert schema["discriminator"] == {"propertyName": "action"}
    titles = {variant["title"] for variant in schema["oneOf"]}
    assert {"stake", "hit", "stand", "split", "double_down", "ace_value", "dealer_double"} <= titles


# --- /docs ------------------------------------------------------------------------------------


@pytest.fixture
def page(client):
    response = client.get("/docs")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    return response.get_data(as_text=True)


def test_docs_show_every_operation(spec, page):
    for path, method, operation in operations(spec):
        assert f"<code>{path}</code>" in page, path
        assert f'id="op-{method}-' in page
        assert operation["summary"].split("`")[0] in page.replace("&#x27;", "'")
    assert page.count('class="op"') >= sum(1 for _ in operations(spec))
    for name in spec["components"]["schemas"]:
        assert f'id="schema-{name}"' in page


def test_docs_show_roles_parameters_bodies_and_responses(page):
    assert "Contents" in page
    assert "Roles: <code>admin</code> <code>dealer</code> <code>player</code>" in page
    assert "Idempotency-Key" in page and "Parameters" in page
    assert "Request body" in page and "Example:" in page
    assert "&quot;action&quot;: &quot;dealer_double&quot;" in page  # a variant's example
    assert "application/problem+json" in page and "Responses" in page


def test_docs_need_nothing_from_the_network(page):
    assert "<script" not in page.lower()
    assert "<link" not in page.lower()
    assert "@import" not in page and "url(" not in page
    # No attribute points off the server (the problem type URIs are names, not links).
    assert not re.search(r"""(?:src|href|action)\s*=\s*["']?(?:https?:)?//""", page, re.I)
    assert "<style>" in page


# --- statuses and headers, per operation (api/responses.py) ----------------------------------


def statuses(spec, method, path):
    return set(spec["paths"][path][method]["responses"]) - {"default"}


@pytest.mark.parametrize(
    ("method", "path", "expected"),
    [
        ("post", "/v1/players", {"201", "400", "401", "403", "413", "415", "422"}),
        ("get", "/v1/players/{player_id}", {"200", "401", "403", "404"}),
        ("get", "/v1/tables/{table_id}", {"200", "401", "404"}),
        ("get", "/v1/tables/{table_id}/rounds", {"200", "401", "404", "422", "500", "503"}),
        (
            "get",
            "/v1/tables/{table_id}/results",
            {"200", "401", "403", "404", "422", "500", "503"},
        ),
        (
            "post",
            "/v1/rounds/{round_id}/actions",
            {"200", "400", "401", "403", "404", "409", "413", "415", "422"},
        ),
        ("delete", "/v1/tables/{table_id}/seats/{seat}", {"200", "401", "403", "404", "409"}),
        ("get", "/v1/tables/{table_id}/events/stream", {"200", "400", "401", "404", "422"}),
        ("get", "/health", {"200"}),
    ],
)
def test_each_operation_documents_the_statuses_it_answers(spec, method, path, expected):
    assert statuses(spec, method, path) == expected


def test_reads_that_answer_whole_document_no_page_size(spec):
    """A round's trail and a table's results answer whole: a ``limit`` there would show a
    generated client paging that does not exist."""
    for path in ("/v1/rounds/{round_id}/trail", "/v1/tables/{table_id}/results"):
        names = {p["name"] for p in spec["paths"][path]["get"].get("parameters", [])}
        assert "position" in names and "limit" not in names, (path, names)
    names = {p["name"] for p in spec["paths"]["/v1/tables/{table_id}/rounds"]["get"]["parameters"]}
    assert {"position", "limit", "after"} <= names


def test_read_model_reads_document_a_position_beyond_the_log_and_a_damaged_store(spec):
    for path in ("/v1/players/{player_id}/bankroll", "/v1/rounds/{round_id}/trail"):
        responses = spec["paths"][path]["get"]["responses"]
        assert "cursor-beyond-log" in responses["422"]["description"], path
        assert "stored-events-damaged" in responses["500"]["description"], path
    assert "position" in spec["components"]["schemas"]["Problem"]["properties"]


def test_403_is_documented_only_where_a_key_can_be_refused(app, spec):
    """Every write may refuse an auditor; a read open to every role refuses nobody unless its
    view checks the caller against the data (another player's wallet, a round's audit)."""
    checks_the_caller = {
        "/v1/players/{player_id}",
        "/v1/players/{player_id}/bankroll",
        "/v1/players/{player_id}/rounds",
        "/v1/rounds/{round_id}/audit",
    }
    for path, method, operation in operations(spec):
        if not path.startswith("/v1/"):
            continue
        open_to_all = set(operation["x-roles"]) == {"admin", "auditor", "dealer", "player"}
        may_refuse = method != "get" or not open_to_all or path in checks_the_caller
        assert ("403" in operation["responses"]) == may_refuse, (method, path)


def test_success_headers_are_documented(spec):
    for path, method, operation in operations(spec):
        for status, response in operation["responses"].items():
            headers = response.get("headers", {})
            if status == "201":
                assert headers["Location"]["required"] is True, path
            if status.startswith("2") and method == "post":
                assert headers["Idempotent-Replayed"]["required"] is False, path
            if status == "503":
                assert set(headers) == {"Retry-After"}, path
            if method == "get" and status.startswith("2"):
                assert "Idempotent-Replayed" not in headers, path


def test_documented_headers_are_the_ones_the_server_sends(client, admin_key, auth):
    once = auth(admin_key, {"Idempotency-Key": "a"})
    made = client.post("/v1/players", json={"name": "Ann"}, headers=once)
    again = client.post("/v1/players", json={"name": "Ann"}, headers=once)
    assert made.headers["Location"] == again.headers["Location"]
    assert again.headers["Idempotent-Replayed"] == "true"
    assert "ETag" not in again.headers
    refused = client.get("/v1/tables/00000000-0000-0000-0000-000000000000")
    assert refused.status_code == 401 and refused.headers["WWW-Authenticate"].startswith("Bearer")
