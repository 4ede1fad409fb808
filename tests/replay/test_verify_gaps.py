"""``replay verify`` names what the hash chains alone cannot show: a round's last events or
whole stream dropped, a stored snapshot edited, a used-card shoe that is not the packs less
the cards on the table, the log cut short after a checkpoint; ``--table`` refuses what is no
table (and checks only that table's snapshots), and ``export --table`` too."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from datetime import timedelta
from pathlib import Path
from uuid import UUID

import pytest
from forgery import forge_stream
from replay_history import play_history
from store_checks import verified
from tampering import alter

from ledger.application import TwentyOneLedger
from ledger.config import store_env as build
from ledger.shuffle import ALGORITHM
from replay.__main__ import main
from replay.verify import NotATable, verify


@pytest.fixture
def sqlite_history(sqlite_file):
    env = sqlite_file[0]
    app = TwentyOneLedger(env=env)
    try:
        history = play_history(app, rounds=2)
        report = verify(app)
    finally:
        app.close()
    assert report.ok, report.text()
    return env, history, report


def _delete(env: dict, where: str, *args) -> None:
    with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
        db.execute(f"DELETE FROM stored_events WHERE {where}", args)


def _a_round(env: dict, history: dict) -> tuple[str, str, int]:
    """The fixed casino round, its table and its last version (its Round.Ended)."""
    rid = history["fixed_round"]
    with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
        (last,) = db.execute(
            "SELECT max(originator_version) FROM stored_events WHERE originator_id=?",
            (UUID(rid).hex,),
        ).fetchone()
        (topic,) = db.execute(
            "SELECT topic FROM stored_events WHERE originator_id=? AND originator_version=?",
            (UUID(rid).hex, last),
        ).fetchone()
    assert topic.endswith("Round.Ended")
    app = TwentyOneLedger(env=env)
    try:
        table = str(app.get_round(rid).table_id)
    finally:
        app.close()
    return rid, table, last


def test_a_rounds_dropped_end_is_named_at_the_tables_closing_of_it(sqlite_history):
    env, history, _ = sqlite_history
    rid, table, last = _a_round(env, history)
    _delete(env, "originator_id=? AND originator_version=?", UUID(rid).hex, last)

    report = verified(env)

    assert not report.ok
    rounds = [f for f in report.faults if f.check == "rounds"]
    assert [(f.stream, f.type) for f in rounds] == [(table, "Table.RoundClosed")]
    assert f"round {rid}, whose stream has no Round.Ended" in rounds[0].problem


def test_a_rounds_dropped_settlement_leaves_its_escrow_full_once_the_table_closed_it(
    sqlite_history,
):
    env, history, _ = sqlite_history
    rid, table, last = _a_round(env, history)
    # The round's last few events: its end, settlements and the transfers in its stream.
    _delete(env, "originator_id=? AND originator_version>=?", UUID(rid).hex, last - 4)

    report = verified(env)

    problems = [f.problem for f in report.faults if f.stream == table]
    assert any("no Round.Ended" in p for p in problems), report.text()
    assert all(f.stream in (table, "") or f.check == "money" for f in report.faults)


def test_a_dropped_round_stream_is_named(sqlite_history):
    env, history, _ = sqlite_history
    rid, table, _ = _a_round(env, history)
    _delete(env, "originator_id=?", UUID(rid).hex)

    report = verified(env)

    assert not report.ok
    assert any(
        f.check == "rounds"
        and f.stream == table
        and f"round {rid}, which has no stream" in f.problem
        for f in report.faults
    ), report.text()


def test_the_head_is_reported_and_a_cut_after_the_checkpoint_is_named(sqlite_history, capsys):
    env, _, before = sqlite_history
    head = f"{before.head_position}:{before.head_digest}"
    assert before.head_digest and len(before.head_digest) == 64
    assert f"log head: {head}" in before.text()
    held = verified(env, expect_head=head)
    assert held.ok and f"expected head {head}: holds" in held.text()

    wrong = f"{before.head_position}:{'0' * 64}"
    named = verified(env, expect_head=wrong)
    assert [f.check for f in named.faults] == ["head"]
    assert named.first.position == before.head_position
    # Its last line too says so: ``verify | tail -1`` must not read as a pass.
    assert (
        named.text().splitlines()[-1] == f"  expected head {wrong}: does NOT hold (see the fault)"
    )

    # The newest commands whole (the last two tables' closing and their shoes' reveals): a
    # command cut in two would leave a closed table's shoe unrevealed, which verify names.
    with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
        closings = db.execute(
            "SELECT rowid FROM stored_events WHERE topic LIKE '%Table.Closed'"
            " ORDER BY rowid DESC LIMIT 2"
        ).fetchall()
    _delete(env, "rowid >= ?", closings[-1][0])
    assert verified(env).ok  # the log alone cannot tell it was cut
    cut = verified(env, expect_head=head)
    assert not cut.ok
    assert "is gone: the log ends at position" in cut.first.problem
    assert main(["verify", "--expect-head", head, "--json"], env=env) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["first_fault"]["check"] == "head"
    assert out["head_position"] < before.head_position
    assert main(["verify", "--expect-head", "12:nothex"], env=env) == 2


def _renamed(events: list) -> list:
    first = dataclasses.replace(events[0], name="Mallory")
    return [first, *events[1:]]


def test_a_stream_rewritten_whole_before_the_checkpoint_breaks_the_digest(sqlite_history):
    """A player's name changed with his stream's hashes recomputed: every chain still fits
    and nothing else checks a name, but the log's digest at the checkpoint changes."""
    env, _, before = sqlite_history
    digest = f"{before.head_position}:{before.head_digest}"
    event_only = f"{before.head_position}:{before.head_hash}"
    with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
        (player,) = db.execute(
            "SELECT originator_id FROM stored_events WHERE topic LIKE '%Player.Registered'"
            " ORDER BY rowid LIMIT 1"
        ).fetchone()
    forge_stream(env, str(UUID(player)), _renamed)

    assert verified(env).ok  # the chains alone cannot tell
    broken = verified(env, expect_head=digest)
    assert [f.check for f in broken.faults] == ["head"]
    assert "was changed, added or removed" in broken.first.problem
    # A checkpoint of the last event's own hash (as verify printed before the digest) still
    # holds, and says why it is the weaker one.
    weak = verified(env, expect_head=event_only)
    assert weak.ok
    assert f"expected head {event_only}: holds (an event's own hash" in weak.text()


def test_an_event_dated_before_its_streams_previous_one_is_named(sqlite_history):
    """Re-dated with its stream's hashes recomputed, so the chain fits: a stream's times are
    what ``table --at`` bisects, and a writer never dates an event before the last one."""
    env, _, _ = sqlite_history
    with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
        (player,) = db.execute(
            "SELECT originator_id FROM stored_events WHERE topic LIKE '%Player.Registered'"
            " ORDER BY rowid LIMIT 1"
        ).fetchone()

    def back_dated(events):
        earlier = events[0].timestamp - timedelta(hours=1)
        return [events[0], dataclasses.replace(events[1], timestamp=earlier), *events[2:]]

    forge_stream(env, str(UUID(player)), back_dated)
    report = verified(env)
    assert [(f.check, f.version) for f in report.faults] == [("chain", 2)]
    assert "before the stream's previous event" in report.first.problem


def test_a_checkpoint_does_not_hold_over_an_event_edited_with_its_hash_kept(sqlite_history):
    """The digest is made of the stored hashes, which an edit that leaves the hash alone keeps:
    the event's own hash check names it, and the checkpoint line must not say "holds"."""
    env, _, before = sqlite_history
    head = f"{before.head_position}:{before.head_digest}"
    position, _, _ = alter(
        Path(env["SQLITE_DBNAME"]), "Player.Registered", lambda f: f.update(name="Mallory")
    )

    report = verified(env, expect_head=head)
    assert [f.check for f in report.faults] == ["chain", "head"]
    assert f"the event at position {position}, before it, no longer fits its own" in (
        report.faults[-1].problem
    )
    assert f"  expected head {head}: does NOT hold (see the fault)" in report.text()


def test_the_digest_is_the_documented_running_sha256(sqlite_history):
    """Recomputed from the stored events as README's formula says, outside ``verify``."""
    env, _, before = sqlite_history
    app = TwentyOneLedger(env=env)
    try:
        digest = "0" * 64
        for n in app.recorder.select_notifications(start=1, limit=10**7):
            event = app.mapper.to_domain_event(n)
            line = f"{digest}\n{n.id}:{n.originator_id}:{n.originator_version}:{event.hash}"
            digest = hashlib.sha256(line.encode()).hexdigest()
    finally:
        app.close()
    assert digest == before.head_digest


def test_verify_table_refuses_what_is_no_table_and_counts_the_tables_streams(
    sqlite_history, capsys
):
    env, history, whole = sqlite_history
    rid, table, _ = _a_round(env, history)
    scoped = verified(env, table=table)
    assert scoped.ok
    assert 0 < scoped.events < whole.events
    assert 0 < scoped.streams < whole.streams
    for wrong in (rid, "not-a-uuid", "00000000-0000-0000-0000-000000000001"):
        with pytest.raises(NotATable):
            verified(env, table=wrong)
        assert main(["verify", "--table", wrong], env=env) == 1
        assert "error:" in capsys.readouterr().err


def test_export_table_refuses_an_unknown_or_non_table_id(sqlite_history, capsys):
    env, history, _ = sqlite_history
    rid, table, _ = _a_round(env, history)
    for wrong in (rid, "00000000-0000-0000-0000-000000000001", "nope"):
        assert main(["export", "--table", wrong], env=env) == 1
        assert "export:" in capsys.readouterr().err
    assert main(["export", "--table", table], env=env) == 0


def _a_wallet_snapshotted_at_v50(app: TwentyOneLedger) -> str:
    """Ann, after 60 deposits: a snapshot of her wallet is stored at v50."""
    ann = app.register_player("Ann")["player_id"]
    for _ in range(60):
        app.deposit(ann, 10)
    return ann


def test_an_edited_snapshot_is_named_with_its_stream_and_version(tmp_path):
    env = dict(build("sqlite", sqlite_path=str(tmp_path / "s.sqlite3"), environ={}))
    app = TwentyOneLedger(env=env)
    try:
        ann = _a_wallet_snapshotted_at_v50(app)
        assert [s.originator_version for s in app.snapshots.get(UUID(ann))] == [50]
        honest = verify(app)
    finally:
        app.close()
    assert honest.ok and honest.snapshots_checked == 1
    with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
        (state,) = db.execute(
            "SELECT state FROM stored_snapshots WHERE originator_id=?", (UUID(ann).hex,)
        ).fetchone()
        data = json.loads(state)
        data["state"]["balance"] += 500_000
        db.execute(
            "UPDATE stored_snapshots SET state=? WHERE originator_id=?",
            (json.dumps(data).encode(), UUID(ann).hex),
        )

    report = verified(env)

    assert not report.ok
    assert (report.first.check, report.first.type) == ("snapshot", "Snapshot")
    assert (report.first.stream, report.first.version) == (ann, 50)
    assert "differs in balance" in report.first.problem
    assert f"Snapshot v50 of stream {ann}" in report.text()


def test_verify_table_counts_only_that_tables_snapshots(tmp_path):
    env = dict(build("sqlite", sqlite_path=str(tmp_path / "s.sqlite3"), environ={}))
    app = TwentyOneLedger(env=env)
    try:
        _a_wallet_snapshotted_at_v50(app)
        table = app.open_table("casino", {})["table_id"]
        whole, scoped = verify(app), verify(app, table=table)
    finally:
        app.close()
    assert whole.snapshots_checked == 1
    assert scoped.ok and scoped.snapshots_checked == 0
    assert json.loads(json.dumps(scoped.to_dict()))["snapshots_checked"] == 0


def test_a_snapshot_past_the_end_of_its_stream_is_named(sqlite_history):
    env, _, _ = sqlite_history
    app = TwentyOneLedger(env=env)
    try:
        ann = app.register_player("Ann")["player_id"]
        for _ in range(51):
            app.deposit(ann, 10)
    finally:
        app.close()
    _delete(env, "originator_id=? AND originator_version>=?", UUID(ann).hex, 50)
    report = verified(env)
    assert any(
        f.check == "snapshot" and f.stream == ann and "stream ends at v49" in f.problem
        for f in report.faults
    ), report.text()


def test_a_used_card_shoe_no_round_ran_out_into_is_named(memory_env):
    from ledger.domain.shoe import Shoe

    app = TwentyOneLedger(env=memory_env)
    try:
        table = app.open_table("casino", {})["table_id"]
        shoe = Shoe._create(
            Shoe.Committed,
            table_id=UUID(table),
            nonce=1,
            packs=1,
            commitment="0" * 64,
            client_seed="c",
            algorithm=ALGORITHM,  # the one SHUFFLE.md names (verify holds shoes to it)
            fixed=False,
            clause="VU-29",
            actor="forger",
            stock=["AS", "KH"],
        )
        app.save(shoe)
        report = verify(app)
    finally:
        app.close()
    # The forged shoe is named twice: no table put it in use, and no round ran out into it.
    assert [(f.stream, f.check, f.problem) for f in report.faults] == [
        (
            str(shoe.id),
            "shuffle",
            f"table {table}'s Table.ShoeChanged for shoe {shoe.id} is missing: the shoe was "
            "committed for the table at position 2, and a shoe is put in use at its table in "
            "the same write",
        ),
        (str(shoe.id), "shuffle", "a shoe of used cards no round replaced its shoe with"),
    ]


def test_the_round_audit_checks_the_chains_of_the_wallets_it_shows_and_names_the_stream(
    sqlite_history,
):
    from replay.audit import audit_round

    env, history, _ = sqlite_history
    rid, _, _ = _a_round(env, history)
    app = TwentyOneLedger(env=env)
    try:
        honest = audit_round(app, rid)["chain"]
        player = audit_round(app, rid)["balances"][0]["player"]
    finally:
        app.close()
    kinds = {s["kind"] for s in honest["streams"]}
    assert honest["ok"] and kinds == {"round", "wallet", "table", "shoe"}  # its record of the round
    with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
        rows = db.execute(
            "SELECT originator_version, state FROM stored_events WHERE originator_id=?",
            (UUID(player).hex,),
        ).fetchall()
        version, state = next((v, s) for v, s in rows if rid.encode() in s)
        data = json.loads(state)
        data["amount"] += 1
        db.execute(
            "UPDATE stored_events SET state=? WHERE originator_id=? AND originator_version=?",
            (json.dumps(data).encode(), UUID(player).hex, version),
        )
    app = TwentyOneLedger(env=env)
    try:
        chain = audit_round(app, rid)["chain"]
    finally:
        app.close()
    assert not chain["ok"]
    assert chain["fault"].startswith(f"the wallet stream {player}: ")
    assert f"v{version} Player.FundsTransferred: content does not match" in chain["fault"]


def _forged_used_card_shoe(app: TwentyOneLedger, stock: list[str]):
    from ledger.domain.shoe import Shoe
    from ledger.shuffle import commitment, new_server_seed

    table = app.open_table("casino", {})["table_id"]
    seed = new_server_seed()
    shoe = Shoe._create(
        Shoe.Committed,
        table_id=UUID(table),
        nonce=1,
        packs=1,
        commitment=commitment(seed),
        client_seed="c",
        algorithm=ALGORITHM,  # the one SHUFFLE.md names (verify holds shoes to it)
        fixed=False,
        clause="VU-29",
        actor="forger",
        stock=stock,
    )
    shoe.reveal(seed, [], 0, "forged")
    app.save(shoe)
    return shoe


def test_a_revealed_shoe_of_used_cards_holding_a_card_no_pack_has_is_named(memory_env):
    app = TwentyOneLedger(env=memory_env)
    try:
        shoe = _forged_used_card_shoe(app, ["AS", "AS", "KH"])
        report = verify(app)
    finally:
        app.close()
    assert (str(shoe.id), "shuffle", "the used cards hold a card the table's packs do not") in [
        (f.stream, f.check, f.problem) for f in report.faults
    ], report.text()


def test_a_transfer_of_a_non_positive_or_non_integer_amount_is_named(memory_env):
    from ledger.domain.transfers import record_transfer

    app = TwentyOneLedger(env=memory_env)
    try:
        ann = app.register_player("Ann")["player_id"]
        app.deposit(ann, 500)
        player = app.get_player(ann)
        # Forged behind the books' checks, as a store edited by hand would hold them.
        record_transfer(player, player.account, "cashier", 0, "L-CASH-OUT", "forged")
        record_transfer(player, player.account, "cashier", True, "L-CASH-OUT", "forged")
        app.save(player)
        report = verify(app)
    finally:
        app.close()
    problems = [(f.check, f.problem) for f in report.faults if f.stream == ann]
    assert problems == [
        ("money", "a transfer of 0: amounts are positive integers"),
        # JSON tells true from 1: held to its type, its hash fitting, before the books see it.
        ("decode", "the event's fields are not those its type records (amount is bool, not int)"),
    ], report.text()
