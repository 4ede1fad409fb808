"""Command ids make a retry safe: the same command repeated with the same ``command_id``
returns the first result (marked ``replayed: True``) and writes nothing; the same id with
different content is refused with ``IdempotencyConflict`` and writes nothing either."""

from __future__ import annotations

import uuid

import pytest

from ledger.application import TwentyOneLedger
from ledger.balances import fold_balances
from ledger.config import store_env as build_store_env
from ledger.domain.command import CommandRecord, fingerprint
from ledger.errors import (
    IdempotencyConflict,
    InvalidCommand,
    StakeOutOfLimits,
    UnknownPlayer,
    WrongPhase,
)

# One player at a casino table: h1 2C 3D, the dealer 5S 4H; h1 then draws 2H, 3S, 2S …
CARDS = ["2C", "5S", "3D", "4H", "2H", "3S", "2S", "3C", "4S", "4D", "5C", "5D", "6C", "6D"]


def notifications(app) -> list[tuple]:
    return [
        (n.id, n.originator_id, n.originator_version, n.topic, n.state)
        for n in app.recorder.select_notifications(start=1, limit=10**6)
    ]


def without_position(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "position"}


def assert_replayed(app, first: dict, again: dict, before: list[tuple], balances: dict) -> None:
    """``again`` is ``first`` replayed, and the store did not move."""
    assert again.get("replayed") is True
    assert "replayed" not in first
    assert without_position(
        {k: v for k, v in again.items() if k != "replayed"}
    ) == without_position(first)
    assert notifications(app) == before
    assert fold_balances(app) == balances


def casino_round(app, fund, cards=CARDS, stake: int | None = 200):
    table = app.open_table("casino")["table_id"]
    pid = fund("Ann")
    app.seat_player(table, pid, 1)
    app.fix_next_shoe(table, cards)
    rid = app.start_round(table)["round_id"]
    if stake:
        app.place_stake(rid, pid, stake)
    return table, rid, pid


# -- a repeated command writes nothing -----------------------------------------------------


def test_a_repeated_deposit_pays_once(app, fund):
    pid = fund("Ann", 0)
    first = app.deposit(pid, 500, command_id="dep-1")
    assert first["balance"] == 500
    before, balances = notifications(app), fold_balances(app)

    again = app.deposit(pid, 500, command_id="dep-1")
    assert_replayed(app, first, again, before, balances)
    assert app.get_player(pid).balance == 500
    assert balances[f"player:{pid}"] == 500 and balances["cashier"] == -500


def test_a_repeated_withdrawal_pays_out_once(app, fund):
    pid = fund("Ann", 1_000)
    first = app.withdraw(pid, 400, command_id="wd-1")
    before, balances = notifications(app), fold_balances(app)

    again = app.withdraw(pid, 400, command_id="wd-1")
    assert_replayed(app, first, again, before, balances)
    assert app.get_player(pid).balance == 600


def test_the_replay_is_the_first_result_not_the_current_state(app, fund):
    pid = fund("Ann", 0)
    first = app.deposit(pid, 500, command_id="dep-1")
    app.deposit(pid, 700)  # without an id: a second, distinct deposit
    before, balances = notifications(app), fold_balances(app)

    again = app.deposit(pid, 500, command_id="dep-1")
    assert again["balance"] == 500  # what the first deposit answered, not today's 1 200
    assert_replayed(app, first, again, before, balances)
    assert app.get_player(pid).balance == 1_200


def test_a_repeated_registration_registers_one_player(app):
    first = app.register_player("Ann", command_id="reg-ann")
    before, balances = notifications(app), fold_balances(app)

    again = app.register_player("Ann", command_id="reg-ann")
    assert again["player_id"] == first["player_id"]
    assert_replayed(app, first, again, before, balances)


def test_a_repeated_open_table_opens_one_table(app):
    first = app.open_table("casino", {"decks": 2}, command_id="open-1")
    before, balances = notifications(app), fold_balances(app)

    again = app.open_table("casino", {"decks": 2}, command_id="open-1")
    assert again["table_id"] == first["table_id"]
    assert_replayed(app, first, again, before, balances)


def test_a_repeated_seating_is_not_refused_as_already_seated(app, fund):
    table = app.open_table("casino")["table_id"]
    pid = fund("Ann")
    first = app.seat_player(table, pid, 1, command_id="seat-1")
    before, balances = notifications(app), fold_balances(app)

    again = app.seat_player(table, pid, 1, command_id="seat-1")
    assert_replayed(app, first, again, before, balances)
    assert app.get_table(table).seats == {"1": pid}


def test_a_repeated_start_round_opens_one_round(app, fund):
    table = app.open_table("casino")["table_id"]
    app.seat_player(table, fund("Ann"), 1)
    app.fix_next_shoe(table, CARDS)
    first = app.start_round(table, command_id="start-1")
    before, balances = notifications(app), fold_balances(app)

    again = app.start_round(table, command_id="start-1")  # not "a round is still in play"
    assert again["round_id"] == first["round_id"]
    assert_replayed(app, first, again, before, balances)
    assert app.get_table(table).rounds == 1


def test_a_repeated_stake_is_taken_once(app, fund):
    _, rid, pid = casino_round(app, fund, stake=None)
    wallet = app.get_player(pid).balance
    first = app.place_stake(rid, pid, 300, command_id="stake-1")
    before, balances = notifications(app), fold_balances(app)

    again = app.place_stake(rid, pid, 300, command_id="stake-1")  # not "already staked"
    assert_replayed(app, first, again, before, balances)
    assert app.get_player(pid).balance == wallet - 300
    assert app.get_round(rid).hands["h1"]["stake"] == 300


def test_a_repeated_hit_deals_one_card(app, fund):
    _, rid, pid = casino_round(app, fund)
    first = app.act(rid, "hit", actor=pid, hand="h1", command_id="hit-1")
    assert first["card"] == "2H"
    rnd = app.get_round(rid)
    before, balances = notifications(app), fold_balances(app)

    again = app.act(rid, "hit", actor=pid, hand="h1", command_id="hit-1")
    assert again["card"] == "2H"
    assert_replayed(app, first, again, before, balances)
    after = app.get_round(rid)
    assert after.version == rnd.version and after.shoe_next == rnd.shoe_next
    assert after.hands["h1"]["cards"] == ["2C", "3D", "2H"]

    # The shoe did not move: the next real hit gets the next card.
    assert app.act(rid, "hit", actor=pid, hand="h1", command_id="hit-2")["card"] == "3S"
    assert app.get_round(rid).hands["h1"]["cards"] == ["2C", "3D", "2H", "3S"]


def test_a_repeated_stand_after_the_round_ended_replays_instead_of_refusing(app, fund):
    _, rid, pid = casino_round(app, fund)
    first = app.act(rid, "stand", actor=pid, hand="h1", command_id="stand-1")
    assert first["phase"] == "ended"
    before, balances = notifications(app), fold_balances(app)
    with pytest.raises(WrongPhase):  # without the id, the same command is refused …
        app.act(rid, "stand", actor=pid, hand="h1")

    again = app.act(rid, "stand", actor=pid, hand="h1", command_id="stand-1")  # … with it, replayed
    assert_replayed(app, first, again, before, balances)


def test_the_replay_returns_the_first_result_with_a_position_at_or_after_it(app, fund):
    pid = fund("Ann", 0)
    first = app.deposit(pid, 500, command_id="dep-1")
    app.register_player("Bob")

    again = app.deposit(pid, 500, command_id="dep-1")

    assert {k: v for k, v in again.items() if k != "position"} == {
        **{k: v for k, v in first.items() if k != "position"},
        "replayed": True,
    }
    assert again["position"] > first["position"]


def test_a_command_id_survives_a_restart(tmp_path):
    env = {
        **build_store_env("sqlite", sqlite_path=str(tmp_path / "ledger.sqlite3"), environ={}),
        "LEDGER_ALLOW_FIXED_SHOES": "true",
    }
    app = TwentyOneLedger(env=env)
    try:
        pid = app.register_player("Ann")["player_id"]
        first = app.deposit(pid, 500, command_id="dep-1")
    finally:
        app.close()

    app = TwentyOneLedger(env=env)
    try:
        before, balances = notifications(app), fold_balances(app)
        again = app.deposit(pid, 500, command_id="dep-1")
        assert_replayed(app, first, again, before, balances)
        assert app.get_player(pid).balance == 500
    finally:
        app.close()


# -- the same id with other content is refused --------------------------------------------------


def test_a_deposit_id_reused_for_other_content_is_refused(app, fund):
    ann, bob = fund("Ann", 0), fund("Bob", 0)
    app.deposit(ann, 500, command_id="dep-1")
    attempts = [
        lambda: app.deposit(ann, 600, command_id="dep-1"),  # another amount
        lambda: app.deposit(bob, 500, command_id="dep-1"),  # another player
        lambda: app.withdraw(ann, 500, command_id="dep-1"),  # another command
        lambda: app.register_player("Ann", command_id="dep-1"),
    ]
    for attempt in attempts:
        before, balances = notifications(app), fold_balances(app)
        with pytest.raises(IdempotencyConflict) as info:
            attempt()
        assert "dep-1" in str(info.value) and "deposit" in str(info.value)
        assert notifications(app) == before
        assert fold_balances(app) == balances
    assert app.get_player(ann).balance == 500 and app.get_player(bob).balance == 0


@pytest.mark.parametrize(
    "other",
    [
        {"action": "stand"},  # another decision
        {"action": "hit", "hand": "h2"},  # another hand
        {"action": "hit", "actor": "someone-else"},  # another actor
        {"action": "double_down"},
    ],
    ids=["stand", "other-hand", "other-actor", "double"],
)
def test_a_hit_id_reused_for_another_decision_is_refused(app, fund, other):
    _, rid, pid = casino_round(app, fund)
    app.act(rid, "hit", actor=pid, hand="h1", command_id="hit-1")
    rnd = app.get_round(rid)
    before, balances = notifications(app), fold_balances(app)

    kw = {"actor": pid, "hand": "h1", **other}
    action = kw.pop("action")
    with pytest.raises(IdempotencyConflict) as info:
        app.act(rid, action, command_id="hit-1", **kw)
    assert "hit-1" in str(info.value)
    assert notifications(app) == before
    assert fold_balances(app) == balances
    assert app.get_round(rid).version == rnd.version


def test_a_stake_id_reused_with_another_amount_is_refused(app, fund):
    _, rid, pid = casino_round(app, fund, stake=None)
    app.place_stake(rid, pid, 300, command_id="stake-1")
    before, balances = notifications(app), fold_balances(app)

    with pytest.raises(IdempotencyConflict):
        app.place_stake(rid, pid, 400, command_id="stake-1")
    assert notifications(app) == before
    assert fold_balances(app) == balances
    assert app.get_round(rid).hands["h1"]["stake"] == 300


def test_a_withdrawal_id_reused_by_the_buyer_declining_is_refused(app, fund):
    """VU-31: the seller withdrawing his offer and the buyer declining one are two commands,
    though both name only the table: the actor tells them apart."""
    dealer, bob, cid = fund("Dealer"), fund("Bob"), fund("Cid")
    table = app.open_table("vingt-un")["table_id"]
    for seat, pid in enumerate((dealer, bob, cid), start=1):
        app.seat_player(table, pid, seat)
    app.choose_dealer(table, dealer)
    app.offer_deal(table, dealer, bob, 100)
    app.withdraw_deal_offer(table, actor=dealer, command_id="w")
    app.offer_deal(table, dealer, cid, 100)
    before, balances = notifications(app), fold_balances(app)

    with pytest.raises(IdempotencyConflict):
        app.withdraw_deal_offer(table, actor=cid, command_id="w")
    assert notifications(app) == before and fold_balances(app) == balances
    assert app.get_table(table).deal_offer["buyer"] == cid  # still open: not replayed
    app.withdraw_deal_offer(table, actor=cid, command_id="w-2")
    assert app.get_table(table).deal_offer is None


@pytest.mark.parametrize(
    "command",
    [
        lambda app, pid, table, actor: app.deposit(pid, 500, actor=actor, command_id="c"),
        lambda app, pid, table, actor: app.withdraw(pid, 5, actor=actor, command_id="c"),
        lambda app, pid, table, actor: app.register_player("Ann", actor=actor, command_id="c"),
        lambda app, pid, table, actor: app.start_round(table, actor=actor, command_id="c"),
        lambda app, pid, table, actor: app.unseat_player(table, 2, actor=actor, command_id="c"),
        lambda app, pid, table, actor: app.close_table(table, actor=actor, command_id="c"),
    ],
    ids=["deposit", "withdraw", "register", "start_round", "unseat", "close_table"],
)
def test_an_id_reused_by_another_actor_is_refused_for_every_command(app, fund, command):
    ann, bob = fund("Ann"), fund("Bob")
    table = app.open_table("casino")["table_id"]
    app.seat_player(table, ann, 1)
    app.seat_player(table, bob, 2)
    app.fix_next_shoe(table, CARDS)
    first = command(app, ann, table, "admin")
    assert "replayed" not in first
    before, balances = notifications(app), fold_balances(app)

    with pytest.raises(IdempotencyConflict):
        command(app, ann, table, "someone-else")
    assert notifications(app) == before and fold_balances(app) == balances
    assert command(app, ann, table, "admin")["replayed"] is True


def test_a_record_fingerprinted_without_its_actor_still_replays_for_that_actor(app, fund):
    """A command record written before the actor was part of every fingerprint (of the
    payload alone): a retry by the same actor replays it after the upgrade; another actor's
    use of the id is refused."""
    pid = fund("Ann", 0)
    first = app.deposit(pid, 500)
    payload = {"player": pid, "amount": 500}
    app.save(
        CommandRecord.record(
            "old-dep",
            "deposit",
            fingerprint("deposit", payload),
            {k: v for k, v in first.items() if k != "position"},
            "admin",
        )
    )
    before, balances = notifications(app), fold_balances(app)

    again = app.deposit(pid, 500, command_id="old-dep")
    assert again["replayed"] is True and again["balance"] == 500
    with pytest.raises(IdempotencyConflict):
        app.deposit(pid, 500, actor="someone-else", command_id="old-dep")
    with pytest.raises(IdempotencyConflict):
        app.deposit(pid, 600, command_id="old-dep")
    assert notifications(app) == before and fold_balances(app) == balances


# -- refused commands and bad ids -----------------------------------------------------------


def test_a_refused_command_does_not_use_up_its_id(app, fund):
    _, rid, pid = casino_round(app, fund, stake=None)
    before = notifications(app)
    with pytest.raises(StakeOutOfLimits):
        app.place_stake(rid, pid, 100, command_id="stake-1")
    assert notifications(app) == before
    with pytest.raises(StakeOutOfLimits):  # the retry is decided again, not replayed
        app.place_stake(rid, pid, 100, command_id="stake-1")

    out = app.place_stake(rid, pid, 300, command_id="stake-1")  # a corrected command runs
    assert "replayed" not in out
    assert app.get_round(rid).hands["h1"]["stake"] == 300


def test_an_unknown_player_refusal_records_no_command(app, fund):
    missing = str(uuid.uuid4())
    before = notifications(app)
    with pytest.raises(UnknownPlayer):
        app.deposit(missing, 500, command_id="dep-x")
    assert notifications(app) == before

    pid = fund("Ann", 0)
    out = app.deposit(pid, 500, command_id="dep-x")
    assert "replayed" not in out and app.get_player(pid).balance == 500


@pytest.mark.parametrize("command_id", ["", "x" * 201, 42])
def test_a_malformed_command_id_is_refused(app, fund, command_id):
    pid = fund("Ann", 0)
    before = notifications(app)
    with pytest.raises(InvalidCommand) as info:
        app.deposit(pid, 500, command_id=command_id)
    assert "command id" in str(info.value)
    assert notifications(app) == before
    assert app.get_player(pid).balance == 0


def test_command_ids_are_global_not_per_player(app, fund):
    ann, bob = fund("Ann", 0), fund("Bob", 0)
    app.deposit(ann, 500, command_id="client-7")
    before = notifications(app)
    with pytest.raises(IdempotencyConflict):
        app.deposit(bob, 500, command_id="client-7")
    assert notifications(app) == before
    assert app.deposit(bob, 500, command_id="client-8")["balance"] == 500
