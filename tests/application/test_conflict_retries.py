"""A command that loses a race wrote nothing; with ``conflict_retries`` it is decided again
against what it now meets (as the HTTP API does), else refused with ``ConcurrentUpdate``.

Two applications share one SQLite file. The first's save is held until the second has
staked on the same round: the first's write then fails on the round's version, a real race
played in a fixed order."""

from __future__ import annotations

import pytest

from ledger.application import TwentyOneLedger
from ledger.config import store_env
from ledger.errors import ConcurrentUpdate, RuleViolation

STAKE = 200
# Ann, Bob, dealer, twice, then spares: no natural, so the last stake leaves the round in play
# (a random shoe ended it at the deal about one run in ten).
NO_NATURALS = ["TS", "9H", "7C", "8S", "6H", "TD", "2S", "3S", "4S", "5S"]


@pytest.fixture
def pair(tmp_path):
    env = store_env("sqlite", sqlite_path=str(tmp_path / "race.sqlite3"), environ={})
    env["LEDGER_ALLOW_FIXED_SHOES"] = "true"
    first, second = TwentyOneLedger(env=env), TwentyOneLedger(env=env)
    yield first, second
    first.close()
    second.close()


def _round_for_two(app: TwentyOneLedger) -> tuple[str, str, str]:
    table = app.open_table("casino", {"insurance": False})["table_id"]
    players = []
    for seat, name in enumerate(("Ann", "Bob"), start=1):
        pid = app.register_player(name)["player_id"]
        app.deposit(pid, 10 * STAKE)
        app.seat_player(table, pid, seat)
        players.append(pid)
    app.fix_next_shoe(table, NO_NATURALS)
    rid = app.start_round(table)["round_id"]
    return rid, players[0], players[1]


def _overtaken(first: TwentyOneLedger, second_command) -> list[int]:
    """Hold ``first``'s next save until ``second_command()`` has written; count its saves."""
    save, saves = first.save, []

    def save_after_the_other(*objs, **kwargs):
        saves.append(1)
        if len(saves) == 1:
            second_command()
        return save(*objs, **kwargs)

    first.save = save_after_the_other
    return saves


def test_a_command_that_lost_a_race_is_decided_again_and_applies_once(pair):
    first, second = pair
    rid, ann, bob = _round_for_two(first)
    first.conflict_retries = 1
    saves = _overtaken(first, lambda: second.place_stake(rid, bob, STAKE))

    first.place_stake(rid, ann, STAKE)

    rnd = second.get_round(rid)
    assert len(saves) == 2  # lost once, then decided again and saved
    assert [rnd.hands[h]["stake"] for h in ("h1", "h2")] == [STAKE, STAKE]
    assert rnd.phase == "play"  # the last stake dealt, once
    assert second.get_player(ann).balance == 10 * STAKE - STAKE


def test_without_retries_the_loser_is_refused_and_writes_nothing(pair):
    first, second = pair
    rid, ann, bob = _round_for_two(first)
    saves = _overtaken(first, lambda: second.place_stake(rid, bob, STAKE))
    before = second.recorder.max_notification_id()

    with pytest.raises(ConcurrentUpdate):
        first.place_stake(rid, ann, STAKE)

    assert len(saves) == 1
    written = [
        second.mapper.to_domain_event(n)
        for n in second.recorder.select_notifications(start=before + 1, limit=100)
    ]
    assert written, "the other command's stake is there"
    assert all(getattr(e, "hand", "h2") == "h2" for e in written)  # Bob's hand only
    assert str(ann) not in {str(e.originator_id) for e in written}  # Ann's wallet untouched
    assert second.get_round(rid).hands["h1"]["stake"] == 0


def test_a_retry_meets_the_new_state_and_is_refused_by_it(pair):
    """Decided again, a command that is no longer valid gets the domain's refusal, not a
    second write: Ann's stake raced by her own stake through the other application."""
    first, second = pair
    rid, ann, _ = _round_for_two(first)
    first.conflict_retries = 3
    saves = _overtaken(first, lambda: second.place_stake(rid, ann, STAKE))

    with pytest.raises(RuleViolation):
        first.place_stake(rid, ann, STAKE)

    assert len(saves) == 1  # the retry was refused before it wrote
    assert second.get_player(ann).balance == 10 * STAKE - STAKE
