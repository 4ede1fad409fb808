"""Bad input of any kind is a 4xx problem document that says what was wrong, and writes
nothing: not to the ledger, not to the shoe vault, not to the API's own store."""

from __future__ import annotations

import io
import json

import pytest

from api.problems import PROBLEM_MEDIA_TYPE, TYPE_BASE


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


# -- table options of the wrong type: one answer, invalid-rules naming the option ------------

# JSON values of the wrong type for an option of each Python type (as api/body.py reads them:
# 6.0 and 6e0 arrive as Decimal, so they are written raw here).
WRONG_FOR = {
    int: ["6.0", "6e0", "true", '"6"', "[6]", "{}", "null"],
    bool: ['"yes"', "1", "0", "1.0", "[]", "null"],
    str: ["1", "1.5", "true", '["stand"]', "null", '"\\u0000"', '"\\ud800"'],
}


def _option_types():
    from typing import get_type_hints

    from ledger.rules import FAMILIES

    for family, rules in FAMILIES.items():
        for option, hint in get_type_hints(rules).items():
            if option in ("family", "prefix") or option.endswith("_exposure"):
                continue  # class constants, not options
            types = getattr(hint, "__args__", None) or (hint,)
            kind = next(t for t in types if t is not type(None))
            yield pytest.param(family, option, kind, types, id=f"{family}-{option}")


@pytest.mark.parametrize(("family", "option", "kind", "types"), list(_option_types()))
def test_an_option_of_the_wrong_type_is_a_422_invalid_rules_naming_it(
    app, client, admin_key, family, option, kind, types
):
    for value in WRONG_FOR[kind]:
        if value == "null" and type(None) in types:
            continue  # null is this option's "none" (bank_cap, fixed_bet)
        data = f'{{"family": "{family}", "options": {{"{option}": {value}}}}}'.encode()
        response = send(app, client, admin_key, "/v1/tables", data)
        body = problem_of(response, 422, "invalid-rules")
        assert body["option"] == option, value
        assert option in body["detail"] and "errors" not in body, value


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
    assert body["option"] == option


# -- bodies that are not JSON, or not JSON this API reads -------------------------------------


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b'{"amount": 5', "not valid JSON"),
        (b'{"amount": 5,}', "not valid JSON"),
        (b'{"amount": NaN}', "NaN is not a JSON number"),
        (b'{"amount": -Infinity}', "-Infinity is not a JSON number"),
        (b'{"amount": 5, "amount": 7}', "'amount' appears twice"),
        (b'{"amount": ' + b"9" * 5000 + b"}", "an integer of 5000 digits"),
        (b'{"amount": 5, "x": ' + b"[" * 5000 + b"]" * 5000 + b"}", "deeper than 32 levels"),
        (b'{"amount": 5, "x": ' + b'{"a":' * 40 + b"1" + b"}" * 40 + b"}", "deeper than 32"),
        (b'{"amount": 5, "x": ' + b"[" * 500 + b"]" * 500 + b"}", "deeper than 32 levels"),
        (b'{"name": "\xe9"}', "not UTF-8"),
        (b'\xef\xbb\xbf{"amount": 5}', "byte order mark (U+FEFF)"),
        (b"   ", "not valid JSON"),
    ],
)
def test_a_body_that_is_not_json_is_a_400_saying_why(app, client, admin_key, world, data, says):
    path = f"/v1/players/{world['player']}/deposits"
    for headers in ({}, {"Idempotency-Key": "k1"}):  # the fingerprint reads it first
        response = send(app, client, admin_key, path, data, **headers)
        assert says in problem_of(response, 400, "malformed-json")["detail"]


def test_a_deeply_nested_table_option_is_a_400_not_a_500(app, client, admin_key):
    data = b'{"family": "casino", "options": ' + b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"}"
    problem_of(send(app, client, admin_key, "/v1/tables", data), 400, "malformed-json")


@pytest.mark.parametrize(
    "number", ["100.00000000000000001", "100.0", "1e2", "1E+2", "999999999999.9999999", "1e999"]
)
def test_money_written_with_a_fraction_or_an_exponent_is_refused_not_rounded(
    app, client, admin_key, world, number
):
    path = f"/v1/players/{world['player']}/deposits"
    body = problem_of(
        send(app, client, admin_key, path, f'{{"amount": {number}}}'.encode()),
        422,
        "validation-error",
    )
    assert list(body["errors"]) == ["amount"]
    assert "whole number of minor units" in body["errors"]["amount"][0]


def test_every_out_of_range_stake_gets_the_one_message_of_the_documents_bounds(
    app, client, admin_key, world
):
    path = f"/v1/rounds/{world['round']}/actions"
    said = set()
    for amount in (-5, 0, 10**12 + 1):
        body = problem_of(
            send(app, client, admin_key, path, f'{{"action": "stake", "amount": {amount}}}'),
            422,
            "validation-error",
        )
        said.add(body["errors"]["amount"][0])
    assert said == {"Must be greater than or equal to 1 and less than or equal to 1000000000000."}
    insurance = b'{"action": "insurance", "hand": "h1", "amount": -1}'
    body = problem_of(send(app, client, admin_key, path, insurance), 422, "validation-error")
    assert body["errors"]["amount"] == [
        "Must be greater than or equal to 0 and less than or equal to 1000000000000."
    ]


def test_a_stake_and_a_seat_written_with_a_fraction_are_refused(app, client, admin_key, world):
    stake = b'{"action": "stake", "amount": 200.0}'
    body = problem_of(
        send(app, client, admin_key, f"/v1/rounds/{world['round']}/actions", stake),
        422,
        "validation-error",
    )
    assert list(body["errors"]) == ["amount"]
    seat = f'{{"player_id": "{world["player"]}", "seat": 2.0}}'.encode()
    body = problem_of(
        send(app, client, admin_key, f"/v1/tables/{world['table']}/seats", seat),
        422,
        "validation-error",
    )
    assert list(body["errors"]) == ["seat"]


def test_a_table_option_written_with_a_fraction_is_refused(app, client, admin_key):
    data = b'{"family": "casino", "options": {"min_stake": 200.0}}'
    body = problem_of(send(app, client, admin_key, "/v1/tables", data), 422, "invalid-rules")
    assert body["option"] == "min_stake"
    assert "without a fraction or an exponent" in body["detail"]


def test_money_as_a_json_integer_is_accepted(app, client, admin_key, world):
    response = client.post(
        f"/v1/players/{world['player']}/deposits",
        data=b'{"amount": 100}',
        headers={"Authorization": f"Bearer {admin_key}", "Content-Type": "application/json"},
    )
    assert response.status_code == 200 and response.json["balance"] == 100_100


# -- content types and sizes --------------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"],
)
@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/v1/players", b'{"name": "Zed"}'),
        ("/v1/players/{player}/deposits", b'{"amount": 5}'),
        ("/v1/tables/{table}/close", b"{}"),
        ("/v1/tables/{table}/rounds", b'{"cut": 5}'),
    ],
)
def test_a_body_not_sent_as_json_is_a_415(app, client, admin_key, world, content_type, path, data):
    path = path.format(**world)
    body = problem_of(
        send(app, client, admin_key, path, data, content_type), 415, "unsupported-media-type"
    )
    assert "application/json" in body["detail"]


@pytest.mark.parametrize("charset", ["latin-1", "iso-8859-1", "utf-16", "ascii", "utf-8x"])
def test_a_json_body_declared_in_another_charset_than_utf_8_is_a_415_naming_it(
    app, client, admin_key, world, charset
):
    path = f"/v1/players/{world['player']}/deposits"
    content_type = f"application/json; charset={charset}"
    response = send(app, client, admin_key, path, b'{"amount": 5}', content_type)
    assert repr(charset) in problem_of(response, 415, "unsupported-media-type")["detail"]


def test_json_media_types_with_parameters_or_a_json_suffix_are_accepted(app, client, admin_key):
    for content_type in (
        "application/json; charset=utf-8",
        'application/json; charset="UTF-8"',
        "application/json; charset=utf8",
        "application/vnd.ledger+json",
    ):
        made = client.post(
            "/v1/players",
            data=b'{"name": "Zed"}',
            headers={"Authorization": f"Bearer {admin_key}", "Content-Type": content_type},
        )
        assert made.status_code == 201, made.json


def test_a_chunked_body_over_the_limit_is_a_413_as_with_a_content_length(app, client, admin_key):
    data = b'{"name": "' + b"a" * 70_000 + b'"}'
    before = positions(app)
    response = client.post(
        "/v1/players",
        input_stream=io.BytesIO(data),
        headers={
            "Authorization": f"Bearer {admin_key}",
            "Content-Type": "application/json",
            "Transfer-Encoding": "chunked",
        },
        # What gunicorn and werkzeug's server say of a chunked body they de-chunk.
        environ_overrides={"wsgi.input_terminated": True},
    )
    assert positions(app) == before
    assert "65536" in problem_of(response, 413, "payload-too-large")["detail"]


# -- unknown fields ----------------------------------------------------------------------------


def _post_operations(app):
    """Every POST route of the API (its werkzeug rule)."""
    for rule in app.url_map.iter_rules():
        if "POST" in rule.methods and rule.rule.startswith("/v1/"):
            yield rule.rule


def test_every_command_refuses_an_unknown_field(app, client, admin_key, world):
    ids = {"table_id": world["table"], "player_id": world["player"], "round_id": world["round"]}
    paths = sorted(_post_operations(app))
    assert "/v1/tables/<uuid:table_id>/close" in paths
    for rule in paths:
        path = rule
        for name, value in ids.items():
            path = path.replace(f"<uuid:{name}>", value)
        body = problem_of(send(app, client, admin_key, path, b'{"x": 1}'), 422, "validation-error")
        assert body["errors"].get("x") == ["Unknown field."], (rule, body)


def test_every_command_reads_its_body_with_the_one_body_reader(app, client, admin_key, world):
    ids = {"table_id": world["table"], "player_id": world["player"], "round_id": world["round"]}
    for rule in sorted(_post_operations(app)):
        path = rule
        for name, value in ids.items():
            path = path.replace(f"<uuid:{name}>", value)
        sent = send(app, client, admin_key, path, b'{"x": 1}', "text/plain")
        problem_of(sent, 415, "unsupported-media-type")
        problem_of(send(app, client, admin_key, path, b'{"x": 1, "x": 2}'), 400, "malformed-json")


def test_a_table_closes_with_an_empty_object_or_no_body(app, client, admin_key):
    auth = {"Authorization": f"Bearer {admin_key}"}
    ledger = app.extensions["ledger"]
    for body in ({}, None):
        tid = ledger.open_table("casino", {})["table_id"]
        closed = client.post(f"/v1/tables/{tid}/close", json=body, headers=auth)
        assert closed.status_code == 200 and closed.json["closed"] is True


# -- cursors of the table's feed -----------------------------------------------------------------


def test_a_feed_cursor_beyond_the_logs_head_is_a_422_not_a_next_page(app, client, admin_key, world):
    head = app.extensions["ledger"].recorder.max_notification_id()
    auth = {"Authorization": f"Bearer {admin_key}"}
    path = f"/v1/tables/{world['table']}/events"
    at_head = client.get(f"{path}?after={head}", headers=auth)
    assert at_head.status_code == 200 and at_head.json == {"items": [], "next": head, "more": False}
    for after in (head + 1, 2**63 - 1):
        body = problem_of(
            client.get(f"{path}?after={after}", headers=auth), 422, "cursor-beyond-log"
        )
        assert body["detail"].startswith(
            f"after={after} is beyond the log's last position ({head})"
        )
    problem_of(client.get(f"{path}?after={2**63}", headers=auth), 422, "validation-error")
    stream = f"{path}/stream?timeout=0&after={head + 1}"
    problem_of(client.get(stream, headers=auth), 422, "cursor-beyond-log")


@pytest.mark.parametrize("last", ["abc", "١٢", "²", "-1", "1.0", "99999999999999999999999"])
def test_a_last_event_id_that_is_not_a_position_of_the_log_is_a_400(
    app, client, admin_key, world, last
):
    response = client.get(
        f"/v1/tables/{world['table']}/events/stream?timeout=0",
        headers={"Authorization": f"Bearer {admin_key}", "Last-Event-ID": last},
    )
    assert "Last-Event-ID" in problem_of(response, 400, "bad-last-event-id")["detail"]


@pytest.mark.parametrize("written", ["%EF%BC%91", "+1", "%201", "1%20", "%D9%A1", "0x1", "1_0"])
@pytest.mark.parametrize(
    "query",
    [
        "/v1/tables/{table}/events?after={n}",
        "/v1/tables/{table}/events?limit={n}",
        "/v1/tables/{table}/events/stream?timeout=0&after={n}",
        "/v1/tables/{table}/events/stream?timeout={n}",
        "/v1/players/{player}/bankroll?after={n}",
        "/v1/players/{player}/bankroll?limit={n}",
        "/v1/players/{player}/bankroll?position={n}",
        "/v1/players/{player}/rounds?after={n}",
        "/v1/tables/{table}/rounds?after={n}",
    ],
)
def test_a_number_in_a_query_is_ascii_digits_as_last_event_id_is(
    app, client, admin_key, world, query, written
):
    # "１" (fullwidth), "+1", " 1" and "١" would all read as 1 to int(): one position must
    # have one spelling.
    path = query.format(n=written, **world)
    response = client.get(path, headers={"Authorization": f"Bearer {admin_key}"})
    body = problem_of(response, 422, "validation-error")
    (field,) = body["errors"]
    assert "ASCII digits" in body["errors"][field][0]


@pytest.mark.parametrize(
    ("seat", "kind"),
    [(0, "validation-error"), (13, "validation-error"), (10**30, "validation-error")]
    + [(8, "invalid-command"), (12, "invalid-command")],
)
def test_every_seat_outside_the_table_is_a_422_giving_the_range(
    app, client, admin_key, world, seat, kind
):
    # world's casino table has 7 seats; no table has more than 12, which the document says.
    # Beyond that a schema refuses the field; within it, the table's own count is the
    # ledger's to judge (as a table option is), and says it: never a 404 "unknown seat".
    path = f"/v1/tables/{world['table']}/seats"
    other = app.extensions["ledger"].register_player("Bob")["player_id"]
    body = f'{{"player_id": "{other}", "seat": {seat}}}'.encode()
    problem = problem_of(send(app, client, admin_key, path, body), 422, kind)
    if kind == "validation-error":
        assert problem["errors"]["seat"] == [
            "Must be greater than or equal to 1 and less than or equal to 12."
        ]
    else:
        assert problem["detail"] == f"seat must be 1 to 7 at this table, got {seat}"
