"""``GET /v1/tables``: the tables as the history read model lists them, in the order they
opened; who may list them and what they see (no money), the ``status`` and ``family``
filters, paging by ``after`` and ``limit``, bad query parameters (422 naming the field, nothing
written), and read-your-writes with ``?position=``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from ledger_client import Http
from test_read_models import close, external_http, raw
from test_rounds_http import casino_double_down

from replay.projections.history_columns import TABLE_COLUMNS

UNKNOWN = "00000000-0000-0000-0000-000000000000"
ITEM = {"table_id", "name", "family", "opened_at", "closed_at", "status", "rounds"}
MONEY = {"staked", "punters_net", "banker_net", "house_net", "pool_balance", "returned"}


def open_tables(http: Http, *families: str) -> list[str]:
    """One table of each family given, in that order, named ``t1``, ``t2`` …"""
    return [
        http.post("/v1/tables", {"family": f, "name": f"t{i}"}, status=201)["table_id"]
        for i, f in enumerate(families, start=1)
    ]


def listed(http: Http, query: str = "", key: str | None = None) -> list[str]:
    """Every table id the list answers for ``query``, page by page (a page that repeats a
    table fails, rather than paging for ever)."""
    ids, after = [], ""
    while True:
        page = http.get(f"/v1/tables?{query}{after}", key=key)
        ids += [t["table_id"] for t in page["tables"]]
        assert len(ids) == len(set(ids)), f"a page repeats a table: {ids}"
        if page["next"] is None:
            return ids
        assert page["next"] == ids[-1]
        after = f"&after={page['next']}"


# --- who may list, and what an item says -------------------------------------------------------


@pytest.mark.parametrize("role", ["admin", "auditor", "dealer", "player"])
def test_every_role_lists_the_tables_without_their_money(http, role):
    """A lobby is for players too; the money figures stay with ``results`` (admin, auditor,
    dealer), so no role reads them here."""
    t = casino_double_down(http)  # a played round: money has moved at the table
    key = {"admin": None, "auditor": http.keys["auditor"], "dealer": http.keys["dealer"],
           "player": http.keys["Eve"]}[role]  # fmt: skip
    page = http.get("/v1/tables", key=key)
    [table] = page["tables"]
    assert set(table) == ITEM and not MONEY & set(table)
    assert table["table_id"] == t.table_id and table["name"] == "casino table"
    assert (table["family"], table["status"], table["closed_at"]) == ("casino", "open", None)
    assert table["rounds"] == 1
    assert table["opened_at"] and page["next"] is None
    assert page["projected_to"] == http.ledger.recorder.max_notification_id()
    results = http.get(f"/v1/tables/{t.table_id}/results")
    assert results["house_net"] == -700 and results["opened_at"] == table["opened_at"]


def test_a_key_is_needed(http):
    response = http.client.get("/v1/tables")
    assert response.status_code == 401 and response.headers["WWW-Authenticate"]


def test_a_closed_table_reads_closed_with_its_closing_time(http):
    [tid] = open_tables(http, "vingt-un")
    done = http.post(f"/v1/tables/{tid}/close", {})
    [table] = http.get(f"/v1/tables?position={done['position']}")["tables"]
    assert table["status"] == "closed" and table["closed_at"] > table["opened_at"]
    assert table["rounds"] == 0


# --- filters -----------------------------------------------------------------------------------


def test_status_and_family_filter_the_list(http):
    ids = open_tables(http, "casino", "ochko", "casino", "hoyle-1913")
    http.post(f"/v1/tables/{ids[0]}/close", {})
    http.post(f"/v1/tables/{ids[1]}/close", {})
    assert listed(http) == ids
    assert listed(http, "status=open") == ids[2:]
    assert listed(http, "status=closed") == ids[:2]
    assert listed(http, "family=casino") == [ids[0], ids[2]]
    assert listed(http, "family=casino&status=open") == [ids[2]]
    assert listed(http, "family=vingt-un") == []


# --- paging ------------------------------------------------------------------------------------


def test_pages_follow_the_opening_order_and_the_last_has_no_next(http):
    ids = open_tables(http, "casino", "ochko", "casino", "hoyle-1913", "vingt-un")
    first = http.get("/v1/tables?limit=2")
    assert [t["table_id"] for t in first["tables"]] == ids[:2] and first["next"] == ids[1]
    second = http.get(f"/v1/tables?limit=2&after={ids[1]}")
    assert [t["table_id"] for t in second["tables"]] == ids[2:4] and second["next"] == ids[3]
    last = http.get(f"/v1/tables?limit=2&after={ids[3]}")
    assert [t["table_id"] for t in last["tables"]] == ids[4:] and last["next"] is None
    assert listed(http, "limit=1") == ids


def test_a_full_last_page_has_no_next(http):
    """The list looks one table ahead: a page that ends the list says so, even when full."""
    ids = open_tables(http, "casino", "ochko", "casino", "ochko")
    page = http.get(f"/v1/tables?limit=2&after={ids[1]}")
    assert [t["table_id"] for t in page["tables"]] == ids[2:] and page["next"] is None
    assert http.get(f"/v1/tables?after={ids[3]}") == {
        "tables": [], "next": None, "projected_to": page["projected_to"],
    }  # fmt: skip


def test_after_may_name_a_table_the_filter_leaves_out(http):
    ids = open_tables(http, "casino", "ochko", "casino")
    page = http.get(f"/v1/tables?family=casino&after={ids[1]}")
    assert [t["table_id"] for t in page["tables"]] == [ids[2]]


def test_a_table_opened_between_pages_is_on_a_later_page(http):
    ids = open_tables(http, "casino", "ochko")
    first = http.get("/v1/tables?limit=2")
    assert first["next"] is None
    [later] = open_tables(http, "casino")
    page = http.get(f"/v1/tables?limit=2&after={ids[1]}")
    assert [t["table_id"] for t in page["tables"]] == [later]


def opened(rows: list[tuple[str, str]], http: Http) -> None:
    """Rows ``(table_id, opened_at)`` written straight into the view (no events name them)."""
    assert http.get("/v1/tables")["tables"] == []  # the first read creates the views
    columns = ("table_id",) + TABLE_COLUMNS
    marks = ", ".join("?" * len(columns))
    with http.app.extensions["projections"].views.transaction() as db:
        for table_id, when in rows:
            values = dict.fromkeys(TABLE_COLUMNS, 0) | {
                "name": "t", "family": "casino", "opened_at": when, "closed_at": "",
            }  # fmt: skip
            db.execute(
                f"INSERT INTO view_tables ({', '.join(columns)}) VALUES ({marks})",
                (table_id, *(values[c] for c in TABLE_COLUMNS)),
            )


def test_the_order_is_the_opening_time_then_the_id_on_every_store(store_env, build_app):
    """Times as the ledger writes them (ISO 8601, no fraction when it is zero), some equal:
    the pages hold them in time order, ties by id, and page across a tie without skipping or
    repeating (on PostgreSQL, whatever the database's collation)."""
    app = build_app(store_env)
    http = Http(app, app.test_client(), None, app.extensions["api_store"].create_key("admin")[0])
    start = datetime(2031, 5, 6, 7, 8, 9, tzinfo=UTC)
    times = [start, start + timedelta(microseconds=1), start + timedelta(microseconds=500_000),
             start + timedelta(seconds=1), start - timedelta(days=40)]  # fmt: skip
    rows = [(f"{n:08x}-0000-4000-8000-{t:012x}", when.isoformat())
            for t, when in enumerate(times) for n in (2, 1)]  # fmt: skip
    opened(rows, http)
    expected = [tid for tid, _ in sorted(rows, key=lambda r: (datetime.fromisoformat(r[1]), r[0]))]
    assert listed(http, "limit=1") == listed(http, "limit=3") == listed(http) == expected


# --- bad query parameters ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    ["status=opened", "status=", "family=blackjack", "family=Casino", "after=t1",
     "limit=0", "limit=1001", "limit=ten", "position=-1", "position=1.5"],
)  # fmt: skip
def test_a_bad_query_parameter_is_422_naming_it_and_writes_nothing(http, query):
    open_tables(http, "casino")
    before = http.stored()
    response = raw(http, f"/v1/tables?{query}")
    assert response.status_code == 422, response.get_json()
    problem = response.get_json()
    assert response.mimetype == "application/problem+json"
    assert problem["type"].endswith("/validation-error")
    name = query.split("=")[0]
    assert list(problem["errors"]) == [f"query.{name}"]
    assert http.stored() == before


def test_after_naming_no_table_is_an_unknown_cursor_and_says_what_to_pass(http):
    """Well formed (the document's schema admits any UUID), so not a validation error."""
    open_tables(http, "casino")
    before = http.stored()
    response = raw(http, f"/v1/tables?after={UNKNOWN}")
    assert response.status_code == 422 and response.mimetype == "application/problem+json"
    problem = response.get_json()
    assert problem["type"].endswith("/unknown-cursor") and problem["title"] == "Unknown cursor"
    assert problem["detail"] == f"after={UNKNOWN} names no table: pass a page's `next` as `after`"
    assert http.stored() == before


# --- read your writes --------------------------------------------------------------------------


def test_a_position_beyond_the_log_is_refused(http):
    open_tables(http, "casino")
    head = http.ledger.recorder.max_notification_id()
    problem = raw(http, f"/v1/tables?position={head + 1}").get_json()
    assert problem["status"] == 422 and problem["type"].endswith("/cursor-beyond-log")
    assert f"position={head + 1}" in problem["detail"]


def test_external_a_list_given_a_writes_position_waits_for_it(memory_env):
    http = external_http(memory_env, wait_ms=30)
    projections = http.app.extensions["projections"]
    try:
        [first] = open_tables(http, "casino")
        projections.catch_up()
        made = http.post("/v1/tables", {"family": "ochko", "name": "new"}, status=201)
        lagging = raw(http, f"/v1/tables?position={made['position']}")
        assert lagging.status_code == 503 and lagging.get_json()["wanted"] == made["position"]
        assert [t["table_id"] for t in http.get("/v1/tables")["tables"]] == [first]
        projections.catch_up()
        page = http.get(f"/v1/tables?position={made['position']}&status=open")
        assert [t["table_id"] for t in page["tables"]] == [first, made["table_id"]]
        assert page["projected_to"] >= made["position"]
    finally:
        close(http)
