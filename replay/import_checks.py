"""What ``python -m replay import`` holds each line of an export to before anything is
written (the first of its two passes, ``replay.importer``): valid JSON, valid against its
type's JSON Schema, a time in UTC as the ledger writes it, its hash recomputed from its
content (``parse_line``), and its place in its stream's chain (the next version, the previous
line's hash) and in the log (a position after the line before it: ``check_order``).
:class:`ImportRefused` is every refusal of an import, these checks' and the importer's, naming
the line and the field at fault.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from typing import Any

import orjson
from jsonschema import Draft202012Validator

from ledger.domain.chain import GENESIS, hash_matches
from replay.event_schemas import event_classes, schema_for


class ImportRefused(Exception):
    """An export the store will not take; names the line (1-based) and field at fault."""

    def __init__(self, message: str, line: int | None = None, field: str | None = None):
        self.line, self.field, self.reason = line, field, message
        where = "" if line is None else f"line {line}: "
        where += "" if field is None else f"field {field}: "
        super().__init__(where + message)

    def as_dict(self) -> dict[str, Any]:
        return {"error": self.reason, "line": self.line, "field": self.field}


@cache
def validator(type_name: str) -> Draft202012Validator:
    return Draft202012Validator(schema_for(type_name))


def _field_of(error: Any) -> str:
    path = [str(p) for p in error.absolute_path]
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        path.append(missing[0] if missing else "?")
    return ".".join(path) or "(line)"


def parse_line(raw: bytes | str, number: int) -> dict[str, Any]:
    """One line decoded and checked against its type's schema and its own hash."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise ImportRefused(f"not JSON ({error})", number) from None
    if not isinstance(obj, dict):
        raise ImportRefused("not a JSON object", number)
    type_name = obj.get("type")
    if type_name not in event_classes():
        raise ImportRefused(f"unknown event type {type_name!r}", number, "type")
    errors = sorted(validator(type_name).iter_errors(obj), key=lambda e: list(e.absolute_path))
    if errors:
        error = errors[0]
        field = _field_of(error)
        message = "missing" if error.validator == "required" else error.message
        raise ImportRefused(f"{message} (schema {type_name})", number, field)
    when = datetime.fromisoformat(obj["time"])
    if when.isoformat() != obj["time"] or when.utcoffset() != UTC.utcoffset(None):
        raise ImportRefused("not a UTC time as the ledger writes it", number, "time")
    content = {
        **obj["data"],
        "originator_id": obj["stream"],
        "originator_version": obj["version"],
        "timestamp": obj["time"],
        "prev_hash": obj["prev_hash"],
    }
    if not hash_matches(type_name, {**content, "hash": obj["hash"]}):
        raise ImportRefused("the content does not match its hash", number, "hash")
    return obj


def check_order(
    obj: dict[str, Any], number: int, chains: dict[str, tuple[int, str]], last_position: int
) -> None:
    """The line continues its stream's chain and the global order."""
    if obj["position"] <= last_position:
        raise ImportRefused(
            f"position {obj['position']} does not follow {last_position}", number, "position"
        )
    expected_version, expected_prev = 1, GENESIS
    if obj["stream"] in chains:
        version, digest = chains[obj["stream"]]
        expected_version, expected_prev = version + 1, digest
    if obj["version"] != expected_version:
        hint = " (a table export holds parts of wallet streams: import a full export)"
        raise ImportRefused(
            f"stream {obj['stream']} expects version {expected_version}, got {obj['version']}"
            + (hint if expected_version == 1 else ""),
            number,
            "version",
        )
    if obj["prev_hash"] != expected_prev:
        raise ImportRefused(
            f"prev_hash is not the hash of stream {obj['stream']}'s previous event",
            number,
            "prev_hash",
        )
    chains[obj["stream"]] = (obj["version"], obj["hash"])
