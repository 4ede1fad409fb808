"""The export's format and schemas: byte-stable lines, hashes any tool can recompute, one
committed JSON Schema per event type (stale → fail), what a table export holds, and import
refusing a bad line by its number and field."""

from __future__ import annotations

import json
from uuid import UUID

import orjson
import pytest
from export_scenario import build_history
from jsonschema import Draft202012Validator

from ledger.application import TwentyOneLedger
from ledger.domain.chain import GENESIS, event_hash
from replay import event_schemas
from replay.export import export_lines
from replay.import_checks import ImportRefused
from replay.importer import import_lines

ENVELOPE = {
    "stream",
    "version",
    "position",
    "type",
    "topic",
    "schema_version",
    "time",
    "prev_hash",
    "hash",
    "data",
}


@pytest.fixture(scope="module")
def history():
    from ledger.config import store_env

    app = TwentyOneLedger(
        env={**store_env("memory", environ={}), "LEDGER_ALLOW_FIXED_SHOES": "true"}
    )
    tables = build_history(app)
    return app, tables, list(export_lines(app))


def test_the_committed_schemas_are_up_to_date():
    wanted = event_schemas.expected_files()
    directory = event_schemas.SCHEMA_DIR
    present = {p.name: p.read_text(encoding="utf-8") for p in directory.glob("*.json")}
    stale = sorted(n for n in wanted.keys() | present.keys() if wanted.get(n) != present.get(n))

    assert stale == [], (
        f"schemas/events/ is stale ({', '.join(stale)}): regenerate with "
        "`.venv/bin/python -m replay.event_schemas` and commit the result"
    )


def test_every_event_class_has_a_schema():
    assert len(event_schemas.event_classes()) >= 40
    for name in event_schemas.event_classes():
        assert (event_schemas.SCHEMA_DIR / f"{name}.json").is_file(), name


def test_every_exported_line_is_valid_against_its_committed_schema(history):
    _, _, lines = history
    seen = set()
    for line in lines:
        obj = orjson.loads(line)
        schema = json.loads((event_schemas.SCHEMA_DIR / f"{obj['type']}.json").read_text())
        Draft202012Validator.check_schema(schema)
        Draft202012Validator(schema).validate(obj)
        seen.add(obj["type"])
    for wanted in (
        "Round.CardDealt",
        "Round.HandSplit",
        "Shoe.Revealed",
        "Table.CutForDeal",
        "Table.DealSold",
        "Table.DealOffered",
        "Table.DealOfferWithdrawn",
        "Player.FundsTransferred",
        "CommandRecord.Recorded",
    ):
        assert wanted in seen


def test_lines_are_canonical_and_their_hashes_recomputable(history):
    _, _, lines = history
    last: dict[str, str] = {}
    for line in lines:
        obj = json.loads(line)
        assert set(obj) == ENVELOPE
        assert (
            line
            == json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
            + b"\n"
        )
        assert obj["time"].endswith("+00:00") and obj["schema_version"] == 1
        content = {
            **obj["data"],
            "originator_id": obj["stream"],
            "originator_version": obj["version"],
            "timestamp": obj["time"],
            "prev_hash": obj["prev_hash"],
        }
        assert event_hash(obj["type"], content) == obj["hash"]
        assert obj["prev_hash"] == last.get(obj["stream"], GENESIS)
        last[obj["stream"]] = obj["hash"]


def test_the_issue_s_field_names_are_in_data(history):
    _, _, lines = history
    for obj in map(orjson.loads, lines):
        data = obj["data"]
        if obj["type"].endswith("FundsTransferred"):
            assert {"from_account", "to_account", "amount", "clause"} <= data.keys()
        if obj["type"] in ("Round.CardDealt", "Round.CardBurned", "Table.CutForDeal"):
            assert {"card", "shoe", "shoe_index"} <= data.keys()
        if obj["type"] == "Shoe.Committed":
            assert {"commitment", "client_seed", "nonce", "packs", "algorithm"} <= data.keys()
        if obj["type"] == "Shoe.Cut":
            assert isinstance(data["cut"], int)
        if obj["type"] == "Shoe.Revealed":
            assert "server_seed" in data


def test_a_table_export_holds_its_streams_and_its_money_only(history):
    app, tables, lines = history
    table = tables["vingt-un"][0]
    part = [orjson.loads(line) for line in export_lines(app, table)]
    everything = [orjson.loads(line) for line in lines]
    rounds = {
        o["stream"]
        for o in everything
        if o["type"] == "Round.Started" and o["data"]["table_id"] == table
    }
    shoes = {
        o["stream"]
        for o in everything
        if o["type"] == "Shoe.Committed" and o["data"]["table_id"] == table
    }
    own = {table} | rounds | shoes
    accounts = {f"pool:{table}", f"house:{table}", f"deal-sale:{table}"}

    def belongs(o):
        if o["stream"] in own:
            return True
        d = o["data"]
        return o["type"] == "Player.FundsTransferred" and (
            d["round_id"] in rounds or d["from_account"] in accounts or d["to_account"] in accounts
        )

    assert part == [o for o in everything if belongs(o)]
    assert [o["position"] for o in part] == sorted(o["position"] for o in part)
    assert len(rounds) == 3 and shoes
    assert any(o["type"] == "Table.DealSold" for o in part)
    assert not any(o["type"].startswith("CommandRecord") for o in part)


def test_no_secret_of_an_unrevealed_shoe_is_exported(history):
    app, _, lines = history
    blob = b"".join(lines)
    checked = 0
    for obj in map(orjson.loads, lines):
        if obj["type"] != "Shoe.Committed":
            continue
        shoe = UUID(obj["stream"])
        if not app.get_shoe(shoe).revealed and not obj["data"]["fixed"]:
            seed = app.vault.open(shoe).server_seed
            assert len(seed) >= 32 and seed.encode() not in blob
            checked += 1
    assert checked >= 3  # the random shoes still in use (the closed table revealed its own)


def test_import_refuses_a_table_export(history):
    app, tables, _ = history
    part = list(export_lines(app, tables["casino"][0]))
    with pytest.raises(ImportRefused, match="expects version 1") as refused:
        import_lines(TwentyOneLedger(env=app.env), part)
    assert refused.value.field == "version"


def _edited(lines, type_name, edit):
    out, number = list(lines), None
    for i, line in enumerate(out):
        obj = orjson.loads(line)
        if obj["type"] == type_name:
            edit(obj)
            out[i] = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS) + b"\n"
            number = i + 1
            break
    return out, number


@pytest.mark.parametrize(
    ("type_name", "edit", "field", "message"),
    [
        ("Player.FundsTransferred", lambda o: o["data"].pop("amount"), "data.amount", "missing"),
        (
            "Player.FundsTransferred",
            lambda o: o["data"].update(amount="ten"),
            "data.amount",
            "not of type 'integer'",
        ),
        (
            "Round.CardDealt",
            lambda o: o["data"].update(shoe="not-a-uuid"),
            "data.shoe",
            "does not match",
        ),
        ("Round.CardDealt", lambda o: o.pop("prev_hash"), "prev_hash", "missing"),
        ("Round.CardDealt", lambda o: o["data"].update(extra=1), "data", "extra"),
        ("Round.CardDealt", lambda o: o["data"].update(card="AS"), "hash", "does not match"),
        ("Shoe.Cut", lambda o: o.update(time="2020-01-01T00:00:00Z"), "time", "does not match"),
        ("Table.Opened", lambda o: o.update(type="Table.Gone"), "type", "unknown"),
    ],
)
def test_import_refuses_an_invalid_line_naming_line_and_field(
    history, memory_env, type_name, edit, field, message
):
    _, _, lines = history
    bad, number = _edited(lines, type_name, edit)
    target = TwentyOneLedger(env=memory_env)

    with pytest.raises(ImportRefused) as refused:
        import_lines(target, bad)

    assert (refused.value.line, refused.value.field) == (number, field)
    assert message in str(refused.value) and f"line {number}" in str(refused.value)
    assert not target.recorder.max_notification_id()  # nothing written


def test_import_refuses_a_broken_chain(history, memory_env):
    _, _, lines = history
    idx = next(i for i, line in enumerate(lines) if b'"Round.HandOpened"' in line)
    with pytest.raises(ImportRefused) as refused:
        import_lines(TwentyOneLedger(env=memory_env), lines[:idx] + lines[idx + 1 :])
    assert refused.value.line == idx + 1 and refused.value.field == "version"
