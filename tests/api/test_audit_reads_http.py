"""Reads behind the HTTP audit and the feed: the audit reads each stored event it needs once
(the damage check is made while reading the round), and a feed page reads the log's head
once."""

from __future__ import annotations

from collections import Counter

import pytest
from test_rounds_http import casino_double_down


@pytest.mark.parametrize("who", ["auditor", "Ann"])
def test_the_http_audit_reads_each_stored_event_once(http, monkeypatch, who):
    t = casino_double_down(http)
    http.ledger.close_table(t.table_id)
    recorder = http.ledger.recorder
    whole, rows = recorder.select_events, []

    def select_events(*args, **kwargs):
        found = whole(*args, **kwargs)
        rows.extend((r.originator_id, r.originator_version) for r in found)
        return found

    monkeypatch.setattr(recorder, "select_events", select_events)
    report = http.get(f"/v1/rounds/{t.rid}/audit", key=http.keys[who])

    assert report["chain"]["ok"] and len(report["events"]) > 10
    assert {k: n for k, n in Counter(rows).items() if n > 1} == {}


def test_a_feed_page_reads_the_log_head_once(http, monkeypatch):
    t = casino_double_down(http)
    recorder = http.ledger.recorder
    whole, calls = recorder.max_notification_id, []
    monkeypatch.setattr(recorder, "max_notification_id", lambda: calls.append(1) or whole())

    page = http.get(f"/v1/tables/{t.table_id}/events?after=0&limit=5", key=http.keys["Ann"])

    assert len(page["items"]) == 5 and page["more"]
    assert len(calls) == 1
