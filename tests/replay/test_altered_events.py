"""Stored events whose JSON still parses but whose fields were altered by hand (a field
dropped or a number turned into text): every replay tool names the event as damaged, in one
line, where it would otherwise fail deep in whatever read it (reviewer's finding)."""

from __future__ import annotations

import json
import sqlite3
from uuid import UUID

import pytest
from tampering import alter, damage

from ledger.application import TwentyOneLedger
from replay.__main__ import main
from replay.audit import audit_round
from replay.checked_reads import fold
from replay.damage import StoreDamaged
from replay.event_shape import misshapen


def _no_card(fields):
    del fields["card"]


def _amount_as_text(fields):
    fields["amount"] = str(fields["amount"])


def _no_amount(fields):
    del fields["amount"]


def _no_seat(fields):
    del fields["seat"]


CASES = [
    ("Round.CardDealt", _no_card, "no card"),  # the round's own stream
    ("Player.FundsTransferred", _amount_as_text, "amount is str, not int"),  # a wallet read
    ("Player.FundsTransferred", _no_amount, "no amount"),
]


@pytest.mark.parametrize(("topic", "change", "says"), CASES)
def test_the_round_audit_names_an_altered_event(stored_round, topic, change, says):
    env, path, rid = stored_round
    position, stream, version = alter(path, topic, change)
    app = TwentyOneLedger(env=env)
    try:
        with pytest.raises(StoreDamaged) as caught:
            audit_round(app, rid)
    finally:
        app.close()
    damaged = caught.value
    assert (damaged.stream, damaged.version, damaged.position) == (stream, version, position)
    assert f"was altered: its fields are not what was recorded ({says})" in str(damaged)


@pytest.mark.parametrize("command", [["export"], ["round", "ROUND"], ["rederive", "ROUND"]])
def test_the_cli_names_an_altered_round_event_in_one_line(stored_round, capsys, command):
    env, path, rid = stored_round
    position, stream, version = alter(path, "Round.CardDealt", _no_card)

    assert main([rid if word == "ROUND" else word for word in command], env=env) == 1

    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    # rederive reads the round's events without their positions (it lists none).
    where = "" if command[0] == "rederive" else f" (position {position})"
    assert (
        f"event Round.CardDealt v{version} of stream {stream}{where} was "
        "altered: its fields are not what was recorded (no card)" in err
    )


def _no_rules(fields):
    del fields["rules"]


VERIFY_CASES = [*CASES, ("Table.Opened", _no_rules, "no rules")]


@pytest.mark.parametrize(("topic", "change", "says"), VERIFY_CASES)
def test_verify_names_an_altered_event_as_its_first_fault(
    stored_round, capsys, topic, change, says
):
    env, path, _ = stored_round
    position, stream, version = alter(path, topic, change)

    assert main(["verify"], env=env) == 1

    captured = capsys.readouterr()
    assert captured.err == ""
    first = captured.out.splitlines()[0]
    assert first == (
        f"verify (all streams): FAILED at {topic} v{version} of stream {stream} "
        f"(position {position}): the stored event was altered: its fields are not what was "
        f"recorded ({says})"
    )


@pytest.mark.parametrize(("topic", "change", "says"), VERIFY_CASES)
def test_verify_json_reports_an_altered_event_in_its_report(
    stored_round, capsys, topic, change, says
):
    env, path, _ = stored_round
    position, stream, version = alter(path, topic, change)

    assert main(["--json", "verify"], env=env) == 1

    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    assert report["first_fault"] == {
        "check": "decode",
        "position": position,
        "stream": stream,
        "version": version,
        "type": topic,
        "problem": f"the stored event was altered: its fields are not what was recorded ({says})",
    }


@pytest.mark.parametrize("change", [_no_amount, _amount_as_text, "garbage"])
def test_an_unreadable_wallet_event_is_one_fault_not_one_per_later_debit(
    stored_round, capsys, change
):
    """Ann's deposit unread, each of her stakes would seem to overdraw her wallet, and her
    snapshots to differ from her events: faults that all follow from the first."""
    env, path, _ = stored_round
    if change == "garbage":
        damage(path, "Player.FundsTransferred")
    else:
        alter(path, "Player.FundsTransferred", change)

    assert main(["--json", "verify"], env=env) == 1

    faults = json.loads(capsys.readouterr().out)["faults"]
    assert faults[0]["check"] == "decode"
    assert {f["check"] for f in faults} <= {"decode", "chain"}, faults


def _table_of(env: dict, rid: str) -> str:
    app = TwentyOneLedger(env=env)
    try:
        return str(app.get_round(rid).table_id)
    finally:
        app.close()


def _time_of(path, position: int) -> str:
    """The stored time of the event at ``position`` (an altered event keeps its own)."""
    with sqlite3.connect(path) as db:
        (state,) = db.execute(
            "select state from stored_events where rowid=?", (position,)
        ).fetchone()
    return json.loads(state)["timestamp"]["_data_"]


@pytest.mark.parametrize("as_json", [False, True])
@pytest.mark.parametrize(
    ("topic", "change", "says"),
    [
        ("Table.Opened", _no_rules, "no rules"),  # the table's first event, folded at --at
        ("Table.PlayerSeated", _no_seat, "no seat"),  # an event the bisection reads too
    ],
)
def test_a_table_at_a_moment_names_an_altered_table_event_in_one_line(
    stored_round, capsys, topic, change, says, as_json
):
    env, path, rid = stored_round
    table = _table_of(env, rid)
    position, stream, version = alter(path, topic, change, stream=table)
    at = _time_of(path, position)

    assert main([*(["--json"] if as_json else []), "table", table, "--at", at], env=env) == 1

    captured = capsys.readouterr()
    named = (
        f"event {topic} v{version} of stream {stream} (position {position}) was altered: "
        f"its fields are not what was recorded ({says})"
    )
    if as_json:
        answer = json.loads(captured.out)
        assert named in answer["error"]
        assert answer["damaged"] == {
            "stream": stream,
            "version": version,
            "position": position,
            "type": topic,
        }
    else:
        err = captured.err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert err.startswith("replay table: the stored events are damaged: ") and named in err


def test_the_audit_endpoint_answers_stored_events_damaged(stored_round):
    from api import create_app

    env, path, rid = stored_round
    position, stream, version = alter(path, "Player.FundsTransferred", _amount_as_text)
    app = create_app({"TESTING": True, "STORE_ENV": env})
    admin = app.extensions["api_store"].create_key("admin", None, "")[0]

    response = app.test_client().get(
        f"/v1/rounds/{rid}/audit", headers={"Authorization": f"Bearer {admin}"}
    )

    assert response.status_code == 500
    problem = response.get_json()
    assert problem["type"].endswith("/stored-events-damaged")
    assert (problem["stream"], problem["version"], problem["position"]) == (
        stream,
        version,
        position,
    )


def test_an_intact_event_of_every_stream_has_its_declared_shape(stored_round):
    env, _, rid = stored_round
    app = TwentyOneLedger(env=env)
    try:
        events = [app.mapper.to_domain_event(n) for n in app.recorder.select_notifications(1, 500)]
    finally:
        app.close()
    assert len(events) > 40
    assert [e for e in events if misshapen(e) is not None] == []


def _events_of(env: dict, stream: str) -> list:
    app = TwentyOneLedger(env=env)
    try:
        return list(app.repository.event_store.get(UUID(stream)))
    finally:
        app.close()


def test_fold_names_an_event_that_fails_and_no_longer_matches_its_hash(stored_round):
    env, _, rid = stored_round
    events = _events_of(env, rid)
    started = events[0]
    del vars(started)["table_id"]  # as decoded from JSON that lost it

    with pytest.raises(StoreDamaged) as caught:
        fold(events)

    assert caught.value.version == 1 and caught.value.stream == rid
    assert "was altered: its fields are not what was recorded (" in str(caught.value)


def test_fold_raises_a_failure_on_an_intact_event_as_it_is(stored_round, monkeypatch):
    env, _, rid = stored_round
    events = _events_of(env, rid)

    def broken(self, aggregate):
        raise RuntimeError("a bug in the code")

    monkeypatch.setattr(type(events[1]), "apply", broken)

    with pytest.raises(RuntimeError, match="a bug in the code"):
        fold(events)


# -- the read models (python -m replay project / rebuild, and the API's reads) ----------------


def _passes_deal_as_text(fields):
    fields["passes_deal"] = str(fields["passes_deal"])


# Folded without failing before the projectors checked each event: the audit trail copied the
# card-less line, and the history read any text as a passed deal.
PROJECTED_CASES = [
    *CASES,
    ("Round.Ended", _passes_deal_as_text, "passes_deal is str, not bool"),
]


def _projected_to(env: dict) -> set[int]:
    from replay.projections import open_projections

    app = TwentyOneLedger(env=env)
    projections = open_projections(app, env)
    try:
        return set(projections.positions().values())
    finally:
        projections.close()
        app.close()


@pytest.mark.parametrize("command", [["rebuild"], ["project", "--once"]])
@pytest.mark.parametrize(("topic", "change", "says"), PROJECTED_CASES)
def test_the_projectors_name_an_altered_event_in_one_line_and_stop_before_it(
    stored_round, capsys, command, topic, change, says
):
    env, path, _ = stored_round
    position, stream, version = alter(path, topic, change)

    assert main(command, env=env) == 1

    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"replay {command[0]}: the stored events are damaged: ")
    assert (
        f"event {topic} v{version} of stream {stream} (position {position}) was altered: "
        f"its fields are not what was recorded ({says})" in err
    )
    assert _projected_to(env) == {position - 1}  # what came before it, nothing after


@pytest.mark.parametrize("command", [["rebuild"], ["project", "--once"]])
def test_the_projectors_report_an_altered_event_as_json(stored_round, capsys, command):
    env, path, _ = stored_round
    position, stream, version = alter(path, "Round.CardDealt", _no_card)

    assert main(["--json", *command], env=env) == 1

    answer = json.loads(capsys.readouterr().out)
    assert "was altered: its fields are not what was recorded (no card)" in answer["error"]
    assert answer["damaged"] == {
        "stream": stream,
        "version": version,
        "position": position,
        "type": "Round.CardDealt",
    }


def _api(env: dict, **config):
    from api import create_app

    app = create_app({"TESTING": True, "STORE_ENV": env, **config})
    admin = app.extensions["api_store"].create_key("admin", None, "")[0]
    return app, {"Authorization": f"Bearer {admin}"}


def _assert_names(response, topic: str, stream: str, version: int, position: int, says: str):
    assert response.status_code == 500, response.get_json()
    problem = response.get_json()
    assert problem["type"].endswith("/stored-events-damaged")
    assert (problem["stream"], problem["version"], problem["position"]) == (
        stream,
        version,
        position,
    )
    assert (
        f"event {topic} v{version} of stream {stream} (position {position}) was altered: "
        f"its fields are not what was recorded ({says})" in problem["detail"]
    )


# Reads answered from the read models alone (the round's trail first loads the round itself,
# which the write side folds from its events).
def _read_model_reads(env: dict, rid: str) -> list[str]:
    return ["/v1/accounts/cashier", f"/v1/tables/{_table_of(env, rid)}/rounds"]


@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize(("topic", "change", "says"), PROJECTED_CASES[::3])
def test_a_read_model_read_that_projects_names_an_altered_event(
    stored_round, which, topic, change, says
):
    """The API's reads fold what is new themselves (inline mode): none of them is answered
    from read models that folded the altered event."""
    env, path, rid = stored_round
    read = _read_model_reads(env, rid)[which]
    position, stream, version = alter(path, topic, change)
    app, admin = _api(env)

    response = app.test_client().get(read, headers=admin)

    _assert_names(response, topic, stream, version, position, says)
    assert app.extensions["projections"].position() == position - 1


def test_an_external_api_names_the_altered_event_its_worker_stopped_at(stored_round):
    env, path, rid = stored_round
    position, stream, version = alter(path, "Round.CardDealt", _no_card)
    assert main(["project", "--once"], env=env) == 1  # the worker stops before it
    app, admin = _api(env, LEDGER_PROJECTIONS="external", LEDGER_PROJECTION_WAIT_MS=50)
    head = app.extensions["projections"].head()

    response = app.test_client().get(f"/v1/accounts/cashier?position={head}", headers=admin)

    _assert_names(response, "Round.CardDealt", stream, version, position, "no card")


@pytest.mark.parametrize("read", ["/v1/rounds/{rid}", "/v1/rounds/{rid}/trail"])
def test_a_request_that_loads_a_round_with_an_altered_event_names_it(stored_round, read):
    # The write side folds the round without checking shapes: the failure is traced back to
    # the event it was applying, not answered as a bare internal error.
    env, path, rid = stored_round
    _, stream, version = alter(path, "Round.CardDealt", _no_card)
    app, headers = _api(env)
    try:
        response = app.test_client().get(read.format(rid=rid), headers=headers)
    finally:
        app.extensions["ledger"].close()

    assert response.status_code == 500, response.get_json()
    problem = response.get_json()
    assert problem["type"].endswith("/stored-events-damaged")
    assert (problem["stream"], problem["version"]) == (stream, version)
    assert (
        f"event Round.CardDealt v{version} of stream {stream} was altered: its fields are not "
        "what was recorded (no card)" in problem["detail"]
    )
