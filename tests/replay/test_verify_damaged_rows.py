"""``replay verify`` on stores damaged where the ledger never writes (auditor review, findings
1, 3, 5, 6 and 10): a row that holds a NULL, text or no UUID, an event forged with a field its
type does not record or a time not in UTC, a card from a place outside its shoe, a shoe
committed after its first card. Each is a fault of the report, named with its event, and the
pass goes on; never a traceback, never memory in proportion to a forged number; ``export``
refuses a damaged event in one line, and what verify passes, ``export`` writes and ``import``
takes."""

from __future__ import annotations

import dataclasses
import json
import tracemalloc
from datetime import timedelta, timezone
from uuid import UUID

import pytest
from forgery import forge_stream
from postgres_schemas import postgres_connect
from psycopg import sql
from replay_history import play_fixed_casino
from store_checks import played, verified
from tampering import first_row, move_to_end, position_of, set_column, swap_positions

from ledger.application import TwentyOneLedger
from replay.__main__ import main
from replay.importer import import_lines

# -- rows the ledger never writes (findings 1 and 5) -----------------------------------------

ROWS = [
    # (column, value, stored as text as it is, what verify says of it)
    ("state", None, False, "its state is NULL, not the bytes the ledger writes"),
    ("state", "TEXT", False, "its state is text, not the bytes the ledger writes"),
    ("state", 7, False, "its state is int 7, not the bytes the ledger writes"),
    ("state", b'{"card":"\xff"}', True, "its state is text, not the bytes the ledger writes"),
    # SQLite turns a number into text in a column of text, and text that reads as a number
    # into one in a column of integers: what stays is bytes and text that is no number.
    ("topic", None, False, "its topic is NULL, not text"),
    ("topic", b"\x01", False, "its topic is 1 bytes, not text"),
    ("originator_version", None, False, "its version is NULL, not a whole number from 1 up"),
    ("originator_version", "seven", False, "its version is 'seven', not a whole number from 1 up"),
    ("originator_version", 0, False, "its version is int 0, not a whole number from 1 up"),
    ("originator_id", "not-a-uuid", False, "its stream id is 'not-a-uuid', not a UUID"),
    ("originator_id", None, False, "its stream id is NULL, not a UUID"),
    ("originator_id", b"\xff\xfe", True, "its stream id is '\\\\xff\\\\xfe', not a UUID"),
]


def _damaged_card(stored_round, column, value, as_text):
    """The round's first card with ``column`` overwritten; (env, row, count of events)."""
    env, path, _ = stored_round
    row = first_row(path, "Round.CardDealt")
    if value == "TEXT":  # the event's own JSON, as SQL's replace() leaves it: text
        value = row.state.decode()
    set_column(path, row.position, column, value, as_text=as_text)
    return env, row


@pytest.mark.parametrize(("column", "value", "as_text", "says"), ROWS)
def test_a_row_the_ledger_never_writes_is_a_fault_and_the_pass_goes_on(
    stored_round, capsys, column, value, as_text, says
):
    env, row = _damaged_card(stored_round, column, value, as_text)
    events = verified(env).events  # every row is read: the damaged one and all after it

    assert main(["--json", "verify"], env=env) == 1

    captured = capsys.readouterr()
    assert captured.err == ""
    report = json.loads(captured.out)
    first = report["first_fault"]
    assert (first["check"], first["position"]) == ("decode", row.position)
    assert first["problem"].startswith("the stored event cannot be decoded (")
    assert says in first["problem"]
    if column != "originator_id":
        assert first["stream"] == row.stream
    if column not in ("originator_version",):
        assert first["version"] == row.version
    if column != "topic":
        assert first["type"] == "Round.CardDealt"
    assert report["events"] == events and report["head_position"] >= row.position
    # The chain goes on past it: nothing after it is called a break of its stream, unless
    # the row left its stream (its stream id unread), which then goes on without it.
    chain = [
        (f["stream"], f["version"], f["problem"]) for f in report["faults"] if f["check"] == "chain"
    ]
    gone = [
        (
            row.stream,
            row.version + 1,
            f"version gap: expected v{row.version}, found v{row.version + 1}",
        )
    ]
    assert chain == (gone if column == "originator_id" else []), report["faults"]


def test_a_row_with_no_version_or_topic_is_named_as_far_as_it_can_be(stored_round, capsys):
    env, row = _damaged_card(stored_round, "originator_version", None, False)
    set_column(stored_round[1], row.position, "topic", None)

    assert main(["verify"], env=env) == 1

    first = capsys.readouterr().out.splitlines()[0]
    assert first == (
        f"verify (all streams): FAILED at event of stream {row.stream} (position "
        f"{row.position}): the stored event cannot be decoded (its version is NULL, not a "
        "whole number from 1 up)"
    )


def test_a_row_of_no_stream_is_reported_on_every_tables_report(stored_round):
    """A row whose stream id is unread may be any table's: ``--table`` reports it too."""
    env, _, rid = stored_round
    table = played(env, lambda app: str(app.get_round(rid).table_id))
    _, row = _damaged_card(stored_round, "originator_id", "not-a-uuid", False)

    faults = verified(env, table=table).faults

    assert (faults[0].position, faults[0].stream) == (row.position, "not-a-uuid")


@pytest.mark.parametrize(("column", "value", "as_text", "says"), ROWS)
def test_export_refuses_a_row_the_ledger_never_writes_in_one_line(
    stored_round, capsysbinary, column, value, as_text, says
):
    env, row = _damaged_card(stored_round, column, value, as_text)

    assert main(["export"], env=env) == 1

    err = capsysbinary.readouterr().err.decode()
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert f"(position {row.position}) cannot be decoded ({says}" in err


@pytest.mark.parametrize("store_env", ["postgres"], indirect=True)
@pytest.mark.parametrize(
    ("column", "says"), [("state", "its state is NULL"), ("topic", "its topic is NULL")]
)
def test_a_null_on_postgresql_is_a_fault_and_export_refuses_it(store_env, capsys, column, says):
    """PostgreSQL's events table lets topic and state be NULL: the library's own reader
    fails on the page that holds one (``bytes(None)``)."""
    app = TwentyOneLedger(env=store_env)
    try:
        rid = play_fixed_casino(app)
    finally:
        app.close()
    table = sql.Identifier(store_env["POSTGRES_SCHEMA"], "twentyoneledger_events")
    with postgres_connect() as conn:
        (position,) = conn.execute(
            sql.SQL(
                "UPDATE {} SET {} = NULL WHERE originator_id = %s AND originator_version = 7"
                " RETURNING notification_id"
            ).format(table, sql.Identifier(column)),
            (UUID(rid),),
        ).fetchone()

    assert main(["--json", "verify"], env=store_env) == 1
    first = json.loads(capsys.readouterr().out)["first_fault"]
    assert (first["check"], first["position"], first["stream"], first["version"]) == (
        "decode",
        position,
        rid,
        7,
    )
    assert says in first["problem"]
    assert main(["export"], env=store_env) == 1
    err = capsys.readouterr().err
    assert f"(position {position}) cannot be decoded ({says}" in err and "Traceback" not in err


def test_the_digest_stands_a_row_it_cannot_read_by_what_is_stored(stored_round):
    """The digest takes a row it cannot read by its stored state (text: its UTF-8): the
    same store, the same digest; the text changed, another."""
    env, row = _damaged_card(stored_round, "state", "TEXT", False)
    first, again = verified(env), verified(env)

    set_column(stored_round[1], row.position, "state", row.state.decode().replace("8H", "9H"))
    edited = verified(env)

    assert first.head_digest == again.head_digest != edited.head_digest
    assert first.head_position == edited.head_position


# -- forged events import would refuse (finding 6) -------------------------------------------


def _forge_first(env: dict, stream: str, type_name: str, change) -> int:
    """Forge the first event of ``type_name`` in ``stream`` with ``change(event)`` (the
    stream's hashes recomputed, as a forger would); its version."""
    found = []

    def forged(events: list) -> list:
        out = []
        for event in events:
            if not found and type(event).__qualname__ == type_name:
                found.append(event.originator_version)
                event = change(event)
            out.append(event)
        return out

    forge_stream(env, stream, forged)
    return found[0]


def _with_extra(event):
    vars(event)["extra"] = "x"
    return event


def _at(moment):
    return lambda event: dataclasses.replace(event, timestamp=moment(event.timestamp))


def _card_as(value):
    return lambda event: dataclasses.replace(event, shoe=value)


FORGED = [
    # (type, change, what verify says)
    ("Round.CardDealt", _with_extra, "extra is no field of Round.CardDealt"),
    (
        "Round.PhaseEntered",
        _at(lambda t: t.astimezone(timezone(timedelta(hours=1)))),
        "is not in UTC, as the ledger records it",
    ),
    (
        "Round.PhaseEntered",
        _at(lambda t: t.replace(tzinfo=None)),
        "has no time zone: the ledger records UTC",
    ),
    ("Round.CardDealt", _card_as("not-a-shoe"), "shoe is str, not UUID"),
    (
        "Round.Started",
        lambda e: dataclasses.replace(e, rules=["no", "dict"]),
        "rules is list, not dict[str, Any]",
    ),
]


@pytest.mark.parametrize(("type_name", "change", "says"), FORGED)
def test_a_forged_event_import_would_refuse_is_named_by_verify_and_refused_by_export(
    stored_round, capsys, type_name, change, says
):
    env, _, rid = stored_round
    version = _forge_first(env, rid, type_name, change)

    report = verified(env)

    first = report.faults[0]
    assert (first.check, first.stream, first.version, first.type) == (
        "decode",
        rid,
        version,
        type_name,
    ), report.text()
    assert first.problem.startswith("the event's fields are not those its type records (")
    assert first.problem.endswith(f"{says})"), first.problem
    assert main(["export"], env=env) == 1
    assert f"v{version} of stream {rid}" in capsys.readouterr().err


def test_what_verify_passes_export_writes_and_import_takes(stored_round, memory_env, capsysbinary):
    env, _, _ = stored_round
    assert verified(env).ok
    assert main(["export"], env=env) == 0
    lines = capsysbinary.readouterr().out.splitlines()

    app = TwentyOneLedger(env=memory_env)
    try:
        assert import_lines(app, lines)["events"] == len(lines)
    finally:
        app.close()


def test_an_event_under_a_topic_that_is_no_event_of_the_ledger_is_named(stored_round, capsys):
    env, path, rid = stored_round
    row = first_row(path, "Round.CardDealt")
    # A class the topic resolves to, but no event of the ledger: the export could not say
    # its type, nor import take it.
    set_column(path, row.position, "topic", "ledger.domain.round:Round.Event")

    report = verified(env)

    first = report.faults[0]
    assert (first.check, first.position) == ("decode", row.position), report.text()
    assert "names no event of the ledger" in first.problem
    assert main(["export"], env=env) == 1
    assert "'ledger.domain.round:Round.Event' names no event of the ledger" in (
        capsys.readouterr().err
    )


# -- a card's place outside its shoe; a shoe's algorithm (findings 3 and 6) -------------------


def _shoe_of(env: dict, rid: str) -> str:
    app = TwentyOneLedger(env=env)
    try:
        return str(app.get_round(rid).shoe_id)
    finally:
        app.close()


@pytest.mark.parametrize("place", [-1, 31, 10**6])
def test_a_card_from_a_place_outside_its_shoe_is_named_plainly(stored_round, place):
    env, _, rid = stored_round
    shoe = _shoe_of(env, rid)
    version = _forge_first(
        env, rid, "Round.CardDealt", lambda e: dataclasses.replace(e, shoe_index=place)
    )

    report = verified(env)

    first = report.faults[0]
    assert (first.check, first.stream, first.version) == ("shuffle", rid, version)
    # The fixed shoe of the round holds 31 cards (its table's Table.ShoeChanged).
    assert first.problem == f"shoe {shoe} place {place} is outside the shoe of 31 cards (card 8H)"


def test_a_forged_far_place_costs_no_memory_in_proportion_to_it(stored_round):
    env, _, rid = stored_round
    _forge_first(env, rid, "Round.CardDealt", lambda e: dataclasses.replace(e, shoe_index=10**6))

    tracemalloc.start()
    try:
        report = verified(env)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert not report.ok
    # A set of a million places would take some 60 MB; the store itself is read in pages.
    assert peak < 20_000_000, peak


def test_a_shoe_naming_another_algorithm_is_named_at_its_commitment(stored_round):
    env, _, rid = stored_round
    shoe = _shoe_of(env, rid)
    _forge_first(env, shoe, "Shoe.Committed", lambda e: dataclasses.replace(e, algorithm="rot13"))

    report = verified(env)

    assert [(f.check, f.stream, f.type, f.problem) for f in report.faults] == [
        (
            "shuffle",
            shoe,
            "Shoe.Committed",
            "the commitment names the algorithm 'rot13', not 'fixed-order-test-only', the one "
            "SHUFFLE.md gives a fixed test shoe",
        )
    ]


def test_a_shoe_of_more_packs_than_any_table_deals_is_named_and_not_rebuilt(stored_round):
    env, _, rid = stored_round
    shoe = _shoe_of(env, rid)
    _forge_first(env, shoe, "Shoe.Committed", lambda e: dataclasses.replace(e, packs=10**6))

    faults = verified(env).faults

    assert (
        "shuffle",
        shoe,
        "the commitment says the shoe holds 1000000 packs; a table deals from 1 to 8",
    ) in [(f.check, f.stream, f.problem) for f in faults]


# -- a stream's events out of order in the log (finding 10) -----------------------------------


def test_a_commitment_moved_after_the_deal_is_named_as_such_not_as_a_gap(stored_round):
    """The shoe's cut and reveal, read before its commitment, still count: the shoe is
    neither uncut nor unrevealed (its table closed, so it was revealed)."""
    env, path, rid = stored_round
    shoe = _shoe_of(env, rid)
    played(env, lambda app: app.close_table(str(app.get_round(rid).table_id)))
    assert verified(env).shoes_checked == 1
    cut = position_of(path, shoe, 2)
    first_card = first_row(path, "Round.CardDealt", rid)
    moved = move_to_end(path, shoe, 1)

    report = verified(env)

    assert [(f.check, f.position, f.stream, f.problem) for f in report.faults] == [
        (
            "chain",
            cut,
            shoe,
            f"v1 of this stream appears later in the log, at position {moved}: the stream's "
            "events are out of order",
        ),
        (
            "shuffle",
            moved,
            shoe,
            f"the commitment was recorded after shoe {shoe}'s first card (Round.CardDealt "
            f"v{first_card.version} of stream {rid}, position {first_card.position}): the "
            "shuffle was not fixed before the deal",
        ),
    ], report.text()


def test_two_events_of_a_stream_swapped_in_the_log_are_out_of_order_not_missing(stored_round):
    env, path, rid = stored_round
    fifth, sixth = position_of(path, rid, 5), position_of(path, rid, 6)
    swap_positions(path, fifth, sixth)

    chain = [f for f in verified(env).faults if f.check == "chain"]

    assert [(f.position, f.version, f.problem) for f in chain] == [
        (
            fifth,
            6,
            f"v5 of this stream appears later in the log, at position {sixth}: the stream's "
            "events are out of order",
        )
    ]


def test_an_event_moved_late_with_another_hash_is_named_at_its_link(stored_round):
    """Out of order and altered: the late event is still held to its neighbours' hashes."""
    env, path, rid = stored_round
    row = first_row(path, "Round.CardDealt", rid)
    fields = json.loads(row.state)
    fields["prev_hash"] = "0" * 64
    set_column(path, row.position, "state", json.dumps(fields).encode())
    moved = move_to_end(path, rid, row.version)

    chain = [(f.position, f.problem) for f in verified(env).faults if f.check == "chain"]

    assert (moved, "prev_hash does not match the preceding event's hash") in chain
    assert not any("version gap" in problem for _, problem in chain)


def test_a_version_never_read_is_still_a_gap(stored_round):
    env, path, rid = stored_round
    sixth = position_of(path, rid, 6)
    move_to_end(path, rid, 5)
    with_gap = verified(env)
    set_column(path, position_of(path, rid, 5), "originator_id", UUID(int=7).hex)

    faults = [(f.position, f.problem) for f in verified(env).faults if f.check == "chain"]

    assert any("out of order" in f.problem for f in with_gap.faults)
    assert (sixth, "version gap: expected v5, found v6") in faults


def test_a_time_at_another_offset_is_named_once_not_as_a_time_gone_back(stored_round):
    """Five hours behind UTC, the same moment reads as earlier than the stream's previous
    event: only its shape is named, as times are weighed as moments."""
    env, _, rid = stored_round
    _forge_first(
        env,
        rid,
        "Round.PhaseEntered",
        _at(lambda t: t.astimezone(timezone(timedelta(hours=-5)))),
    )

    faults = verified(env).faults

    assert [f.check for f in faults] == ["decode"]
