"""Bad input of any kind is a 4xx problem document that says what was wrong, and writes
nothing: not to the ledger, not to the shoe vault, not to the API's own store."""

from __future__ import annotations

import json

import pytest

from api.errors import PROBLEM_MEDIA_TYPE, TYPE_BASE


@pytest.fixture
def world(app):
    ledger = app.extensions["ledger"]
    pid = ledger.register_player("Ann")["player_id"]
    ledger.deposit(pid, 100_000)
    tid = ledger.open_table("casino", {"insurance": False})["table_id"]
    ledger.seat_player(tid, pid, 1)
    rid = ledger.start_round(tid)["round_id"]
    return {"player": pid, "table": tid, "round": rid}


def positions(app) -> tuple:
    ledger = app.extensions["ledger"]
    return (
        ledger.recorder.max_notification_id(),
        ledger.vault.recorder.max_notification_id(),
        app.extensions["api_store"].recorder.max_notification_id(),
    )


def send(app, client, admin_key, path, data, content_type="application/json", **headers):
    """POST raw bytes; assert nothing was written; return the response."""
    before = positions(app)
    if content_type is not None:
        headers["Content-Type"] = content_type
    headers["Authorization"] = f"Bearer {admin_key}"
    response = client.post(path, data=data, headers=headers)
    assert positions(app) == before, "a refused request wrote"
    return response


def problem_of(response, status, kind):
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM_MEDIA_TYPE
    body = json.loads(response.get_data())  # strict: the document parses anywhere
    assert body["type"] == TYPE_BASE + kind and body["status"] == status
    return body


# -- text (lone surrogates, control characters, invisible names) ------------------------------

TEXT_FIELDS = [
    ("/v1/players", '{"name": %s}', ["name"]),
    ("/v1/tables", '{"family": "casino", "name": %s}', ["name"]),
    ("/v1/tables", '{"family": "casino", "options": {"client_seed": %s}}', ["options"]),
    (
        "/v1/tables/{table}/pool-payouts",
        '{"recipient": "{player}", "amount": 1, "reason": %s}',
        ["reason"],
    ),
    ("/v1/rounds/{round}/actions", '{"action": "stake", "amount": 200, "actor": %s}', ["actor"]),
]


@pytest.mark.parametrize(("path", "template", "field"), TEXT_FIELDS)
@pytest.mark.parametrize("text", ['"\\ud800"', '"Ann\\udfff"', '"a\\u0000"', '"two\\nlines"'])
def test_text_that_is_not_text_is_a_422_naming_the_field(
    app, client, admin_key, world, path, template, field, text
):
    path = path.format(**world)
    data = template.replace("{player}", world["player"]) % text
    body = problem_of(send(app, client, admin_key, path, data.encode()), 422, "validation-error")
    assert list(body["errors"]) == field
    assert "Not valid text" in json.dumps(body["errors"])


@pytest.mark.parametrize("name", ['""', '"   "', '"\\u200b\\u200b"', '"\\u3164"', '"\\t"'])
def test_a_name_of_nothing_visible_is_a_422(app, client, admin_key, name):
    data = f'{{"name": {name}}}'.encode()
    body = problem_of(send(app, client, admin_key, "/v1/players", data), 422, "validation-error")
    assert list(body["errors"]) == ["name"]


def test_a_refused_field_named_with_a_lone_surrogate_is_echoed_printably(app, client, admin_key):
    data = b'{"name": "Ann", "\\ud800": 1}'
    body = problem_of(send(app, client, admin_key, "/v1/players", data), 422, "validation-error")
    assert body["errors"] == {"\\ud800": ["Unknown field."]}


def test_names_in_any_script_are_accepted(app, client, admin_key):
    for name in ("Zoë", "Очко", "李 小龍", "👨‍👩‍👧"):
        made = client.post(
            "/v1/players", json={"name": name}, headers={"Authorization": f"Bearer {admin_key}"}
        )
        assert made.status_code == 201 and made.json["name"] == name


# -- table options beyond the ledger's amount bound --------------------------------------------


@pytest.mark.parametrize(
    ("family", "option", "value"),
    [
        ("casino", "max_stake", 10**30),
        ("casino", "max_stake", 2**63),
        ("casino", "max_stake", 10**12 + 1),
        ("vingt-un", "penalty_amount", 10**30),
        ("vingt-un", "pool_ante", 2**64),
        ("ochko", "bank_cap", 10**20),
    ],
)
def test_a_table_option_beyond_the_amount_bound_is_a_422_naming_it(
    app, client, admin_key, family, option, value
):
    data = f'{{"family": "{family}", "options": {{"{option}": {value}}}}}'.encode()
    body = problem_of(send(app, client, admin_key, "/v1/tables", data), 422, "invalid-rules")
    assert body["detail"].startswith(f"{option} must be at most 1000000000000")
