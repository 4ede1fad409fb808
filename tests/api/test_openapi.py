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
    responses = spec["components"]["responses"]
    for path, _method, operation in operations(spec):
        default = operation["responses"]["default"]
        default = responses[default["$ref"].rsplit("/", 1)[1]] if "$ref" in default else default
        assert default["content"] == {"application/problem+json": {"schema": PROBLEM_REF}}
        if path.startswith("/v1/"):
            for status in ("401", "403"):
                content = operation["responses"][status]["content"]
                assert content == {"application/problem+json": {"schema": PROBLEM_REF}}
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
