"""Responses written by orjson (api/json_provider.py) read exactly as Flask's own would: the
same values, the keys in the same (sorted) order, Flask's forms for times, Decimals and UUIDs;
and a value orjson cannot write still gets written."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from uuid import UUID

from flask import Flask

from api.json_provider import OrjsonProvider


@dataclass
class Point:
    x: int
    label: str


VALUE = {
    "zeta": [1, -2, True, None, 'Очко ♠ "quoted" \\ \n\t\u0001'],
    "alpha": {"b": 2, "a": {"z": 1, "y": [{"d": 4, "c": 3}]}},
    "when": datetime(2026, 11, 22, 20, 0, tzinfo=UTC),
    "day": date(2026, 11, 22),
    "money": Decimal("12.50"),
    "id": UUID("12345678-1234-5678-1234-567812345678"),
    "point": Point(1, "p"),
    "numbers": {7: "seven", 3: "three"},
}


def bodies(value):
    ours, flasks = Flask("ours"), Flask("flasks")
    ours.json = OrjsonProvider(ours)
    with ours.app_context():
        mine = ours.json.response(value)
    with flasks.app_context():
        theirs = flasks.json.response(value)
    return mine, theirs


def test_a_response_reads_exactly_as_flasks_own():
    mine, theirs = bodies(VALUE)
    assert mine.mimetype == theirs.mimetype == "application/json"
    assert mine.get_data().endswith(b"\n")
    ours, flasks = json.loads(mine.get_data()), json.loads(theirs.get_data())
    assert ours == flasks
    assert list(ours) == list(flasks) == sorted(flasks)  # keys sorted, as Flask sorts them
    assert list(ours["alpha"]["a"]["y"][0]) == ["c", "d"]
    assert ours["when"] == "Sun, 22 Nov 2026 20:00:00 GMT" and ours["money"] == "12.50"


def test_a_value_orjson_cannot_write_is_written_by_flasks_encoder():
    huge = {"amount": 10**30}
    mine, theirs = bodies(huge)
    assert json.loads(mine.get_data()) == json.loads(theirs.get_data()) == huge
