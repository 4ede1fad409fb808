"""The same scenarios on every store (memory, SQLite, PostgreSQL): a full round of each family
with a fixed shoe pays what the book says; a new application object on the same store reloads
every round, table, wallet and hash chain identically and carries on where the shoe stopped;
a refused command writes nothing; a shoe's secret seed stays out of the ledger's events until
the shoe is retired.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import pytest

from ledger import accounts
from ledger.application import TwentyOneLedger
from ledger.balances import fold_balances
from ledger.domain.chain import verify_chain
from ledger.domain.round import Round
from ledger.domain.shoe import Shoe
from ledger.errors import (
    InsufficientFunds,
    LedgerError,
    NotPermitted,
    OutOfTurn,
    RuleViolation,
    StakeOutOfLimits,
    UnknownRound,
    WrongPhase,
)
from ledger.shuffle import dealing_order, verify_seed

START = 100_000  # every player's buy-in
PADDING = [
    "2C",
    "3D",
    "4H",
    "2D",
    "3H",
    "4S",
    "7C",
    "7D",
    "8C",
    "9C",
    "2H",
    "3S",
    "4C",
    "9H",
    "JD",
    "QS",
    "KD",
]
PERSISTENT = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]


@dataclass
class Played:
    """One scenario played: where, with which shoe, and what the book says each one nets."""

    family: str
    table: str
    round_id: str
    shoe: list[str]
    players: dict[str, str]  # name -> player id
    expected: dict[str, int]  # name -> net of the round (the dealer's too, in private games)
    house: int | None = None  # the casino's net
    extra: dict[str, Any] = field(default_factory=dict)


def register(app: TwentyOneLedger, family: str, names: list[str]) -> dict[str, str]:
    players = {}
    for name in names:
        pid = app.register_player(f"{name} ({family})")["player_id"]
        app.deposit(pid, START)
        players[name] = pid
    return players


def open_private(
    app: TwentyOneLedger, family: str, options: dict, shoe: list[str]
) -> tuple[str, dict]:
    """Dan deals from seat 1; Ann (seat 2) and Bob (seat 3) play hands h1 and h2."""
    players = register(app, family, ["Dan", "Ann", "Bob"])
    table = app.open_table(family, options)["table_id"]
    for seat, name in enumerate(["Dan", "Ann", "Bob"], start=1):
        app.seat_player(table, players[name], seat)
    app.choose_dealer(table, players["Dan"])
    app.fix_next_shoe(table, shoe)
    return table, players


def play_casino(app: TwentyOneLedger) -> Played:
    """CB-2 deal; Ann's blackjack is paid 3:2 at once (CB-4); Bob hits 16 to 21; Cy doubles
    11 to 21; the dealer stands on 17 (CB-8)."""
    shoe = ["AS", "TH", "5H", "9S", "KH", "6C", "6H", "8D", "5D", "TC", *PADDING]
    players = register(app, "casino", ["Ann", "Bob", "Cy"])
    table = app.open_table("casino", {})["table_id"]
    for seat, name in enumerate(["Ann", "Bob", "Cy"], start=1):
        app.seat_player(table, players[name], seat)
    app.fix_next_shoe(table, shoe)
    rid = app.start_round(table)["round_id"]
    for name in ("Ann", "Bob", "Cy"):
        app.place_stake(rid, players[name], 1_000)
    assert app.get_round(rid).hands["h1"]["result"] == 1_500  # paid at once
    app.act(rid, "hit", actor=players["Bob"], hand="h2")
    app.act(rid, "double_down", actor=players["Cy"], hand="h3")
    return Played(
        "casino", table, rid, shoe, players, {"Ann": 1_500, "Bob": 1_000, "Cy": 2_000}, house=-4_500
    )


def play_vingt_un(app: TwentyOneLedger) -> Played:
    """VU-4/5 stakes on the first card; VU-6 the dealer doubles; Ann draws to 21 and is paid
    double (VU-17); Bob's 18 loses to the dealer's 20 (VU-14)."""
    shoe = ["9C", "TD", "7S", "2D", "8C", "9D", "KS", "4H", *PADDING]
    table, players = open_private(app, "vingt-un", {}, shoe)
    dan = players["Dan"]
    rid = app.start_round(table, actor=dan)["round_id"]
    assert app.get_round(rid).phase == "staking"
    app.place_stake(rid, players["Ann"], 100)
    app.place_stake(rid, players["Bob"], 300)
    app.act(rid, "dealer_double", actor=dan, called=True)
    app.act(rid, "hit", actor=players["Ann"], hand="h1")
    app.act(rid, "stand", actor=players["Bob"], hand="h2")
    app.act(rid, "dealer_draw", actor=dan)
    app.act(rid, "dealer_stand", actor=dan)
    return Played("vingt-un", table, rid, shoe, players, {"Ann": 400, "Bob": -600, "Dan": 200})


def play_hoyle(app: TwentyOneLedger) -> Played:
    """H13-4 deal; Ann stands on 20, Bob draws to 21; the dealer over-draws and pays every
    player who has not (H13-9)."""
    shoe = ["TC", "5S", "6D", "QD", "7H", "TS", "9S", "8H", *PADDING]
    table, players = open_private(app, "hoyle-1913", {}, shoe)
    dan = players["Dan"]
    rid = app.start_round(table, actor=dan)["round_id"]
    app.place_stake(rid, players["Ann"], 500)
    app.place_stake(rid, players["Bob"], 1_000)
    app.act(rid, "stand", actor=players["Ann"], hand="h1")
    app.act(rid, "hit", actor=players["Bob"], hand="h2")
    app.act(rid, "dealer_draw", actor=dan)
    return Played(
        "hoyle-1913", table, rid, shoe, players, {"Ann": 500, "Bob": 1_000, "Dan": -1_500}
    )


def play_ochko(app: TwentyOneLedger) -> Played:
    """OC-7 Ann counts her ace 11 and draws to 21; Bob stands on 19; the banker draws to 20:
    OC-8 he pays the higher total one stake and takes the lower."""
    shoe = ["AH", "KC", "8S", "5C", "9H", "9D", "5H", "3C", *PADDING]
    table, players = open_private(app, "ochko", {}, shoe)
    dan = players["Dan"]
    rid = app.start_round(table, actor=dan)["round_id"]
    app.place_stake(rid, players["Ann"], 400)
    app.place_stake(rid, players["Bob"], 600)
    app.act(rid, "ace_value", actor=players["Ann"], hand="h1", index=0, value=11)
    app.act(rid, "hit", actor=players["Ann"], hand="h1")
    app.act(rid, "stand", actor=players["Bob"], hand="h2")
    app.act(rid, "dealer_draw", actor=dan)
    app.act(rid, "dealer_stand", actor=dan)
    return Played("ochko", table, rid, shoe, players, {"Ann": 400, "Bob": -600, "Dan": 200})


SCENARIOS: dict[str, Callable[[TwentyOneLedger], Played]] = {
    "casino": play_casino,
    "vingt-un": play_vingt_un,
    "hoyle-1913": play_hoyle,
    "ochko": play_ochko,
}


# --- checks -----------------------------------------------------------------------------------


def state(aggregate: Any) -> dict[str, Any]:
    return {
        k: v for k, v in aggregate.__dict__.items() if k not in ("_pending_events", "_rules_cache")
    }


def all_notifications(app: TwentyOneLedger) -> list[Any]:
    return list(app.recorder.select_notifications(start=1, limit=10**6))


def stream_ids(app: TwentyOneLedger) -> list[UUID]:
    return list(dict.fromkeys(n.originator_id for n in all_notifications(app)))


def check_books(app: TwentyOneLedger) -> dict[str, int]:
    balances = fold_balances(app)
    assert sum(balances.values()) == 0
    for account, balance in balances.items():
        if account.startswith("escrow:"):
            assert balance == 0, f"{account} still holds {balance}"
        if account.startswith("player:"):
            assert balance >= 0
            assert app.get_player(account.removeprefix("player:")).balance == balance
    for stream in stream_ids(app):
        ok, fault = verify_chain(app.events.get(stream))
        assert ok, fault
    return balances


def check_played(app: TwentyOneLedger, played: Played) -> None:
    rnd = app.get_round(played.round_id)
    assert rnd.ended and rnd.phase == "ended"
    by_player = {pid: name for name, pid in played.players.items()}
    for hand_id in rnd.order:
        hand = rnd.hands[hand_id]
        assert hand["settled"]
        assert hand["result"] == played.expected[by_player[hand["player"]]], (hand_id, hand)
    for name, pid in played.players.items():
        assert app.get_player(pid).balance == START + played.expected[name], name
    balances = fold_balances(app)
    assert balances.get(accounts.escrow(played.round_id), 0) == 0
    if played.house is not None:
        assert balances[accounts.house(played.table)] == played.house
    # every card came from the fixed shoe, in its order, each position once
    dealt = [e for e in app.events.get(UUID(played.round_id)) if isinstance(e, Round.CardDealt)]
    assert [e.shoe_index for e in dealt] == list(range(len(dealt)))
    assert [e.card for e in dealt] == played.shoe[: len(dealt)]
    assert app.get_table(played.table).current_round is None


def everything(app: TwentyOneLedger, played: list[Played]) -> dict[str, Any]:
    """What a reopened application must serve exactly as the first one did."""
    streams = stream_ids(app)
    return {
        "rounds": {p.round_id: state(app.get_round(p.round_id)) for p in played},
        "tables": {p.table: state(app.get_table(p.table)) for p in played},
        "players": {pid: state(app.get_player(pid)) for p in played for pid in p.players.values()},
        "balances": fold_balances(app),
        "log": [
            (n.id, n.originator_id, n.originator_version, n.topic, n.state)
            for n in all_notifications(app)
        ],
        "events": {s: list(app.events.get(s)) for s in streams},
    }


# --- scenarios --------------------------------------------------------------------------------


@pytest.mark.parametrize("family", list(SCENARIOS))
def test_a_full_round_with_a_fixed_shoe_pays_what_the_book_says(store_env, family):
    app = TwentyOneLedger(env=store_env)
    try:
        played = SCENARIOS[family](app)
        check_played(app, played)
        check_books(app)
    finally:
        app.close()


@pytest.mark.parametrize("store_env", PERSISTENT, indirect=True)
def test_a_new_application_reloads_everything_identically_and_plays_on(store_env):
    app = TwentyOneLedger(env=store_env)
    try:
        played = [scenario(app) for scenario in SCENARIOS.values()]
        saver = played[0].players["Ann"]
        for _ in range(60):  # past the snapshot interval of a player's stream
            app.deposit(saver, 1)
        before = everything(app, played)
        assert any(len(events) > 50 for events in before["events"].values())
    finally:
        app.close()

    reopened = TwentyOneLedger(env=store_env)
    try:
        after = everything(reopened, played)
        for part in ("log", "events", "balances", "players", "tables", "rounds"):
            assert after[part] == before[part], f"{part} reloaded differently"
        for p in played:
            assert reopened.get_player(p.players["Bob"]).balance == START + p.expected["Bob"]
        check_books(reopened)

        # the casino table deals on from the same fixed shoe: the next card is card 10
        casino = played[0]
        table = reopened.get_table(casino.table)
        assert table.shoe_next == 10
        rid = reopened.start_round(casino.table)["round_id"]
        for name in ("Ann", "Bob", "Cy"):
            reopened.place_stake(rid, casino.players[name], 1_000)
        for hand in ("h1", "h2", "h3"):  # 2C+3H, 3D+4S, 4H+7C against 2D+7D
            pid = reopened.get_round(rid).hands[hand]["player"]
            reopened.act(rid, "stand", actor=pid, hand=hand)
        rnd = reopened.get_round(rid)
        assert rnd.ended
        assert rnd.dealer_hand["cards"] == ["2D", "7D", "8C"]
        assert [rnd.hands[h]["result"] for h in ("h1", "h2", "h3")] == [-1_000] * 3
        dealt = [e for e in reopened.events.get(UUID(rid)) if isinstance(e, Round.CardDealt)]
        assert {e.shoe for e in dealt} == {table.shoe_id}
        assert [e.shoe_index for e in dealt] == list(range(10, 19))
        check_books(reopened)
    finally:
        reopened.close()


def test_rejected_commands_write_nothing(store_env):
    app = TwentyOneLedger(env=store_env)
    try:
        shoe = ["TC", "5S", "6D", "QD", "7H", "TS", "9S", "8H", *PADDING]
        table, players = open_private(app, "hoyle-1913", {"max_stake": 2_000}, shoe)
        dan, ann, bob = players["Dan"], players["Ann"], players["Bob"]
        rid = app.start_round(table, actor=dan)["round_id"]
        app.place_stake(rid, ann, 500)

        def snapshot() -> tuple:
            return (
                app.recorder.max_notification_id(),
                app.vault.recorder.max_notification_id(),
                state(app.get_round(rid)),
                state(app.get_table(table)),
                {pid: state(app.get_player(pid)) for pid in players.values()},
            )

        def refused(what: str, error: type[LedgerError], command: Callable[[], Any]) -> None:
            before = snapshot()
            with pytest.raises(error):
                command()
            assert snapshot() == before, f"refused '{what}' changed the store"

        # while Bob has yet to stake
        refused("stake above the limit", StakeOutOfLimits, lambda: app.place_stake(rid, bob, 2_001))
        refused("second stake", RuleViolation, lambda: app.place_stake(rid, ann, 500))
        refused(
            "hit before the deal", WrongPhase, lambda: app.act(rid, "hit", actor=ann, hand="h1")
        )
        refused(
            "dealer draws too early", WrongPhase, lambda: app.act(rid, "dealer_draw", actor=dan)
        )
        refused("round while one is open", WrongPhase, lambda: app.start_round(table, actor=dan))
        refused("withdraw more than held", InsufficientFunds, lambda: app.withdraw(bob, START + 1))
        refused("leave mid-round", WrongPhase, lambda: app.unseat_player(table, 3))
        refused(
            "unknown round",
            UnknownRound,
            lambda: app.act(str(UUID(int=7)), "hit", actor=ann, hand="h1"),
        )
        refused(
            "casino action here",
            RuleViolation,
            lambda: app.act(rid, "surrender", actor=ann, hand="h1"),
        )
        app.place_stake(rid, bob, 1_000)  # the deal is done and Ann is to play
        refused("late stake", WrongPhase, lambda: app.place_stake(rid, bob, 1_000))
        refused("out of turn", OutOfTurn, lambda: app.act(rid, "hit", actor=bob, hand="h2"))
        refused(
            "someone else's hand", NotPermitted, lambda: app.act(rid, "stand", actor=bob, hand="h1")
        )
        refused(
            "split without allow_split",
            RuleViolation,
            lambda: app.act(rid, "split", actor=ann, hand="h1"),
        )
        refused(
            "dealer stands during play", WrongPhase, lambda: app.act(rid, "dealer_stand", actor=dan)
        )

        # the round is intact: it plays to the end exactly as without the refusals
        app.act(rid, "stand", actor=ann, hand="h1")
        app.act(rid, "hit", actor=bob, hand="h2")
        app.act(rid, "dealer_draw", actor=dan)
        assert app.get_player(ann).balance == START + 500
        assert app.get_player(bob).balance == START + 1_000
        check_books(app)
    finally:
        app.close()


def test_a_refused_start_round_writes_nothing_and_keeps_the_queued_shoe(store_env):
    app = TwentyOneLedger(env=store_env)
    try:
        shoe = ["9C", "TD", "7S", *PADDING]
        table, players = open_private(app, "vingt-un", {"pool_ante": 50}, shoe)
        app.withdraw(players["Bob"], START)  # Bob cannot pay the ante

        def written() -> tuple:
            return app.recorder.max_notification_id(), app.vault.recorder.max_notification_id()

        before = written()
        with pytest.raises(InsufficientFunds):
            app.start_round(table, actor=players["Dan"])
        assert written() == before, "the refused start_round wrote to the ledger or the vault"
        assert app.get_table(table).shoe_id is None

        app.deposit(players["Bob"], 1_000)
        rid = app.start_round(table, actor=players["Dan"])["round_id"]
        rnd = app.get_round(rid)
        assert app.get_shoe(rnd.shoe_id).fixed, "the queued fixed shoe was lost"
        assert [rnd.hands[h]["cards"] for h in ("h1", "h2")] == [["9C"], ["TD"]]
        assert rnd.dealer_hand["cards"] == ["7S"]
        assert app.vault.recorder.max_notification_id() == (before[1] or 0) + 1  # one seal
    finally:
        app.close()


def test_casino_play_goes_on_after_insurance_when_the_dealer_has_no_blackjack(store_env):
    app = TwentyOneLedger(env=store_env)
    try:
        players = register(app, "casino", ["Ann", "Bob"])
        table = app.open_table("casino", {})["table_id"]
        app.seat_player(table, players["Ann"], 1)
        app.seat_player(table, players["Bob"], 2)
        # Ann T+9, Bob 8+8, dealer A up and 6 in the hole: no blackjack
        app.fix_next_shoe(table, ["TC", "8S", "AD", "9C", "8H", "6S", "TD", *PADDING])
        rid = app.start_round(table)["round_id"]
        app.place_stake(rid, players["Ann"], 1_000)
        app.place_stake(rid, players["Bob"], 1_000)
        assert app.get_round(rid).phase == "insurance"
        app.act(rid, "insurance", actor=players["Ann"], hand="h1", amount=500)
        app.act(rid, "insurance", actor=players["Bob"], hand="h2", amount=0)
        rnd = app.get_round(rid)
        assert rnd.hands["h1"]["insurance_result"] == -500  # CB-X-INSURANCE: lost
        assert rnd.phase == "play" and rnd.current_turn() == "h1"
        app.act(rid, "stand", actor=players["Ann"], hand="h1")
        app.act(rid, "stand", actor=players["Bob"], hand="h2")
        rnd = app.get_round(rid)  # the dealer stands on soft 17 (CB-8)
        assert rnd.ended
        assert rnd.dealer_hand["cards"] == ["AD", "6S"]
        assert app.get_player(players["Ann"]).balance == START - 500 + 1_000
        assert app.get_player(players["Bob"]).balance == START - 1_000
        check_books(app)
    finally:
        app.close()


def test_a_shoe_seed_stays_out_of_the_ledger_until_the_shoe_is_revealed(store_env):
    """SHUFFLE.md: the seed is committed before the first card and readable through no event
    before the reveal; once revealed it matches the commitment and every card dealt."""
    app = TwentyOneLedger(env={**store_env, "LEDGER_ALLOW_FIXED_SHOES": "false"})
    try:
        players = register(app, "casino", ["Ann", "Bob"])
        table = app.open_table("casino", {"decks": 1, "insurance": False, "penetration": 50})[
            "table_id"
        ]
        app.seat_player(table, players["Ann"], 1)
        app.seat_player(table, players["Bob"], 2)
        first_shoe, seed = None, None
        for _ in range(20):
            rid = app.start_round(table)["round_id"]
            shoe_id = app.get_table(table).shoe_id
            if first_shoe is None:
                first_shoe, seed = shoe_id, app.vault.open(shoe_id).server_seed
            elif shoe_id != first_shoe:
                break
            log = b"".join(n.state for n in all_notifications(app))
            assert seed.encode() not in log, "the secret seed is readable before the reveal"
            assert app.get_shoe(first_shoe).server_seed is None
            for pid in players.values():
                if app.get_round(rid).phase == "betting":
                    app.place_stake(rid, pid, 200)
            while not (rnd := app.get_round(rid)).ended:
                hand = rnd.current_turn()
                app.act(rid, "stand", actor=rnd.hands[hand]["player"], hand=hand)
        else:
            raise AssertionError("twenty rounds did not use up half a pack")

        shoe = app.get_shoe(first_shoe)
        assert shoe.revealed and shoe.server_seed == seed
        assert verify_seed(seed, shoe.commitment)
        revealed = [e for e in app.events.get(first_shoe) if isinstance(e, Shoe.Revealed)]
        assert len(revealed) == 1
        order = dealing_order(seed, shoe.client_seed, shoe.nonce, shoe.packs, shoe.cut_at)
        cards = [
            e
            for n in all_notifications(app)
            if isinstance(e := app.mapper.to_domain_event(n), (Round.CardDealt, Round.CardBurned))
            and e.shoe == first_shoe
        ]
        assert [e.shoe_index for e in cards] == list(range(len(cards)))
        assert [e.card for e in cards] == list(order[: len(cards)])
        assert revealed[0].cards_dealt == len(cards)
        check_books(app)
    finally:
        app.close()
