"""``replay verify`` and the round's audit on what only the log's order and the shoes' places
show (SHUFFLE.md): a commitment or cut recorded after the shoe's first card, a retired shoe
never revealed, a card's event removed and its stream renumbered and re-hashed. Each store is
a SQLite file edited as a forger with write access to it would (the audit review's cases)."""

from __future__ import annotations

import dataclasses
import re
import sqlite3
from uuid import UUID

import pytest
from forgery import forge_stream
from replay_history import FIXED_ROUND, casino_table, play_fixed_round
from store_checks import audited, verified
from tampering import delete_rows

from ledger.application import TwentyOneLedger
from replay.__main__ import main
from replay.verify import verify

# The fixed round's cards, then two spares: 10 of the 13 dealt, so the next round needs a new
# shoe (past 75 % dealt).
FIXED = FIXED_ROUND + ["2C", "2C"]


@pytest.fixture
def store(sqlite_file):
    """Two casino tables, each with a fixed round. The first table then plays a round on a
    new, random shoe (burns included), which retires the fixed one, and stays open; the
    second is closed. Every retired shoe is revealed, and verify passes."""
    env, path = sqlite_file
    app = TwentyOneLedger(env=env)
    try:
        open_table, ann, bob = casino_table(app)
        replaced = play_fixed_round(app, open_table, ann, bob, FIXED)
        later = app.play_round(
            open_table, {ann: 200, bob: 200}, lambda rnd, turn: {"action": "stand", "hand": turn}
        )["round_id"]
        closed_table, cid, dee = casino_table(app)
        closing = play_fixed_round(app, closed_table, cid, dee, FIXED)
        app.close_table(closed_table)
        report = verify(app)
        ids = {
            "open_table": open_table,
            "replaced_round": replaced,
            "replaced_shoe": str(app.get_round(replaced).start_shoe),
            "later_round": later,
            "in_use_shoe": str(app.get_round(later).start_shoe),
            "closed_table": closed_table,
            "closing_round": closing,
            "closed_shoe": str(app.get_round(closing).start_shoe),
        }
    finally:
        app.close()
    assert report.ok, report.text()
    assert [s["shoe"] for s in report.unrevealed] == [ids["in_use_shoe"]]
    return env, path, ids


def _rows(path, stream: str) -> list[tuple[int, int, str]]:
    """The stream's stored events: (position, version, topic), in version order."""
    with sqlite3.connect(path) as db:
        return db.execute(
            "SELECT rowid, originator_version, topic FROM stored_events"
            " WHERE originator_id = ? ORDER BY originator_version",
            (UUID(stream).hex,),
        ).fetchall()


def _first_card(path, rid: str) -> int:
    return next(p for p, _, topic in _rows(path, rid) if topic.endswith(("Dealt", "Burned")))


def _move_after(path, positions: list[int], after: int) -> dict[int, int]:
    """Move the events at ``positions`` (ascending, all before ``after``) to just after the
    event at ``after``, keeping the log's positions contiguous: every event in between moves
    up. Each stream keeps its versions and hashes. Returns where each moved event went."""
    with sqlite3.connect(path) as db:
        for n, position in enumerate(positions, start=1):
            db.execute("UPDATE stored_events SET rowid = ? WHERE rowid = ?", (-n, position))
        between = [
            p
            for (p,) in db.execute(
                "SELECT rowid FROM stored_events WHERE rowid > ? AND rowid <= ? ORDER BY rowid",
                (positions[0], after),
            )
        ]
        free = positions[0]
        for p in between:
            db.execute("UPDATE stored_events SET rowid = ? WHERE rowid = ?", (free, p))
            free += 1
        moved = {}
        for n, position in enumerate(positions, start=1):
            db.execute("UPDATE stored_events SET rowid = ? WHERE rowid = ?", (free, -n))
            moved[position] = free
            free += 1
    return moved


def _cards(events: list) -> list[int]:
    """The places in ``events`` of the cards dealt."""
    return [i for i, e in enumerate(events) if type(e).__name__ == "CardDealt"]


def _shuffle_faults(report) -> list[tuple[str, str, str]]:
    return [(f.type, f.stream, f.problem) for f in report.faults if f.check == "shuffle"]


# -- the commitment and the cut come before the first card ---------------------------------


def test_a_commitment_and_cut_moved_after_the_shoes_first_card_fail_verify(store, capsys):
    env, path, ids = store
    shoe, rid = ids["replaced_shoe"], ids["replaced_round"]
    (committed, _, _), (cut, _, _), *_ = _rows(path, shoe)
    first = _first_card(path, rid)
    moved = _move_after(path, [committed, cut], first)
    first -= 2  # the events between moved up

    report = verified(env)

    assert not report.ok
    faults = _shuffle_faults(report)
    assert [(t, s) for t, s, _ in faults] == [("Shoe.Committed", shoe), ("Shoe.Cut", shoe)]
    assert f"shoe {shoe}'s first card (Round.CardDealt v" in faults[0][2]
    assert f"of stream {rid}, position {first})" in faults[0][2]
    assert faults[0][2].endswith("the shuffle was not fixed before the deal")
    assert faults[1][2].startswith("the cut was recorded after")
    assert (report.first.position, report.first.check) == (moved[committed], "shuffle")
    assert not verified(env, table=ids["open_table"]).ok
    assert verified(env, table=ids["closed_table"]).ok

    assert main(["verify"], env=env) == 1
    assert main(["round", rid], env=env) == 1
    out = capsys.readouterr().out
    assert (
        f"fixed before the deal: FAULT: the commitment (position {moved[committed]}) and the" in out
    )


def test_a_cut_moved_after_the_shoes_first_card_fails_verify_and_the_audit(store, capsys):
    env, path, ids = store
    shoe, rid = ids["replaced_shoe"], ids["replaced_round"]
    (committed, _, _), (cut, _, _), *_ = _rows(path, shoe)
    first = _first_card(path, rid)
    moved = _move_after(path, [cut], first)

    report = verified(env)

    faults = _shuffle_faults(report)
    assert [(t, s) for t, s, _ in faults] == [("Shoe.Cut", shoe)]
    assert faults[0][2].startswith(f"the cut was recorded after shoe {shoe}'s first card")
    assert faults[0][2].endswith("the dealing order was not fixed before the deal")

    verdict = audited(env, rid)["shoe"]["committed_before_deal"]
    assert verdict["ok"] is False
    assert (verdict["commitment_position"], verdict["cut_position"]) == (committed, moved[cut])
    assert verdict["first_card"]["position"] == first - 1
    assert verdict["fact"].startswith(f"the cut (position {moved[cut]}) was recorded after")
    assert f"though the commitment (position {committed}) came before it" in verdict["fact"]
    assert audited(env, rid)["committed_before_deal"]["ok"] is False

    assert main(["round", rid], env=env) == 1
    assert "FAULT: the cut (position" in capsys.readouterr().out


def test_the_audit_and_round_say_the_commitment_and_cut_came_first_in_an_honest_log(store):
    env, path, ids = store
    (committed, _, _), (cut, _, _), *_ = _rows(path, ids["replaced_shoe"])
    verdict = audited(env, ids["replaced_round"])["shoe"]["committed_before_deal"]
    assert verdict["ok"] is True
    assert (verdict["commitment_position"], verdict["cut_position"]) == (committed, cut)
    assert verdict["fact"].startswith(
        f"the commitment (position {committed}) and the cut (position {cut}) were recorded "
        "before the round's first card"
    )
    assert main(["round", ids["replaced_round"]], env=env) == 0


# -- a retired shoe is revealed -------------------------------------------------------------


def _delete_the_reveal(path, shoe: str) -> None:
    *_, (revealed, _, topic) = _rows(path, shoe)
    assert topic.endswith("Shoe.Revealed")
    delete_rows(path, "rowid = ?", revealed)


def test_a_closed_tables_shoe_without_its_reveal_is_named_at_the_closing(store):
    env, path, ids = store
    shoe, table = ids["closed_shoe"], ids["closed_table"]
    closed = next(p for p, _, t in _rows(path, table) if t.endswith("Table.Closed"))
    _delete_the_reveal(path, shoe)

    report = verified(env)

    assert _shuffle_faults(report) == [
        (
            "Table.Closed",
            table,
            f"the table closed, but its shoe {shoe} was never revealed (no Shoe.Revealed): "
            "its cards cannot be checked",
        )
    ]
    assert report.first.position == closed
    assert not verified(env, table=table).ok


def test_a_replaced_shoe_without_its_reveal_is_named_where_its_successor_took_its_place(store):
    env, path, ids = store
    shoe, table = ids["replaced_shoe"], ids["open_table"]
    changed = [(p, v) for p, v, t in _rows(path, table) if t.endswith("Table.ShoeChanged")]
    _delete_the_reveal(path, shoe)

    report = verified(env)

    # The shoe now in use at the open table waits for its reveal: no fault.
    assert _shuffle_faults(report) == [
        (
            "Table.ShoeChanged",
            table,
            f"shoe {ids['in_use_shoe']} replaced shoe {shoe} at the table, which was never "
            "revealed (no Shoe.Revealed): its cards cannot be checked",
        )
    ]
    assert (report.first.position, report.first.version) == changed[1]


# -- every place of a shoe drawn once, in order ----------------------------------------------


def test_a_card_removed_and_its_round_renumbered_and_rehashed_is_named_at_the_next(store):
    env, path, ids = store
    rid, shoe = ids["replaced_round"], ids["replaced_shoe"]
    kept: list = []

    def drop_a_middle_card(events: list) -> list:
        gone = _cards(events)[3]
        kept.extend(events[gone + 1 :])
        return events[:gone] + events[gone + 1 :]

    forge_stream(env, rid, drop_a_middle_card)
    assert audited(env, rid)["chain"]["ok"]  # the chain alone cannot tell

    report = verified(env)

    next_card = next(e for e in kept if type(e).__name__ == "CardDealt")
    [(kind, stream, problem)] = _shuffle_faults(report)
    assert (kind, stream) == ("Round.CardDealt", rid)
    assert problem.startswith(
        f"shoe {shoe} place 3 was never drawn, though place 4 was: a card's event is missing"
    )
    # The card before the gap is named too: when it is another round's, either may have lost it.
    before = re.search(
        r", between place 2 \(Round.CardDealt v(\d+) of stream (\S+), position", problem
    )
    assert before and before[2] == rid and int(before[1]) < next_card.originator_version - 1
    assert report.first.version == next_card.originator_version - 1
    assert report.first.type == "Round.CardDealt"


def test_two_cards_swapped_are_named_out_of_order_not_missing(store):
    """Adjacent cards' events swapped with the round re-hashed: no place is missing, so the
    only shuffle fault is the late card's."""
    env, _, ids = store
    rid, shoe = ids["replaced_round"], ids["replaced_shoe"]

    def swap(events: list) -> list:
        i, j = _cards(events)[3:5]
        events[i], events[j] = events[j], events[i]
        return events

    forge_stream(env, rid, swap)

    faults = _shuffle_faults(verified(env))
    assert [problem for _, _, problem in faults] == [
        f"shoe {shoe} place 3 is drawn after place 4: the cards' events are out of order"
    ]


def test_the_last_card_of_a_revealed_shoe_removed_is_named_at_the_reveal(store):
    env, path, ids = store
    rid, shoe = ids["closing_round"], ids["closed_shoe"]
    forge_stream(
        env, rid, lambda events: [e for i, e in enumerate(events) if i != _cards(events)[-1]]
    )

    report = verified(env)

    *_, (revealed, _, _) = _rows(path, shoe)
    assert _shuffle_faults(report) == [
        (
            "Shoe.Revealed",
            shoe,
            f"shoe {shoe} place 9 was never drawn, though its reveal counts 10 dealt: a "
            "card's event is missing",
        )
    ]
    assert [f.position for f in report.faults if f.check == "shuffle"] == [revealed]


def test_a_card_moved_to_a_place_already_drawn_is_named(store):
    env, _, ids = store
    rid, shoe = ids["replaced_round"], ids["replaced_shoe"]

    def redraw(events: list) -> list:
        i = _cards(events)[4]
        events[i] = dataclasses.replace(events[i], shoe_index=2)
        return events

    forge_stream(env, rid, redraw)

    problems = [p for _, _, p in _shuffle_faults(verified(env))]
    assert any(f"shoe {shoe} place 2 was already dealt at position" in p for p in problems)
    assert f"shoe {shoe} place 4 was never drawn, though place 5 was" in " ".join(problems)


def test_burns_and_cards_of_a_random_shoe_run_on_from_its_start(store):
    """The later round's shoe was burned from (casino ``burn``) and dealt from: its places,
    burned and dealt, run 0, 1, 2 … (the honest log passes, as the fixture checked)."""
    env, _, ids = store
    app = TwentyOneLedger(env=env)
    try:
        events = list(app.events.get(UUID(ids["later_round"])))
    finally:
        app.close()
    places = [e.shoe_index for e in events if type(e).__name__ in ("CardBurned", "CardDealt")]
    assert "CardBurned" in {type(e).__name__ for e in events}
    assert places == list(range(len(places)))
