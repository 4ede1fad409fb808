"""The OpenAPI document (``/openapi.json``, committed as ``schemas/openapi.json``) and the
human-readable docs rendered from it (``/docs``)."""

import json
import re

import pytest
from jsonschema import Draft202012Validator
from test_rounds_http import open_table

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


# --- response schemas: what is always sent, and the closed sets ------------------------------


def props(spec, name):
    return spec["components"]["schemas"][name]["properties"]


def required(spec, name):
    return set(spec["components"]["schemas"][name].get("required", []))


@pytest.mark.parametrize(
    ("name", "optional"),
    [
        ("RoundView", {"position"}),  # only on the answer to the write that started it
        ("HandView", set()),
        ("DealerHandView", set()),
        ("Table", {"position"}),
        ("Seat", {"position"}),
        ("Player", {"position"}),
        ("Event", set()),
        ("AuditEvent", {"player", "hand", "card", "amount"}),  # when the event has them
        ("AuditSettlement", set()),
        ("AuditHand", set()),
        ("AuditShoe", set()),
        ("AuditRecord", set()),
        ("AuditCutRecord", set()),
        ("AuditRevealRecord", set()),
        ("RoundAudit", set()),
        ("TrailEntry", set()),
        ("DealSold", {"position", "replayed"}),  # replayed: only when a retry is answered
        (
            "Problem",
            {"detail", "clause", "errors", "lag", "wanted", "reached", "projection"}
            | {"stream", "version", "option", "position"},
        ),  # fmt: skip
    ],
)
def test_response_schemas_require_every_field_the_server_always_sends(spec, name, optional):
    """A generated client makes a field optional unless the document requires it: every field
    the view always writes is required, null or not (``current_turn``, ``total``: required and
    nullable), and only those it sometimes leaves out are optional."""
    assert set(props(spec, name)) - required(spec, name) == optional


def enum(spec, name, field):
    schema = props(spec, name)[field]
    return schema["enum"] if "enum" in schema else schema["items"]["enum"]


def test_closed_sets_are_enums_of_the_ledgers_own_names(spec):
    """Each closed set is listed from the one place the code names it, so the document cannot
    drift from what the server answers."""
    from api.problems import TYPE_BASE, problem_kinds
    from api.schemas.events import FEED_EVENT_TYPES
    from api.schemas.history import TRAIL_EVENT_TYPES
    from api.visibility import CLOSED, CLOSED_EVENT
    from ledger.domain.hands import HAND_STATUSES, OUTCOMES, PHASES
    from ledger.rules import FAMILIES
    from ledger.rules.vingt_un import DEALER_CHOICE
    from replay.audit import AUDIT_SCOPES, CHAIN_KINDS
    from replay.projections.history_columns import ROUND_ROLES, ROUND_STATUSES

    assert list(FAMILIES) == ["vingt-un", "hoyle-1913", "ochko", "casino"]
    for name in ("Table", "TableCreate", "RoundView", "RoundAudit", "RoundSummary"):
        assert enum(spec, name, "family") == list(FAMILIES), name
    for name in ("PlayerRound", "TableResults"):
        assert enum(spec, name, "family") == list(FAMILIES), name
    assert "play" in PHASES and "ended" in PHASES
    assert enum(spec, "RoundView", "phase") == enum(spec, "RoundAudit", "phase") == list(PHASES)
    statuses = [*HAND_STATUSES, CLOSED]
    assert {"open", "stood", "bust", "natural", "settled", "closed"} == set(statuses)
    assert enum(spec, "HandView", "status") == enum(spec, "DealerHandView", "status") == statuses
    assert {"won", "lost", "push", "blackjack", "natural stand-off"} <= set(OUTCOMES)
    assert enum(spec, "HandView", "outcome") == [*OUTCOMES, None]  # null until settled
    assert enum(spec, "AuditSettlement", "outcome") == list(OUTCOMES)
    assert {"CardDealt", "HandSettled", "Committed", "RoundOpened", CLOSED_EVENT} <= set(
        FEED_EVENT_TYPES
    )
    assert enum(spec, "Event", "type") == enum(spec, "AuditEvent", "type") == FEED_EVENT_TYPES
    assert {"Round.CardDealt", "Player.FundsTransferred"} <= set(TRAIL_EVENT_TYPES)
    assert enum(spec, "TrailEntry", "type") == TRAIL_EVENT_TYPES
    kinds = problem_kinds()
    assert {"validation-error", "wrong-phase", "malformed-json", "cursor-beyond-log"} <= set(kinds)
    assert enum(spec, "Problem", "type") == [TYPE_BASE + kind for kind in kinds]
    assert enum(spec, "RoundAudit", "scope") == list(AUDIT_SCOPES) == ["full", "player"]
    assert enum(spec, "AuditChainStream", "kind") == list(CHAIN_KINDS)
    assert enum(spec, "RoundPlayer", "role") == enum(spec, "PlayerRound", "role")
    assert enum(spec, "PlayerRound", "role") == list(ROUND_ROLES) == ["banker", "punter"]
    assert enum(spec, "RoundSummary", "status") == list(ROUND_STATUSES) == ["open", "ended"]
    assert enum(spec, "TableResult", "method") == list(DEALER_CHOICE)


# --- real answers against the document ------------------------------------------------------

UNKNOWN = "00000000-0000-0000-0000-000000000000"
# Casino: Ann 6C 5D doubles to 21, Bob stands on TC 8D; the house shows 9H over 7S and breaks.
# Vingt-un: Dee deals and calls double; Ann stands on 19, Bob draws over 21; Dee stands.
ROUNDS = {
    "casino": (
        ["6C", "TC", "9H", "5D", "8D", "7S", "TH", "8C"],
        [
            ("Ann", {"action": "stake", "amount": 200}),
            ("Bob", {"action": "stake", "amount": 300}),
            ("Ann", {"action": "double_down", "hand": "h1"}),
            ("Bob", {"action": "stand", "hand": "h2"}),
        ],
    ),
    "vingt-un": (
        ["TC", "9D", "8H", "KC", "7D", "9C", "6D"],
        [
            ("Ann", {"action": "stake", "amount": 200}),
            ("Bob", {"action": "stake", "amount": 200}),
            ("dealer", {"action": "dealer_double", "called": True}),
            ("Ann", {"action": "stand", "hand": "h1"}),
            ("Bob", {"action": "hit", "hand": "h2"}),
            ("dealer", {"action": "dealer_stand"}),
        ],
    ),
}


def conforms(spec, method, template, status, body):
    """Assert that ``body``, the answer of ``method template`` with ``status``, is one the
    document's response schema for it allows (its $refs resolved in the document); return it."""
    (content,) = spec["paths"][template][method]["responses"][str(status)]["content"].values()
    validator = Draft202012Validator({**content["schema"], "components": spec["components"]})
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(body)]
    assert not errors, (method, template, status, errors[:5])
    return body


@pytest.mark.parametrize("family", list(ROUNDS))
def test_the_answers_about_a_played_round_conform_to_the_document(http, spec, family):
    """Schemathesis reaches a round that is only started; this one is played to its end, with
    hidden cards, settlements, the dealer's hand and a revealed shoe, and every answer about
    it, as the admin, an auditor and a player of it see them, is held to the document."""
    shoe, moves = ROUNDS[family]
    t = open_table(http, family)
    conforms(spec, "post", "/v1/tables/{table_id}/rounds", 201, t.start(shoe))
    rid, tid, ann, auditor = t.rid, t.table_id, http.keys["Ann"], http.keys["auditor"]
    for who, body in moves:
        answer = http.act(rid, who, **body)
        conforms(spec, "post", "/v1/rounds/{round_id}/actions", 200, answer)
        # While it is played, Ann sees the others' face-down cards as "??", their totals null.
        conforms(spec, "get", "/v1/rounds/{round_id}", 200, t.view("Ann"))
    assert answer["round"]["ended"]
    last = answer["position"]

    def get(template, path, key=None):
        return conforms(spec, "get", template, 200, http.get(path, key=key))

    for key in (None, ann):
        mine = f"/v1/players/{t.ids['Ann']}"
        get("/v1/rounds/{round_id}", f"/v1/rounds/{rid}", key)
        get("/v1/rounds/{round_id}/events", f"/v1/rounds/{rid}/events", key)
        get("/v1/tables/{table_id}", f"/v1/tables/{tid}", key)
        get("/v1/tables/{table_id}/events", f"/v1/tables/{tid}/events", key)
        get("/v1/tables/{table_id}/rounds", f"/v1/tables/{tid}/rounds?position={last}", key)
        get("/v1/players/{player_id}/bankroll", f"{mine}/bankroll?position={last}", key)
        get("/v1/players/{player_id}/rounds", f"{mine}/rounds?position={last}", key)
    get("/v1/tables/{table_id}/results", f"/v1/tables/{tid}/results?position={last}")
    trail = get("/v1/rounds/{round_id}/trail", f"/v1/rounds/{rid}/trail?position={last}", auditor)
    assert {"Round.HandSettled", "Player.FundsTransferred"} <= {e["type"] for e in trail["entries"]}
    audit = "/v1/rounds/{round_id}/audit"
    full = get(audit, f"/v1/rounds/{rid}/audit", auditor)
    assert full["scope"] == "full" and all(h["settlement"] for h in full["hands"])
    assert get(audit, f"/v1/rounds/{rid}/audit", ann)["scope"] == "player"
    conforms(spec, "post", "/v1/tables/{table_id}/close", 200, http.post(f"/v1/tables/{tid}/close"))
    for key in (auditor, ann):  # the shoe revealed: its seed, its check, who caused the reveal
        revealed = get(audit, f"/v1/rounds/{rid}/audit", key)
        assert revealed["shoe"]["recorded"]["revealed"]["caused_by"]["type"] == "Table.Closed"


def test_problem_documents_conform_to_the_document(http, spec):
    """The refusals a client meets first, each held to the Problem schema (its ``type`` one of
    the enum's)."""
    t = open_table(http, "casino", {"insurance": False})
    t.start(ROUNDS["casino"][0])
    refused = [
        ("Ann", {"action": "hit", "hand": "h1"}, 409, "wrong-phase"),  # the stakes come first
        ("Ann", {"action": "stake", "amount": 0}, 422, "validation-error"),
        ("Bob", {"action": "stake", "amount": 200, "hand": "h1"}, 422, "validation-error"),
    ]
    for who, body, status, kind in refused:
        problem = http.act(t.rid, who, status=status, **body)
        conforms(spec, "post", "/v1/rounds/{round_id}/actions", status, problem)
        assert problem["type"].endswith(f"/{kind}")
    missing = http.get(f"/v1/rounds/{UNKNOWN}", status=404)
    assert missing["type"].endswith("/unknown-round")
    conforms(spec, "get", "/v1/rounds/{round_id}", 404, missing)
    unknown_key = http.get(f"/v1/rounds/{t.rid}", key="not-a-key", status=401)
    conforms(spec, "get", "/v1/rounds/{round_id}", 401, unknown_key)
