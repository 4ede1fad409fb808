"""``python -m replay rederive``: recorded rounds replayed through today's rules."""

from __future__ import annotations

import copy
import json
from uuid import UUID

import pytest
from replay_history import (
    FAMILIES,
    FIXED_ROUND,
    casino_table,
    play_fixed_casino,
    play_fixed_round,
    round_ids,
)
from store_checks import played

from ledger.application import TwentyOneLedger
from ledger.domain.round import Round
from ledger.simulate import Settings, run
from replay.__main__ import main
from replay.rederive import rederive, rederive_round
from replay.rederive_scope import penalty_cover, released_after_deal


@pytest.fixture
def app(memory_env):
    application = TwentyOneLedger(env=memory_env)
    yield application
    application.close()


@pytest.mark.parametrize("family", FAMILIES)
def test_recorded_rounds_rederive_clean(app, family):
    run(Settings(family=family, rounds=8, players=3, stake=100), app)
    rids = round_ids(app)
    assert len(rids) == 8
    for rid in rids:
        result = rederive_round(app, rid)
        assert result.matches, result.text()
        assert result.event_differences == [], result.text()
        assert result.settlements and all(
            s["recorded"] == s["rederived"] for s in result.settlements
        )
        assert "settlement matches" in result.text()


def test_a_split_and_a_double_rederive_clean(app):
    rid = play_fixed_casino(app)

    result = rederive_round(app, rid)

    assert result.matches, result.text()
    assert [s["hand"] for s in result.settlements] == ["h1", "h2", "h3"]
    assert result.decisions == 7  # the two stakes, split, double, hit and two stands


def test_a_tampered_settlement_shows_the_difference(app):
    rid = play_fixed_casino(app)
    events = list(app.events.get(UUID(rid)))
    i = next(n for n, e in enumerate(events) if type(e).__name__ == "HandSettled")
    forged = copy.copy(events[i])
    object.__setattr__(forged, "amount", forged.amount + 250)
    events[i] = forged

    result = rederive(events)

    assert not result.matches
    assert len(result.differences) == 1
    assert result.differences[0].startswith(f"{forged.hand}: amount recorded {forged.amount}")
    assert "settlement DIFFERS" in result.text()


def test_the_command_line_rederives_a_stored_round(sqlite_file, capsys):
    env = sqlite_file[0]
    rid = played(env, play_fixed_casino)

    assert main(["rederive", rid], env=env) == 0
    assert "settlement matches" in capsys.readouterr().out
    assert main(["rederive", rid, "--json"], env=env) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["matches"] is True and len(out["settlements"]) == 3


def test_a_changed_card_makes_the_replay_diverge_or_differ(app):
    rid = play_fixed_casino(app)
    events = list(app.events.get(UUID(rid)))
    i = next(
        n
        for n, e in enumerate(events)
        if type(e).__name__ == "CardDealt" and e.hand == "h2" and e.card == "9S"
    )
    forged = copy.copy(events[i])
    object.__setattr__(forged, "card", "2S")  # Bob now stands on 12 and loses
    events[i] = forged

    result = rederive(events)

    assert not result.matches
    assert result.diverged is None
    assert any(d.startswith("h2:") for d in result.differences), result.text()


def test_an_unknown_round_is_an_error(app, capsys):
    assert main(["rederive", "00000000-0000-0000-0000-000000000000"], env=app.env) == 1
    assert main(["rederive", "not-a-round"], env=app.env) == 1


def test_a_dealer_dividing_twice_and_serving_himself_two_cards_rederives_clean(app):
    """VU-21 and VU-20: the dealer divides, divides again, and gives his third hand two cards
    at once (VU-23); today's rules replay every decision and settle alike."""

    def fund(name: str) -> str:
        pid = app.register_player(name)["player_id"]
        app.deposit(pid, 1_000_000)
        return pid

    dealer, ann, bob = fund("Dealer"), fund("Ann"), fund("Bob")
    table_id = app.open_table("vingt-un", {"penalty_amount": 50})["table_id"]
    for seat, pid in enumerate((dealer, ann, bob), start=1):
        app.seat_player(table_id, pid, seat)
    app.choose_dealer(table_id, dealer)
    # Ann 19, Bob 17; the dealer 8 8, divided (8S, TH), his first divided again (2C, 3C).
    app.fix_next_shoe(
        table_id, ["TC", "TD", "8C", "9C", "7D", "8H", "8S", "TH", "2C", "3C", "9H", "5S", "KS"]
    )
    rid = app.start_round(table_id, actor=dealer)["round_id"]
    app.place_stake(rid, ann, 100)
    app.place_stake(rid, bob, 200)
    app.act(rid, "dealer_double", actor=dealer, called=False)
    app.act(rid, "stand", actor=ann, hand="h1")
    app.act(rid, "stand", actor=bob, hand="h2")
    app.act(rid, "dealer_split", actor=dealer)
    app.act(rid, "dealer_split", actor=dealer)
    app.act(rid, "dealer_draw", actor=dealer)  # 8 2 9: nineteen
    app.act(rid, "dealer_stand", actor=dealer)
    app.act(rid, "serve_two", actor=dealer, hand="dealer3")  # 8 3 5 K: over-drawn
    app.act(rid, "dealer_stand", actor=dealer)  # 8 10
    assert app.get_round(rid).ended

    result = rederive_round(app, rid)

    assert result.matches, result.text()
    assert result.event_differences == [], result.text()
    assert [s["hand"] for s in result.settlements] == ["h1", "h2"]


def _dealer_penalties_from_cover(app):
    """A Vingt-un round whose dealer pays both penalties from his cover: VU-26 for two cards
    at once (from the cover the round can no longer cost him) and VU-27 (b) for each of his
    divided hands that over-draws (held with the cover)."""
    ids = {}
    for name in ("Dealer", "Ann"):
        ids[name] = app.register_player(name)["player_id"]
        app.deposit(ids[name], 1_000_000)
    options = {"penalty_amount": 50, "pool_dealer_overdraw": 70}
    table_id = app.open_table("vingt-un", options)["table_id"]
    app.seat_player(table_id, ids["Dealer"], 1)
    app.seat_player(table_id, ids["Ann"], 2)
    app.choose_dealer(table_id, ids["Dealer"])
    # Ann: TC 5C, given 9D 4H at once (keeps 4H: 19); the dealer 8D 8S, divided: 8D 9C and
    # 8S 7D, each over-drawn by a king.
    cards = ["TC", "8D", "5C", "8S", "9D", "4H", "9C", "7D", "KH", "KS", "2S"]
    app.fix_next_shoe(table_id, cards)
    dealer = ids["Dealer"]
    rid = app.start_round(table_id, actor=dealer)["round_id"]
    app.place_stake(rid, ids["Ann"], 100)
    app.act(rid, "dealer_double", actor=dealer, called=False)
    app.act(rid, "serve_two", actor=dealer, hand="h1")
    app.act(rid, "reject", actor=ids["Ann"], hand="h1", card="9D")
    app.act(rid, "dealer_split", actor=dealer)
    app.act(rid, "dealer_draw", actor=dealer)
    app.act(rid, "dealer_draw", actor=dealer)
    events = list(app.events.get(UUID(rid)))
    assert [e.clause for e in events if penalty_cover(e)] == ["VU-27", "VU-26", "VU-27", "VU-27"]
    return events


def test_a_dealer_paying_penalties_from_his_cover_rederives_clean(app):
    result = rederive(_dealer_penalties_from_cover(app))

    assert result.matches, result.text()
    assert result.event_differences == [], result.text()


def _as_recorded_before_the_cover_paid(recorded, paid_from_cover):
    """``recorded`` as the ledger wrote it before the dealer's pool money came from his bank
    cover: no cover held or released for it, so ``paid_from_cover`` more was released at the
    round's end. Returns the events and that last release."""
    events, end = [], None
    for e in recorded:
        if penalty_cover(e):
            continue
        if isinstance(e, Round.BankCovered) and e.clause == "VU-14":
            e = copy.copy(e)
            object.__setattr__(e, "amount", e.amount - paid_from_cover)
            end = e
        events.append(e)
    return events, end


def test_a_round_recorded_before_penalties_came_from_the_cover_still_rederives(app):
    # Recorded before the ledger paid the dealer's penalties from his cover: none held or
    # released for them, the VU-26 penalty left his wallet, so 50 more of his cover was left
    # to release at the end. The same play and settlements; those differences named.
    events, end = _as_recorded_before_the_cover_paid(_dealer_penalties_from_cover(app), 50)

    result = rederive(events)

    assert result.matches, result.text()
    assert result.event_differences == [
        f"v{end.originator_version} Round.BankCovered: amount recorded {end.amount}, "
        f"now {end.amount + 50}",
        "the dealer's penalty cover: recorded [], now [['Round.BankCovered', '(bank)', 70, "
        "'VU-27'], ['Round.BankCovered', '(bank)', -50, 'VU-26'], ['Round.BankCovered', "
        "'(bank)', 70, 'VU-27'], ['Round.BankCovered', '(bank)', -140, 'VU-27']]",
    ], result.text()


def _tie_share_from_cover(app):
    """A Vingt-un round whose dealer pays the pool a third of the 100 he received on a tie
    (VU-27 c) from his cover: Ann's 18 against his 18."""
    ids = {}
    for name in ("Dealer", "Ann"):
        ids[name] = app.register_player(name)["player_id"]
        app.deposit(ids[name], 1_000_000)
    table_id = app.open_table("vingt-un", {"pool_tie_share": "1/3"})["table_id"]
    app.seat_player(table_id, ids["Dealer"], 1)
    app.seat_player(table_id, ids["Ann"], 2)
    app.choose_dealer(table_id, ids["Dealer"])
    app.fix_next_shoe(table_id, ["TC", "8D", "8C", "TD", "2S"])
    dealer = ids["Dealer"]
    rid = app.start_round(table_id, actor=dealer)["round_id"]
    app.place_stake(rid, ids["Ann"], 100)
    app.act(rid, "dealer_double", actor=dealer, called=False)
    app.act(rid, "stand", actor=ids["Ann"], hand="h1")
    app.act(rid, "dealer_stand", actor=dealer)
    events = list(app.events.get(UUID(rid)))
    assert [(e.amount, e.clause) for e in events if penalty_cover(e)] == [(-33, "VU-27")]
    return events


def test_a_round_recorded_before_the_tie_share_came_from_the_cover_still_rederives(app):
    # Recorded before: the share left the dealer's wallet, none of his cover released for
    # it, so 33 more was left to release at the end. The same play and settlement.
    events, end = _as_recorded_before_the_cover_paid(_tie_share_from_cover(app), 33)

    result = rederive(events)

    assert result.matches, result.text()
    assert result.event_differences == [
        f"v{end.originator_version} Round.BankCovered: amount recorded {end.amount}, "
        f"now {end.amount + 33}",
        "the dealer's penalty cover: recorded [], now [['Round.BankCovered', '(bank)', -33, "
        "'VU-27']]",
    ], result.text()
    assert rederive(_tie_share_from_cover(app)).event_differences == []


def _hoyle_rounds_with_releases(app):
    run(Settings(family="hoyle-1913", rounds=8, players=3, stake=100), app)
    rounds = [list(app.events.get(UUID(rid))) for rid in round_ids(app)]
    with_releases = [r for r in rounds if any(released_after_deal(e) for e in r)]
    assert with_releases  # most Hoyle deals show no natural: each releases what it held over
    return with_releases


def test_a_hoyle_round_rederives_its_releases_after_the_deal(app):
    for events in _hoyle_rounds_with_releases(app):
        result = rederive(events)

        assert result.matches, result.text()
        assert result.event_differences == [], result.text()


def test_a_hoyle_round_recorded_before_the_releases_still_rederives_with_them_named(app):
    # Recorded before the ledger released the holds beyond a stake after the deal (H13-5,
    # H13-6): the same play, the same settlements, only the releases differ.
    events = _hoyle_rounds_with_releases(app)[0]
    before = [e for e in events if not released_after_deal(e)]

    result = rederive(before)

    assert result.matches, result.text()
    assert len(result.event_differences) == 1
    assert result.event_differences[0].startswith("released after the deal: recorded []")
    assert "H13-5" in result.event_differences[0]


def test_a_casino_round_recorded_when_cards_named_the_caller_still_rederives(app):
    # Before the ledger named the dealer ("house") as the actor of the cards he deals, each
    # card named whoever's command dealt it (the last stake, the last stand). The play and
    # the settlements are the same; only those actors differ, and are named as such.
    rid = play_fixed_casino(app)
    bob = app.get_round(rid).hands["h2"]["player"]
    events = []
    for event in app.events.get(UUID(rid)):
        if isinstance(event, Round.CardDealt) and event.actor == "house":
            event = copy.copy(event)
            event.__dict__["actor"] = bob
        events.append(event)

    result = rederive(events)

    assert result.matches, result.text()
    [line] = result.event_differences  # one line for them all, not one per card
    assert line.startswith("cards dealt (") and line.endswith("now the dealer"), line


def test_a_round_whose_division_held_the_player_more_still_rederives_with_it_named(app):
    # Recorded before a dealer's division (VU-21) held each player what one more dealer hand
    # can take (a drawn 21's two stakes), when it held another four: the same settlement.
    recorded = _dealer_penalties_from_cover(app)
    (division,) = [e for e in recorded if isinstance(e, Round.HoldAdjusted) and e.clause == "VU-21"]
    assert division.amount == 2 * 100  # Ann's stake of 100, no double called
    older = copy.copy(division)
    object.__setattr__(older, "amount", 4 * 100)
    events = [older if e is division else e for e in recorded]

    result = rederive(events)

    assert result.matches, result.text()
    assert any("Round.HoldAdjusted" in d and "400" in d for d in result.event_differences), (
        result.text()
    )


def test_a_round_an_admin_played_for_its_players_rederives_clean(app):
    # Every command given by an admin's key closes its events with an ActedFor naming the
    # key: who gave a command, not a step of play. Rederived under an admin's key too (the
    # HTTP audit runs it inside the request's given_by): the stand-ins act for themselves.
    table, ann, bob = casino_table(app)
    with app.given_by("admin key 1 (ops)"):
        rid = play_fixed_round(app, table, ann, bob, FIXED_ROUND + ["2C"] * 20)
    assert any(isinstance(e, Round.ActedFor) for e in app.events.get(UUID(rid)))

    plain = rederive_round(app, rid)
    with app.given_by("admin key 2 (auditing)"):
        asked_by_an_admin = rederive_round(app, rid)

    for result in (plain, asked_by_an_admin):
        assert result.matches, result.text()
        assert result.event_differences == [], result.text()
        assert result.decisions == 7
