"""The audit page's words where the auditor review found them wrong or missing: a split hand's
heading and totals, a revealed seed that does not match its commitment, the money verdict at a
glance, and who caused a shoe's reveal. The rounds are played through the API, as in
test_audit_page.py."""

from __future__ import annotations

import re

import pytest
from test_audit_page import audit, page, section
from test_rounds_http import Http, Table, open_table


@pytest.fixture
def http(app, client, make_key, admin_key):
    return Http(app, client, make_key, admin_key)


def casino_round_with_a_split(http: Http) -> Table:
    """Ann splits eights (h1 into h1 and h3), doubles h1, stands on h3; Bob stands."""
    t = open_table(http, "casino", {"insurance": False})
    t.start(["8H", "TS", "TD", "8C", "9S", "7D", "3H", "TC", "2D", "5S", "4S"])
    http.act(t.rid, "Ann", action="stake", amount=500)
    http.act(t.rid, "Bob", action="stake", amount=500)
    http.act(t.rid, "Ann", action="split", hand="h1")
    http.act(t.rid, "Ann", action="double_down", hand="h1")
    http.act(t.rid, "Ann", action="hit", hand="h3")
    http.act(t.rid, "Ann", action="stand", hand="h3")
    http.act(t.rid, "Bob", action="stand", hand="h2")
    return t


def _heading(html: str, hand: str) -> str:
    part = section(html, f"hand-{hand}")
    return re.sub(r"\s+", " ", part[part.index("<h3>") : part.index("</h3>")])


# -- a split ---------------------------------------------------------------------------------


def test_the_original_hand_of_a_split_says_which_hand_it_was_split_into(http):
    t = casino_round_with_a_split(http)
    html = page(t)

    original, new = _heading(html, "h1"), _heading(html, "h3")
    assert "split from" not in original  # never "hand 1 · split from hand 1"
    assert "split into hand 3" in original
    assert "split from hand 1" in new and "split into" not in new
    # The row of the split in the original hand's totals names the hand it opened.
    assert "Hand 1 was split; hand 3 was opened" in section(html, "hand-h1")


def test_the_json_names_the_hands_a_split_opened(http):
    t = casino_round_with_a_split(http)
    hands = {h["id"]: h for h in audit(t)["hands"]}
    assert hands["h1"]["split_into"] == ["h3"] and hands["h3"]["split_into"] == []
    # As the round records it: each hand of a split names the original, which names itself.
    assert hands["h1"]["split_from"] == "h1" and hands["h3"]["split_from"] == "h1"
    split = next(e for e in hands["h1"]["totals"] if e["event"] == "HandSplit")
    assert split["new_hand"] == "h3"
