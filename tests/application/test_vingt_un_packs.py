"""Vingt-un's packs (RULES.md VU-3, VU-29): who cuts, a round completed from the used cards
when the pack runs out in it, and the deals limited by the pack (``pack_twice``,
``two_packs``). Random, seeded shoes played by the simulator's policies: these rules are
about whole packs, which a short fixed shoe cannot stand for."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any
from uuid import UUID

import pytest

from ledger.cards import unshuffled
from ledger.errors import NotPermitted
from ledger.simulate import Settings, play_round
from ledger.simulate_tally import Tally
from ledger.strategy import TableView
from replay.verify import verify

LIMITS = {"min_stake": 1, "max_stake": 1_000}


def open_table(app: Any, fund: Any, players: int, options: dict[str, Any], seed: int) -> str:
    """A Vingt-un table with the dealer in seat 1 and ``players`` players after him."""
    app.shoes.rng = random.Random(seed)
    table = app.open_table("vingt-un", {**LIMITS, **options})["table_id"]
    for seat in range(1, players + 2):
        app.seat_player(table, fund(f"P{seat}", 10**9), seat)
    app.choose_dealer(table, app.get_table(table).seats["1"])
    return table


def play(app: Any, table: str, rounds: int, until_passed: bool = False) -> list[str]:
    """Rounds played by the simulator's private-game policies; their ids."""
    settings = Settings(family="vingt-un", stake=10)
    view = TableView(decks=1, dealer_hits_soft_17=False, double_after_split=True, surrender=False)
    played = []
    for _ in range(rounds):
        played.append(play_round(app, table, settings, view, Tally()))
        if until_passed and passes(app, table):
            break
    return played


def table_events(app: Any, table: str, name: str) -> list[Any]:
    return [e for e in app.events.get(UUID(table)) if type(e).__name__ == name]


def passes(app: Any, table: str) -> list[Any]:
    return table_events(app, table, "DealPassed")


def round_events(app: Any, rid: str) -> list[Any]:
    return list(app.events.get(UUID(rid)))


def test_VU_3_the_dealer_may_not_choose_the_cut_the_pone_does(app, fund):
    table = open_table(app, fund, 2, {}, seed=1)
    dealer = app.get_table(table).dealer
    before = app.recorder.max_notification_id()
    with pytest.raises(NotPermitted) as refused:
        app.start_round(table, actor=dealer, cut=17)
    assert refused.value.clause == "VU-3"
    assert app.recorder.max_notification_id() == before  # nothing written

    rid = app.start_round(table, cut=17)["round_id"]  # an admin enters the pone's cut
    rnd = app.get_round(rid)
    cut = [e for e in app.events.get(rnd.shoe_id) if type(e).__name__ == "Cut"]
    assert [(e.cut, e.by, e.clause) for e in cut] == [(17, rnd.pone, "VU-3")]


def test_VU_29_a_round_that_runs_out_is_completed_from_the_used_cards(app, fund):
    """The first shoe holds only the six cards of the deal, so the first draw finds it
    empty: the round goes on from the rest of the pack, shuffled and cut by the pone, and no
    card on the table is dealt again. Rounds after it run out in their own time."""
    table = open_table(app, fund, 2, {"deal_limit": "hands", "deal_hands": 10**3}, seed=7)
    app.fix_next_shoe(table, ["2C", "3C", "4C", "5C", "6C", "7C"])
    rounds = play(app, table, 200)

    replaced = 0
    for rid in rounds:
        events = round_events(app, rid)
        dealt = [e.card for e in events if type(e).__name__ == "CardDealt"]
        assert max(Counter(dealt).values()) == 1, f"a card dealt twice in round {rid}"
        for at, event in enumerate(events):
            if type(event).__name__ != "ShoeReplaced":
                continue
            replaced += 1
            assert event.clause == "VU-29"
            on_table = Counter(e.card for e in events[:at] if type(e).__name__ == "CardDealt")
            (committed, cut, *_) = app.events.get(event.shoe)
            assert committed.stock == [c for c in unshuffled(1) if not on_table[c]]
            assert cut.by == app.get_round(rid).pone
    first = round_events(app, rounds[0])
    assert "ShoeReplaced" in {type(e).__name__ for e in first}
    assert replaced >= 2  # and later rounds, on random shoes, run out too

    # Every shoe but the one in use was revealed, shoes of used cards as their rounds
    # ended, and every card dealt from them is the card at its place in their shuffle.
    report = verify(app, table)
    assert report.ok, report.faults[:3]
    assert len(report.unrevealed) == 1
    assert report.shoes_checked == len(table_events(app, table, "ShoeChanged")) - 1


def test_VU_29_a_shoe_run_out_in_the_opening_deal_is_committed_before_its_cards(app, fund):
    """The round and the shoe of used cards are made by one command: the shoe's commitment
    and cut are still written ahead of the round's cards from it (SHUFFLE.md), for the log's
    order is what shows the shuffle was fixed before the deal."""
    table = open_table(app, fund, 1, {}, seed=3)
    app.fix_next_shoe(table, ["2C"])  # one card: the deal's second comes from the used cards

    rid = app.start_round(table, actor=app.get_table(table).dealer)["round_id"]

    (replaced,) = [e for e in round_events(app, rid) if type(e).__name__ == "ShoeReplaced"]
    log = list(app.recorder.select_notifications(start=1, limit=10**6))
    committed, cut = (n.id for n in log if n.originator_id == replaced.shoe)
    from_it = [
        n.id
        for n in log
        if n.originator_id == UUID(rid)
        and n.topic.endswith("Round.CardDealt")
        and n.originator_version > replaced.originator_version
    ]
    assert from_it and committed < cut < min(from_it)
    assert verify(app).ok


@pytest.mark.parametrize(
    ("deal_limit", "whole_shoes", "reason"),
    [
        ("pack_twice", 2, "the pack is gone through twice"),
        ("two_packs", 1, "the two packs are gone through"),
    ],
)
def test_VU_29_a_deal_limited_by_the_pack_ends_when_it_is_gone_through(
    app, fund, deal_limit, whole_shoes, reason
):
    table = open_table(app, fund, 2, {"deal_limit": deal_limit}, seed=11)
    first_dealer = app.get_table(table).dealer
    play(app, table, 200, until_passed=True)
    (passed,) = passes(app, table)
    assert (passed.from_player, passed.clause, passed.reason) == (first_dealer, "VU-29", reason)

    # The deal went through exactly its packs: the whole shoes committed before it passed
    # (a shoe of used cards that completes a round is not one of them).
    changed = [
        e
        for e in app.events.get(UUID(table))
        if type(e).__name__ == "ShoeChanged" and e.originator_version < passed.originator_version
    ]
    whole = [e for e in changed if next(iter(app.events.get(e.shoe_id))).stock is None]
    assert len(whole) == whole_shoes
    assert {e.size for e in whole} == {52 if deal_limit == "pack_twice" else 104}

    # The next dealer starts on a fresh, whole shoe.
    rid = play(app, table, 1)[0]
    rnd = app.get_round(rid)
    assert rnd.dealer != first_dealer
    assert next(iter(app.events.get(rnd.start_shoe))).stock is None
    assert rnd.start_shoe not in {e.shoe_id for e in changed}
