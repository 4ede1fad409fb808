"""``copy=False`` reads (the simulator's): the cached aggregate itself, up to date, and the
same refusals as a copied read for an id that names no such aggregate."""

from __future__ import annotations

import pytest

from ledger.errors import UnknownTable


def casino_table(app, fund):
    table = app.open_table("casino", {"decks": 1, "insurance": False}, name="t")["table_id"]
    ann = fund("Ann")
    app.seat_player(table, ann, 1)
    return table, ann


def test_a_read_only_table_is_the_cached_object_and_moves_forward_with_commands(app, fund):
    table, _ann = casino_table(app, fund)
    held = app.get_table(table, copy=False)
    assert app.get_table(table, copy=False) is held  # nothing newer: not copied
    version = held.version
    app.start_round(table)
    fresh = app.get_table(table, copy=False)
    assert fresh.version > version and fresh.current_round is not None
    assert held.version == version and held.current_round is None  # never written in place
    assert app.get_table(table) is not fresh  # a plain read still gets its own copy


@pytest.mark.parametrize("bad", ["not-an-id", "00000000-0000-4000-8000-000000000000", "round"])
def test_a_read_only_table_refuses_what_a_copied_read_refuses(app, fund, bad):
    table, _ann = casino_table(app, fund)
    if bad == "round":
        bad = app.start_round(table)["round_id"]
    with pytest.raises(UnknownTable):
        app.get_table(bad, copy=False)
    with pytest.raises(UnknownTable):
        app.get_table(bad)
