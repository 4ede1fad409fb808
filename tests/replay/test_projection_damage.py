"""The projectors on a store with a damaged event (reviewer's report): they stop at the event,
name it in one line (type, version, stream, position) and keep what they folded before it;
never a JSON parser's traceback, and never damaged bytes copied into a read model."""

from __future__ import annotations

import json
import sqlite3

import pytest
from tampering import alter, damage, first_row, write_state

from ledger.application import TwentyOneLedger
from replay.__main__ import main
from replay.damage import StoreDamaged
from replay.projections import open_projections


def positions(env) -> dict[str, int]:
    app = TwentyOneLedger(env=env)
    proj = open_projections(app, env)
    try:
        return proj.positions()
    finally:
        proj.close()
        app.close()


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# Player.FundsTransferred and Round.StakePlaced are decoded (bankroll, history); only the
# audit trail reads Round.CardDealt, and it copies the stored JSON without decoding it.
@pytest.mark.parametrize(
    "topic", ["Player.FundsTransferred", "Round.StakePlaced", "Round.CardDealt"]
)
@pytest.mark.parametrize("command", [["rebuild"], ["project", "--once"]])
def test_a_projector_stops_at_a_damaged_event_and_names_it(stored_round, capsys, topic, command):
    env, path, _ = stored_round
    position, stream, version = damage(path, topic)

    assert main(command, env=env) == 1

    line = one_line(capsys.readouterr().err)
    assert line.startswith(f"replay {command[0]}: the stored events are damaged: ")
    assert (
        f"event {topic} v{version} of stream {stream} (position {position}) cannot be decoded"
        in line
    )
    assert "python -m replay verify" in line
    # What came before it is folded and kept; nothing after it.
    assert set(positions(env).values()) == {position - 1}


def test_a_damaged_event_is_reported_as_json(stored_round, capsys):
    env, path, _ = stored_round
    position, stream, version = damage(path, "Player.FundsTransferred")

    assert main(["--json", "rebuild"], env=env) == 1

    out = json.loads(capsys.readouterr().out)
    assert out["damaged"] == {
        "stream": stream,
        "version": version,
        "position": position,
        "type": "Player.FundsTransferred",
    }
    assert "cannot be decoded" in out["error"]


def test_bytes_that_are_json_but_no_object_are_damage_too(stored_round, capsys):
    env, path, _ = stored_round
    position, stream, version = damage(path, "Round.CardDealt", b"[1, 2]")

    assert main(["rebuild"], env=env) == 1

    assert f"v{version} of stream {stream} (position {position})" in capsys.readouterr().err


def test_json_stored_as_text_is_damage_as_the_mapper_finds_it(stored_round, capsys):
    """SQLite keeps what an UPDATE writes: text where the recorder wrote bytes. The mapper
    cannot decode it (export says so); the projectors say the same rather than copy it."""
    env, path, _ = stored_round
    rowid, _, _, state = first_row(path, "Round.CardDealt")
    write_state(path, rowid, state.decode())

    assert main(["rebuild"], env=env) == 1
    assert f"(position {rowid}) cannot be decoded" in one_line(capsys.readouterr().err)
    assert main(["export"], env=env) == 1  # the same event, the same verdict
    assert f"(position {rowid}) cannot be decoded" in capsys.readouterr().err


def test_a_damaged_topic_is_named(stored_round, capsys):
    env, path, _ = stored_round
    rowid = first_row(path, "Player.FundsTransferred").position
    with sqlite3.connect(path) as db:
        db.execute(
            "update stored_events set topic='ledger.domain.nowhere:Player.FundsTransferred'"
            " where rowid=?",
            (rowid,),
        )

    assert main(["rebuild"], env=env) == 1

    line = one_line(capsys.readouterr().err)
    assert f"(position {rowid}) cannot be decoded" in line


def test_every_catch_up_stops_at_the_same_event_until_it_is_repaired(stored_round):
    env, path, _ = stored_round
    rowid, _, _, state = first_row(path, "Player.FundsTransferred")
    damage(path, "Player.FundsTransferred")
    app = TwentyOneLedger(env=env)
    proj = open_projections(app, env)
    try:
        for _ in range(2):
            with pytest.raises(StoreDamaged) as caught:
                proj.catch_up()
            assert caught.value.position == rowid
            assert proj.position() == rowid - 1
        write_state(path, rowid, state)
        assert proj.catch_up() == proj.head()
    finally:
        proj.close()
        app.close()


def _drop_amount(fields):
    del fields["amount"]


def _amount_as_text(fields):
    fields["amount"] = str(fields["amount"])


def _drop_hand(fields):
    del fields["hand"]


def _drop_prev_hash(fields):
    del fields["prev_hash"]


def _drop_timestamp(fields):
    del fields["timestamp"]


def _clauses_as_number(fields):
    fields["clauses"] = 7  # a list the shape check leaves to the readers


@pytest.mark.parametrize(
    ("topic", "change", "says"),
    [
        ("Player.FundsTransferred", _drop_amount, "no amount"),
        ("Player.FundsTransferred", _amount_as_text, "amount is str, not int"),
        ("Round.StakePlaced", _drop_hand, "no hand"),
        # Copied into the audit trail without decoding: checked against its class all the same,
        # and for the time every reader of a copied line needs.
        ("Round.CardDealt", _drop_prev_hash, "no prev_hash"),
        ("Round.CardDealt", _drop_timestamp, "no timestamp"),
        # Of its class's shape, but a value the history cannot fold: it no longer matches its
        # hash, so it is named too, with the error its reader met.
        ("Round.HandSettled", _clauses_as_number, "TypeError: "),
    ],
)
def test_json_whose_fields_were_altered_stops_the_projectors_at_that_event(
    stored_round, capsys, topic, change, says
):
    env, path, _ = stored_round
    position, stream, version = alter(path, topic, change)

    assert main(["rebuild"], env=env) == 1

    line = one_line(capsys.readouterr().err)
    assert (
        f"event {topic} v{version} of stream {stream} (position {position}) was altered: "
        f"its fields are not what was recorded ({says}" in line
    )
    assert "python -m replay verify" in line
    assert set(positions(env).values()) == {position - 1}


def test_a_handler_failing_on_an_intact_event_is_the_code_s_fault_and_raised_as_it_is(
    stored_round, monkeypatch
):
    from replay.projections.bankroll import Bankroll

    def broken(self, event, stored):
        raise RuntimeError("a bug in the projector")

    monkeypatch.setattr(Bankroll, "transferred", broken)
    env, _, _ = stored_round
    app = TwentyOneLedger(env=env)
    proj = open_projections(app, env)
    try:
        with pytest.raises(RuntimeError, match="a bug in the projector"):
            proj.catch_up()
        assert proj.position() == 0  # the batch rolled back whole
    finally:
        proj.close()
        app.close()
