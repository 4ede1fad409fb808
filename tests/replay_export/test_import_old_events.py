"""Import of an export whose events were recorded before a field was added to their class, and
import that fails part-way leaving the store empty, on memory, SQLite and PostgreSQL.

``fixtures/before_dealer_totals.jsonl`` is a store recorded by the code at 50a7567, before
``Round.HandSettled`` had ``dealer_totals`` (players D and A; one Vingt-un round in which the
dealer divides, VU-21), exported by the current code: its HandSettled has no such key, and its
hash does not cover one."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from uuid import UUID

import orjson
import pytest
from postgres_schemas import postgres_connect
from psycopg import sql

from ledger.application import TwentyOneLedger
from ledger.config import store_kind
from replay import importer
from replay.__main__ import main
from replay.event_schemas import data_fields, event_classes
from replay.export import export_lines
from replay.import_checks import ImportRefused
from replay.importer import domain_event, import_from, import_lines
from replay.verify import verify

FIXTURE = Path(__file__).parent / "fixtures" / "before_dealer_totals.jsonl"
BATCH = 10  # several batches before the settlement, at line 49 of 58


@pytest.fixture
def old_lines() -> list[bytes]:
    return FIXTURE.read_bytes().splitlines(keepends=True)


@pytest.fixture
def target(target_env):
    app = TwentyOneLedger(env=target_env)
    yield app
    app.close()


def _settlement(lines: list[bytes]) -> tuple[int, dict]:
    number, line = next((i, line) for i, line in enumerate(lines, 1) if b"HandSettled" in line)
    return number, orjson.loads(line)


def _edited(lines: list[bytes], number: int, edit) -> list[bytes]:
    obj = orjson.loads(lines[number - 1])
    edit(obj)
    line = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS) + b"\n"
    return [*lines[: number - 1], line, *lines[number:]]


def _assert_empty(app: TwentyOneLedger) -> None:
    assert not app.recorder.max_notification_id()


def test_a_settlement_recorded_before_dealer_totals_imports_as_it_was(
    old_lines, target, target_env
):
    number, settled = _settlement(old_lines)
    assert "dealer_totals" not in settled["data"]  # the fixture is what it says
    assert number > 2 * BATCH

    summary = import_lines(target, old_lines, batch=BATCH)

    assert summary["events"] == len(old_lines) == target.recorder.max_notification_id()
    assert b"".join(export_lines(target)) == b"".join(old_lines)
    stream = UUID(settled["stream"])
    stored = target.recorder.select_events(stream, gt=settled["version"] - 1)[0]
    assert b"dealer_totals" not in stored.state  # stored again as recorded, not with a null
    event = list(target.events.get(stream))[settled["version"] - 1]
    assert event.dealer_totals is None  # the class's default, as for the event never exported
    report = verify(target)
    assert report.ok, report.text()
    if store_kind(target_env) != "memory":  # the CLI opens the store anew
        assert main(["verify"], env=target_env) == 0


def test_a_missing_required_field_is_refused_before_anything_is_written(old_lines, target):
    number, _ = _settlement(old_lines)
    bad = _edited(old_lines, number, lambda o: o["data"].pop("dealer_total"))

    with pytest.raises(ImportRefused) as refused:
        import_lines(target, bad, batch=BATCH)

    assert (refused.value.line, refused.value.field) == (number, "data.dealer_total")
    assert str(refused.value).startswith(f"line {number}: field data.dealer_total: missing")
    _assert_empty(target)


@pytest.mark.parametrize("change", ["edited", "cut short"])
def test_a_line_changed_after_its_check_is_refused_and_nothing_is_written(
    old_lines, target, change
):
    """The write takes only lines the check passed: a file rewritten while it is imported is
    refused where the write finds it changed, after batches were already sent, and the store is
    left empty; the file as checked then imports whole."""
    number, _ = _settlement(old_lines)
    if change == "edited":
        changed = _edited(old_lines, number, lambda o: o["data"].update(amount=10**6))
    else:
        changed = old_lines[:number]
    reads = iter([old_lines, changed])

    with pytest.raises(ImportRefused, match="changed since it was checked") as refused:
        import_from(target, lambda: next(reads), batch=BATCH)

    assert refused.value.line == (number if change == "edited" else None)
    _assert_empty(target)
    import_lines(target, old_lines, batch=BATCH)  # positions kept on a retry, PostgreSQL too
    assert b"".join(export_lines(target)) == b"".join(old_lines)


def test_a_failure_while_writing_leaves_the_store_empty(old_lines, target, monkeypatch):
    """Whatever fails once writing has begun (here the mapper, at the 45th event the write
    rebuilds, after four batches were sent), nothing of the import is kept."""
    original = target.mapper.to_stored_event
    calls = {"n": 0}

    def failing(event):
        calls["n"] += 1
        if calls["n"] == len(old_lines) + 45:  # the check pass makes one per line first
            raise OSError("disk full")
        return original(event)

    monkeypatch.setattr(target.mapper, "to_stored_event", failing)
    with pytest.raises(OSError, match="disk full"):
        import_lines(target, old_lines, batch=BATCH)

    _assert_empty(target)


def test_every_optional_field_left_out_of_a_line_reads_as_its_class_default(old_lines):
    """Not only ``dealer_totals``: any field a class gives a default is left out of the event
    rebuilt from a line without it, as the mapper leaves it out of an event stored without it."""
    dropped = 0
    for line in old_lines:
        obj = orjson.loads(line)
        cls = event_classes()[obj["type"]]
        for name in data_fields(cls):
            if name in obj["data"] and hasattr(cls, name):
                lean = {**obj, "data": {k: v for k, v in obj["data"].items() if k != name}}
                event = domain_event(lean)
                assert name not in vars(event)
                assert getattr(event, name) == getattr(cls, name)
                dropped += 1
    assert dropped >= 3  # Shoe.Committed's stock, Round.DealerDivided's hand and new_hand …


def test_a_database_error_while_writing_is_one_line_and_writes_nothing(
    tmp_path, monkeypatch, capsys
):
    # A disk that fills during the write: the store's own error, in one line, and the one
    # transaction rolled back.
    import sqlite3

    from ledger.config import store_env
    from replay import import_store

    path = tmp_path / "copy.sqlite3"
    monkeypatch.setenv("LEDGER_STORE", "sqlite")
    monkeypatch.setenv("LEDGER_SQLITE_PATH", str(path))

    def full(self, stored):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(import_store._SQLite, "insert", full)

    assert main(["import", str(FIXTURE)]) == 1
    assert capsys.readouterr().err == f"replay import: SQLite {path}: database or disk is full\n"
    app = TwentyOneLedger(env=store_env("sqlite", sqlite_path=str(path), environ={}))
    try:
        _assert_empty(app)
    finally:
        app.close()


@pytest.mark.parametrize(
    "store_env", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
def test_a_database_error_while_writing_to_postgres_is_one_line_and_writes_nothing(
    target, target_env, monkeypatch, capsys
):
    """The PostgreSQL counterpart: the server itself refuses the third batch, as it says a
    full disk (SQLSTATE 53100, with the hint it gives), once the first two are inserted in the
    import's transaction; the command says so in one line naming the store, and the rollback
    leaves the store empty."""
    recorder = target.recorder  # opening the store made its tables
    schema, table = recorder.datastore.schema, recorder.events_table_name
    with postgres_connect() as conn:
        # Raised only when the rows of two batches are there to count: they were written.
        conn.execute(
            sql.SQL(
                """CREATE FUNCTION {schema}.fill_disk() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF (SELECT count(*) FROM {schema}.{table}) >= {written} THEN
                        RAISE EXCEPTION 'could not extend file "base/1/2": No space left on device'
                            USING ERRCODE = 'disk_full', HINT = 'Check free disk space.';
                    END IF;
                    RETURN NEW;
                END $$"""
            ).format(
                schema=sql.Identifier(schema),
                table=sql.Identifier(table),
                written=sql.Literal(2 * BATCH),
            )
        )
        conn.execute(
            sql.SQL(
                "CREATE TRIGGER fill_disk BEFORE INSERT ON {schema}.{table} "
                "FOR EACH ROW EXECUTE FUNCTION {schema}.fill_disk()"
            ).format(schema=sql.Identifier(schema), table=sql.Identifier(table))
        )
    # The command's batches made small enough that the fixture takes several.
    monkeypatch.setattr(importer, "import_file", partial(importer.import_file, batch=BATCH))
    monkeypatch.setenv("LEDGER_STORE", "postgres")
    for name in ("HOST", "PORT", "DBNAME", "USER", "PASSWORD", "SCHEMA"):
        monkeypatch.setenv(f"POSTGRES_{name}", target_env[f"POSTGRES_{name}"])
    store = (
        f"PostgreSQL {target_env['POSTGRES_USER']}@{target_env['POSTGRES_HOST']}:"
        f"{target_env['POSTGRES_PORT']}/{target_env['POSTGRES_DBNAME']} (schema {schema})"
    )

    assert main(["import", str(FIXTURE)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (  # one line: no traceback, nor the server's HINT and CONTEXT lines
        f'replay import: {store}: could not extend file "base/1/2": No space left on device '
        "(HINT: Check free disk space.)\n"
    )
    _assert_empty(target)
