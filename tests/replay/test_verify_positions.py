"""``replay verify`` on a store that numbers events 1, 2, 3 … without a hole (SQLite, memory)
names a missing position as events deleted: the one trace left of a stream's last event that
no other stream records, or of a whole stream. A hole a stream's own skipped versions account
for is named by that stream's chain, not twice. (That a write the store refused leaves no hole
there, and that PostgreSQL's holes are no fault: tests/integration/test_lost_race_seeds.py.)"""

from __future__ import annotations

from types import SimpleNamespace
from uuid import UUID, uuid4

from store_checks import played, verified
from tampering import delete_event, delete_rows

from replay.verify_positions import Positions


def _players(app) -> tuple[str, str, int]:
    """Ann with a deposit, Dora registered after her (a stream of one event), then Ann's
    second deposit: Ann's id, Dora's, and the position of Dora's only event."""
    ann = app.register_player("Ann")["player_id"]
    app.deposit(ann, 100)
    dora = app.register_player("Dora")["player_id"]
    app.deposit(ann, 100)
    (dora_at,) = [
        n.id
        for n in app.recorder.select_notifications(start=1, limit=100)
        if str(n.originator_id) == dora
    ]
    return ann, dora, dora_at


def test_a_whole_stream_deleted_is_named_by_the_hole_it_leaves(sqlite_file):
    env, path = sqlite_file
    ann, dora, dora_at = played(env, _players)
    delete_event(path, dora, 1)

    report = verified(env)

    assert not report.ok
    assert [(f.check, f.position, f.stream) for f in report.faults] == [("positions", dora_at, "")]
    assert report.first.describe().startswith(
        f"the log (position {dora_at}): position {dora_at} is missing (between "
        f"Player.FundsTransferred v2 of stream {ann} (position {dora_at - 1}) and "
        f"Player.FundsTransferred v3 of stream {ann} (position {dora_at + 1})): SQLite numbers "
        "events 1, 2, 3 … without a hole, even for a write it refuses, so the event recorded "
        "there was deleted; as no stream's versions skip it, it was a stream's last event"
    )


def test_a_hole_a_streams_skipped_versions_account_for_is_named_by_its_chain_alone(sqlite_file):
    env, path = sqlite_file
    ann, _, _ = played(env, _players)
    delete_event(path, ann, 2)  # Ann's first deposit, between her registration and v3

    report = verified(env)

    assert [f.check for f in report.faults if f.check in ("chain", "positions")] == ["chain"]


def test_the_logs_first_events_deleted_are_named_from_where_it_starts(sqlite_file):
    env, path = sqlite_file
    ann, _, _ = played(env, _players)
    delete_rows(path, "rowid <= 2")  # Ann's registration and first deposit

    report = verified(env)

    positions = [f for f in report.faults if f.check == "positions"]
    # Ann's chain names her missing versions: the hole is theirs, and named once, by it.
    assert positions == []
    assert any(f.check == "chain" and f.stream == ann for f in report.faults)
    delete_rows(path, "originator_id = ?", UUID(ann).hex)  # now a whole stream, gone

    report = verified(env)

    # Ann's last deposit was the log's last event: a log cut short shows no hole there
    # (``--expect-head`` holds it to a checkpoint); Dora's registration is all that is left.
    holes = [f.problem.split(": SQLite")[0] for f in report.faults if f.check == "positions"]
    assert holes == ["positions 1 to 2 are missing (the log starts at position 3)"]
    assert report.events == 1 and report.first.position == 1


def _note(position: int, stream: str, version: int) -> SimpleNamespace:
    return SimpleNamespace(
        id=position, originator_id=stream, originator_version=version, topic="m:Player.X"
    )


def test_a_store_whose_positions_may_skip_is_never_held_to_them():
    faults: list = []
    positions = Positions(None, lambda where, problem: faults.append(problem))
    for position in (3, 7, 8):
        positions.feed(_note(position, str(uuid4()), 1))
    positions.finish()
    assert faults == []

    memory = Positions("the memory store", lambda where, problem: faults.append(problem))
    for position in (1, 2, 5):
        memory.feed(_note(position, str(uuid4()), 1))
    memory.finish()
    assert [p.split(" (")[0] for p in faults] == ["positions 3 to 4 are missing"]
    assert "the memory store numbers events 1, 2, 3 …" in faults[0]
