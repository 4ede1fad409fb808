"""Refused commands (issue, section 6): each raises the named domain error, cites the clause
that refused it where one applies, says what was wrong, and writes nothing at all: the
notification log (ids and stored states) is the same before and after."""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from copy import deepcopy
from dataclasses import dataclass

import pytest

from ledger.errors import (
    AlreadySeated,
    DrawLimitReached,
    HandClosed,
    InsufficientFunds,
    InvalidCommand,
    InvalidRules,
    LedgerError,
    NotAPair,
    NotPermitted,
    OutOfTurn,
    RuleViolation,
    StakeOutOfLimits,
    UnknownHand,
    UnknownPlayer,
    UnknownRound,
    UnknownSeat,
    UnknownTable,
    WrongPhase,
)

FAMILIES = ["casino", "hoyle-1913", "ochko", "vingt-un"]
PRIVATE = ["hoyle-1913", "ochko", "vingt-un"]
DRAW_CLAUSE = {"casino": "CB-7", "hoyle-1913": "H13-7", "ochko": "OC-6", "vingt-un": "VU-11"}
STAKE_CLAUSE = {"casino": "CB-1", "hoyle-1913": "H13-2", "ochko": "OC-3", "vingt-un": "VU-5"}
DEALER_CLAUSE = {"hoyle-1913": "H13-8", "ochko": "OC-6", "vingt-un": "VU-13"}
SPLIT_CLAUSE = {"casino": "CB-X-SPLIT", "hoyle-1913": "H13-3", "ochko": "OC-6", "vingt-un": "VU-19"}
START_CLAUSE = {"casino": "CB-1", "hoyle-1913": "H13-4", "ochko": "OC-2", "vingt-un": "VU-2"}

# Dealt in the same order by every family: h1, h2, dealer, h1, h2, dealer, then the draws.
# h1 = 2C 3D (5), h2 = 4C 2D (6), dealer 5S 4H (9): no natural, no pair. h1 draws KH, QH: 25.
CARDS = [
    "2C",
    "4C",
    "5S",
    "3D",
    "2D",
    "4H",
    "KH",
    "QH",
    "2H",
    "3S",
    "2S",
    "3C",
    "4S",
    "4D",
    "5C",
    "5D",
    "2H",
    "3H",
    "2D",
    "3C",
]


ANY_CLAUSE = object()  # for refusals whose clause the test does not pin down


def notifications(app) -> list[tuple]:
    return [
        (n.id, n.originator_id, n.originator_version, n.topic, n.state)
        for n in app.recorder.select_notifications(start=1, limit=10**6)
    ]


@contextmanager
def refused(app, error: type[LedgerError], clause, *words: str, round_id=None):
    """Expect ``error`` citing ``clause`` with ``words`` in its message, and no write at all."""
    before = notifications(app)
    state = _round_state(app, round_id)
    with pytest.raises(error) as info:
        yield info
    err = info.value
    if clause is not ANY_CLAUSE:
        assert err.clause == clause, f"clause {err.clause!r} != {clause!r}: {err}"
    for word in words:
        assert word.lower() in str(err).lower(), f"{word!r} not in {str(err)!r}"
    assert notifications(app) == before, "a refused command wrote to the store"
    assert _round_state(app, round_id) == state


def _round_state(app, round_id):
    if round_id is None:
        return None
    rnd = app.get_round(round_id)
    return rnd.version, rnd.phase, deepcopy(rnd.hands), deepcopy(rnd.dealer_hand), rnd.ended


@dataclass
class Game:
    app: object
    family: str
    table: str
    rid: str
    dealer: str | None  # None in the casino: the house deals
    ann: str  # seat holding h1
    bob: str  # seat holding h2

    @property
    def round(self):
        return self.app.get_round(self.rid)

    def act(self, action: str, actor: str, hand: str | None = None, **kw) -> dict:
        return self.app.act(self.rid, action, actor=actor, hand=hand, **kw)


@pytest.fixture
def game(app, fund):
    """A round of ``family`` with two players (and a dealer in the private games), stopped at
    ``stop``: "stakes" (no stake yet), "dealer_double" (Vingt-un) or "play"."""

    def make(
        family, options=None, cards=CARDS, stakes=(200, 200), stop="play", balance=1_000_000
    ) -> Game:
        table = app.open_table(family, options or {})["table_id"]
        dealer = None if family == "casino" else fund("Dealer", balance)
        ann, bob = fund("Ann", balance), fund("Bob", balance)
        for seat, pid in enumerate([p for p in (dealer, ann, bob) if p], start=1):
            app.seat_player(table, pid, seat)
        if dealer:
            app.choose_dealer(table, dealer)
        app.fix_next_shoe(table, cards)
        rid = app.start_round(table, actor=dealer or "admin")["round_id"]
        g = Game(app, family, table, rid, dealer, ann, bob)
        if stop == "stakes":
            return g
        for pid, stake in zip((ann, bob), stakes):
            app.place_stake(rid, pid, stake)
        if family == "vingt-un":
            if stop == "dealer_double":
                return g
            app.act(rid, "dealer_double", actor=dealer, called=False)
        assert g.round.phase == stop, g.round.phase
        return g

    return make


# -- out of turn -----------------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("action", ["hit", "stand"])
def test_acting_out_of_turn_is_refused(game, app, family, action):
    g = game(family)
    with refused(app, OutOfTurn, DRAW_CLAUSE[family], "h1", "h2", round_id=g.rid):
        g.act(action, g.bob, "h2")
    assert g.round.current_turn() == "h1"


def test_a_split_hand_waits_for_the_hand_before_it(game, app):
    cards = ["8S", "4C", "5S", "8D", "2D", "4H", "3C", "3S", *CARDS]
    g = game("casino", cards=cards)
    g.act("split", g.ann, "h1")  # h3 waits for h1
    with refused(app, OutOfTurn, "CB-7", "h1", "h3", round_id=g.rid):
        g.act("hit", g.ann, "h3")


# -- wrong phase -------------------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_a_stake_during_play_is_refused(game, app, family):
    g = game(family)
    with refused(app, WrongPhase, STAKE_CLAUSE[family], "play", round_id=g.rid):
        app.place_stake(g.rid, g.ann, 200)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_draw_before_the_stakes_are_down_is_refused(game, app, family):
    g = game(family, stop="stakes")
    phase = g.round.phase  # "betting", or "staking" on the first card in Vingt-un
    with refused(app, WrongPhase, DRAW_CLAUSE[family], phase, round_id=g.rid):
        g.act("hit", g.ann, "h1")


@pytest.mark.parametrize("family", FAMILIES)
def test_a_second_round_while_one_is_in_play_is_refused(game, app, family):
    g = game(family)
    with refused(app, WrongPhase, START_CLAUSE[family], "still in play", round_id=g.rid):
        app.start_round(g.table, actor=g.dealer or "admin")


@pytest.mark.parametrize("family", PRIVATE)
def test_the_dealer_draws_only_after_the_players(game, app, family):
    g = game(family)
    with refused(app, WrongPhase, DEALER_CLAUSE[family], "play", round_id=g.rid):
        g.act("dealer_draw", g.dealer)


def test_vingt_un_dealer_double_only_after_the_stakes_on_the_first_card(game, app):
    g = game("vingt-un", stop="stakes")
    with refused(app, WrongPhase, "VU-6", "double", round_id=g.rid):
        g.act("dealer_double", g.dealer, called=True)


def test_insurance_outside_the_insurance_phase_is_refused(game, app):
    g = game("casino")  # the dealer shows a five
    with refused(app, WrongPhase, "CB-X-INSURANCE", "ace", round_id=g.rid):
        g.act("insurance", g.ann, "h1", amount=100)


def test_a_command_on_an_ended_round_is_refused(game, app):
    g = game("casino")
    g.act("stand", g.ann, "h1")
    g.act("stand", g.bob, "h2")
    assert g.round.ended
    with refused(app, WrongPhase, None, g.rid, "over", round_id=g.rid):
        g.act("hit", g.bob, "h2")


@pytest.mark.parametrize("family", ["casino", "vingt-un"])
def test_nobody_leaves_the_table_during_a_round(game, app, family):
    g = game(family)
    seat = app.get_table(g.table).seat_of(g.bob)
    with refused(app, WrongPhase, None, "during a round", round_id=g.rid):
        app.unseat_player(g.table, seat)


def test_the_dealer_is_not_chosen_during_a_round(game, app):
    g = game("vingt-un")
    with refused(app, WrongPhase, "VU-2", "between rounds", round_id=g.rid):
        app.choose_dealer(g.table, g.ann)


# -- stakes outside the limits -------------------------------------------------------------


@pytest.mark.parametrize(
    ("family", "options", "stakes", "clause", "words"),
    [
        ("casino", {}, (199,), "CB-1", ("199", "200..50000")),
        ("casino", {}, (50_001,), "CB-1", ("50001", "200..50000")),
        ("vingt-un", {}, (99,), "VU-5", ("99", "100..10000")),
        ("vingt-un", {}, (10_001,), "VU-5", ("10001", "100..10000")),
        ("hoyle-1913", {"max_stake": 500}, (501,), "H13-2", ("501", "100..500")),
        ("hoyle-1913", {"fixed_bet": 200}, (300,), "H13-2", ("fixed", "200", "300")),
        ("ochko", {"min_stake": 150}, (100,), "OC-3", ("100", "150..10000")),
        ("ochko", {"bank_cap": 300}, (200, 200), "OC-3", ("300", "400")),
    ],
    ids=[
        "casino-low",
        "casino-high",
        "vu-low",
        "vu-high",
        "hoyle-high",
        "hoyle-fixed",
        "ochko-low",
        "ochko-bank-cap",
    ],
)
def test_a_stake_outside_the_limits_is_refused(game, app, family, options, stakes, clause, words):
    g = game(family, options, stop="stakes")
    players = (g.ann, g.bob)
    for pid, amount in zip(players, stakes[:-1]):
        app.place_stake(g.rid, pid, amount)
    last = players[len(stakes) - 1]
    wallet = app.get_player(last).balance
    with refused(app, StakeOutOfLimits, clause, *words, round_id=g.rid):
        app.place_stake(g.rid, last, stakes[-1])
    assert app.get_player(last).balance == wallet


@pytest.mark.parametrize("amount", [0, -200, 200.0, True, "200"])
def test_a_stake_must_be_a_positive_whole_number(game, app, amount):
    g = game("casino", stop="stakes")
    with refused(app, InvalidCommand, None, "positive whole number", round_id=g.rid):
        app.place_stake(g.rid, g.ann, amount)


def test_a_player_without_a_hand_in_the_round_cannot_stake(game, app, fund):
    g = game("casino", stop="stakes")
    stranger = fund("Stranger")
    with refused(app, NotPermitted, "CB-1", stranger, "no hand", round_id=g.rid):
        app.place_stake(g.rid, stranger, 200)


def test_a_player_stakes_once(game, app):
    g = game("casino", stop="stakes")
    app.place_stake(g.rid, g.ann, 200)
    with refused(app, RuleViolation, "CB-1", "already staked", round_id=g.rid):
        app.place_stake(g.rid, g.ann, 300)


# -- splitting a non-pair -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("family", "options", "h1", "clause", "words"),
    [
        ("casino", {}, ("TH", "9C"), "CB-X-SPLIT", ("TH", "9C", "not a pair")),
        ("vingt-un", {}, ("KH", "QH"), "VU-18", ("KH", "QH", "king and a queen")),
        ("hoyle-1913", {"allow_split": True}, ("KH", "QH"), "H13-3", ("KH", "QH")),
    ],
)
def test_splitting_a_non_pair_is_refused(game, app, family, options, h1, clause, words):
    cards = [h1[0], "4C", "5S", h1[1], "2D", "4H", *CARDS]
    g = game(family, options, cards=cards)
    with refused(app, NotAPair, clause, *words, round_id=g.rid):
        g.act("split", g.ann, "h1")
    assert len(g.round.hands) == 2


def test_a_pair_after_drawing_is_not_split(game, app):
    cards = ["2C", "4C", "5S", "3D", "2D", "4H", "2H", *CARDS]  # h1 2C 3D, draws 2H
    g = game("casino", cards=cards)
    g.act("hit", g.ann, "h1")
    with refused(app, NotAPair, "CB-X-SPLIT", "first two cards", round_id=g.rid):
        g.act("split", g.ann, "h1")


@pytest.mark.parametrize(
    ("family", "options", "clause", "words"),
    [("hoyle-1913", {}, "H13-3", ("allow_split",)), ("ochko", {}, "OC-6", ("no splitting",))],
)
def test_splitting_where_the_book_allows_none_is_refused(game, app, family, options, clause, words):
    cards = ["8H", "4C", "5S", "8D", "2D", "4H", *CARDS]
    g = game(family, options, cards=cards)
    with refused(app, RuleViolation, clause, *words, round_id=g.rid):
        g.act("split", g.ann, "h1")


# -- drawing after a bust or a stand --------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_a_draw_after_standing_is_refused(game, app, family):
    g = game(family)
    g.act("stand", g.ann, "h1")
    with refused(app, HandClosed, DRAW_CLAUSE[family], "h1", "stood", round_id=g.rid):
        g.act("hit", g.ann, "h1")
    assert g.round.hands["h1"]["cards"] == ["2C", "3D"]


@pytest.mark.parametrize("family", FAMILIES)
def test_a_draw_after_a_bust_is_refused(game, app, family):
    g = game(family)
    g.act("hit", g.ann, "h1")
    g.act("hit", g.ann, "h1")  # 25
    assert g.round.hands["h1"]["settled"] and g.round.current_turn() == "h2"
    with refused(app, HandClosed, DRAW_CLAUSE[family], "h1", round_id=g.rid):
        g.act("hit", g.ann, "h1")
    assert g.round.hands["h1"]["cards"] == ["2C", "3D", "KH", "QH"]


# -- Очко: at most three cards drawn -----------------------------------------------------------

# h1 = 2C 3D draws 2H 3S 2S (12); h2 = 4C 2D; the banker 5S 4H draws 3C 4S 2D (18).
OCHKO_SMALL = [
    "2C",
    "4C",
    "5S",
    "3D",
    "2D",
    "4H",
    "2H",
    "3S",
    "2S",
    "3C",
    "4S",
    "2D",
    "5C",
    "5D",
    "4D",
    "2H",
]


def test_ochko_a_punters_fourth_draw_is_refused(game, app):
    g = game("ochko", cards=OCHKO_SMALL)
    for _ in range(3):
        g.act("hit", g.ann, "h1")
    assert g.round.hands["h1"]["draws"] == 3
    with refused(app, DrawLimitReached, "OC-6", "3", round_id=g.rid):
        g.act("hit", g.ann, "h1")
    assert len(g.round.hands["h1"]["cards"]) == 5


def test_ochko_after_three_draws_the_punters_turn_is_over(game, app):
    g = game("ochko", cards=OCHKO_SMALL)
    for _ in range(3):
        g.act("hit", g.ann, "h1")
    rnd = g.round
    assert rnd.hands["h1"]["cards"] == ["2C", "3D", "2H", "3S", "2S"]
    assert rnd.hands["h1"]["status"] == "stood" and rnd.current_turn() == "h2"
    with pytest.raises(RuleViolation) as info:  # whichever refusal: never a fourth card
        g.act("hit", g.ann, "h1")
    assert info.value.clause == "OC-6"
    assert g.round.hands["h1"]["cards"] == ["2C", "3D", "2H", "3S", "2S"]


def test_ochko_the_bankers_fourth_draw_is_refused(game, app):
    g = game("ochko", cards=OCHKO_SMALL[:6] + ["3C", "4S", "2D", "5C", "5D"])
    g.act("stand", g.ann, "h1")
    g.act("stand", g.bob, "h2")
    assert g.round.phase == "dealer"
    for _ in range(3):
        g.act("dealer_draw", g.dealer)
    assert g.round.dealer_hand["cards"] == ["5S", "4H", "3C", "4S", "2D"]
    with refused(app, DrawLimitReached, "OC-6", "3", round_id=g.rid):
        g.act("dealer_draw", g.dealer)


# -- unknown table, round, hand, player, seat ---------------------------------------------------


def test_an_unknown_table_is_refused(app, fund):
    pid = fund("Ann")
    missing = str(uuid.uuid4())
    with refused(app, UnknownTable, None, missing):
        app.seat_player(missing, pid, 1)
    with refused(app, UnknownTable, None, missing):
        app.start_round(missing)
    with refused(app, UnknownTable, None, "not-a-table", "not a valid id"):
        app.start_round("not-a-table")
    with refused(app, UnknownTable, None, pid):  # a player's id is not a table's
        app.start_round(pid)


def test_an_unknown_round_is_refused(game, app):
    g = game("casino")
    missing = str(uuid.uuid4())
    with refused(app, UnknownRound, None, missing):
        app.act(missing, "hit", actor=g.ann, hand="h1")
    with refused(app, UnknownRound, None, missing):
        app.place_stake(missing, g.ann, 200)
    with refused(app, UnknownRound, None, g.table):  # a table's id is not a round's
        app.act(g.table, "stand", actor=g.ann, hand="h1")


@pytest.mark.parametrize("family", FAMILIES)
def test_an_unknown_hand_is_refused(game, app, family):
    g = game(family)
    with refused(app, UnknownHand, None, "h9", round_id=g.rid):
        g.act("hit", g.ann, "h9")


def test_an_unknown_player_is_refused(app):
    table = app.open_table("casino")["table_id"]
    missing = str(uuid.uuid4())
    with refused(app, UnknownPlayer, None, missing):
        app.deposit(missing, 1_000)
    with refused(app, UnknownPlayer, None, missing):
        app.withdraw(missing, 1_000)
    with refused(app, UnknownPlayer, None, missing):
        app.seat_player(table, missing, 1)
    with refused(app, UnknownPlayer, None, table):  # a table's id is not a player's
        app.deposit(table, 1_000)


@pytest.mark.parametrize("seat", [0, 8, -1])
def test_a_seat_outside_the_table_is_refused(app, fund, seat):
    table = app.open_table("casino")["table_id"]  # max_players 7
    pid = fund("Ann")
    with refused(app, InvalidCommand, None, str(seat), "1 to 7"):
        app.seat_player(table, pid, seat)


def test_unseating_an_empty_seat_is_refused(app, fund):
    table = app.open_table("casino")["table_id"]
    app.seat_player(table, fund("Ann"), 1)
    with refused(app, UnknownSeat, None, "seat 2"):
        app.unseat_player(table, 2)


# -- money -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("family", "balance", "needed"),
    [
        ("casino", 250, 300),
        ("hoyle-1913", 500, 600),
        ("vingt-un", 1_000, 1_200),
        ("ochko", 250, 300),
    ],
)
def test_a_stake_beyond_the_balance_is_refused(game, app, family, balance, needed):
    g = game(family, stop="stakes", balance=balance)  # the hold is the family's worst case
    with refused(
        app, InsufficientFunds, STAKE_CLAUSE[family], str(needed), str(balance), round_id=g.rid
    ) as info:
        app.place_stake(g.rid, g.ann, 300)
    assert info.value.details == {"needed": needed, "balance": balance}
    assert app.get_player(g.ann).balance == balance


def test_a_withdrawal_beyond_the_balance_is_refused(app, fund):
    pid = fund("Ann", 1_000)
    with refused(app, InsufficientFunds, "L-CASH-OUT", "1001", "1000") as info:
        app.withdraw(pid, 1_001)
    assert info.value.details == {"needed": 1_001, "balance": 1_000}
    assert app.get_player(pid).balance == 1_000


def test_a_split_beyond_the_balance_is_refused(game, app):
    cards = ["8H", "4C", "5S", "8D", "2D", "4H", *CARDS]
    g = game("casino", cards=cards, balance=300)
    with refused(app, InsufficientFunds, "CB-X-SPLIT", "200", "100", round_id=g.rid):
        g.act("split", g.ann, "h1")


# -- seats ---------------------------------------------------------------------------------------


def test_a_player_sits_once_at_a_table(app, fund):
    table = app.open_table("casino")["table_id"]
    ann = fund("Ann")
    app.seat_player(table, ann, 1)
    with refused(app, AlreadySeated, None, ann, "already"):
        app.seat_player(table, ann, 2)
    with refused(app, AlreadySeated, None, ann, "already"):
        app.seat_player(table, ann, 1)


def test_a_taken_seat_is_refused(app, fund):
    table = app.open_table("casino")["table_id"]
    app.seat_player(table, fund("Ann"), 3)
    bob = fund("Bob")
    with refused(app, AlreadySeated, None, "seat 3", "taken"):
        app.seat_player(table, bob, 3)


# -- rules at open_table ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("family", "options", "option"),
    [
        ("casino", {"bogus": 1}, "bogus"),
        ("casino", {"decks": 9}, "decks"),
        ("casino", {"decks": "six"}, "decks"),
        ("casino", {"soft17": "sometimes"}, "soft17"),
        ("casino", {"blackjack_payout": "2:1"}, "blackjack_payout"),
        ("casino", {"double_on": "8-11"}, "double_on"),
        ("casino", {"max_split_hands": 5}, "max_split_hands"),
        ("casino", {"insurance": "yes"}, "insurance"),
        ("casino", {"penetration": 95}, "penetration"),
        ("casino", {"rounding": "bankers"}, "rounding"),
        ("casino", {"min_stake": 0}, "min_stake"),
        ("casino", {"min_stake": 500, "max_stake": 400}, "max_stake"),
        ("vingt-un", {"deal_limit": "forever"}, "deal_limit"),
        ("vingt-un", {"deal_limit": "hands"}, "deal_hands"),
        ("vingt-un", {"pool_ante": -5}, "pool_ante"),
        ("vingt-un", {"soft17": "hit"}, "soft17"),  # a casino option at a Vingt-un table
        ("hoyle-1913", {"deal_passes": "sometimes"}, "deal_passes"),
        ("hoyle-1913", {"fixed_bet": 50_000}, "fixed_bet"),
        ("ochko", {"bank_cap": 50}, "bank_cap"),
        ("ochko", {"credit": 1}, "credit"),
        ("baccarat", {}, "family"),
    ],
)
def test_a_bad_rule_option_is_refused_naming_the_option(app, family, options, option):
    with refused(app, InvalidRules, None, option) as info:
        app.open_table(family, options)
    assert info.value.details.get("option") == option


# -- dealer commands by a non-dealer --------------------------------------------------------


@pytest.mark.parametrize("family", PRIVATE)
@pytest.mark.parametrize("action", ["dealer_draw", "dealer_stand"])
def test_a_player_cannot_draw_or_stand_for_the_dealer(game, app, family, action):
    g = game(family)
    g.act("stand", g.ann, "h1")
    g.act("stand", g.bob, "h2")
    assert g.round.phase == "dealer"
    for actor in (g.ann, "admin"):
        with refused(app, NotPermitted, DEALER_CLAUSE[family], "only the dealer", round_id=g.rid):
            g.act(action, actor)


def test_vingt_un_only_the_dealer_calls_double(game, app):
    g = game("vingt-un", stop="dealer_double")
    with refused(app, NotPermitted, "VU-6", "only the dealer", round_id=g.rid):
        g.act("dealer_double", g.ann, called=True)


def test_ochko_only_the_banker_values_the_bankers_ace(game, app):
    cards = ["2C", "4C", "AS", "3D", "2D", "4H", *CARDS]
    g = game("ochko", cards=cards)
    g.act("stand", g.ann, "h1")
    g.act("stand", g.bob, "h2")
    with refused(app, NotPermitted, "OC-7", "only the dealer", round_id=g.rid):
        app.act(g.rid, "ace_value", actor=g.ann, index=0, value=1)


@pytest.mark.parametrize("family", PRIVATE)
def test_only_the_dealer_starts_a_round(app, fund, family):
    table = app.open_table(family)["table_id"]
    dealer, ann = fund("Dealer"), fund("Ann")
    app.seat_player(table, dealer, 1)
    app.seat_player(table, ann, 2)
    app.choose_dealer(table, dealer)
    with refused(app, NotPermitted, START_CLAUSE[family], "dealer"):
        app.start_round(table, actor=ann)


def test_the_casino_dealer_takes_no_orders(game, app):
    g = game("casino")
    with refused(app, RuleViolation, "CB-9", "automatic", round_id=g.rid):
        g.act("dealer_draw", g.ann)


# -- a player acting on another player's hand ---------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("action", ["hit", "stand", "split"])
def test_a_player_cannot_act_on_another_players_hand(game, app, family, action):
    options = {"allow_split": True} if family == "hoyle-1913" else {}
    g = game(family, options)
    clause = SPLIT_CLAUSE[family] if action == "split" else DRAW_CLAUSE[family]
    with refused(app, NotPermitted, clause, "h1", "another player", round_id=g.rid):
        g.act(action, g.bob, "h1")


@pytest.mark.parametrize("action", ["double_down", "surrender"])
def test_a_player_cannot_double_or_surrender_another_players_hand(game, app, action):
    g = game("casino", {"late_surrender": True})
    clause = {"double_down": "CB-X-DOUBLE", "surrender": "CB-X-SURRENDER"}[action]
    with refused(app, NotPermitted, clause, "h1", "another player", round_id=g.rid):
        g.act(action, g.bob, "h1")


def test_a_player_cannot_insure_another_players_hand(game, app):
    cards = ["TH", "9D", "AH", "9S", "9C", "7C", *CARDS]  # the dealer shows an ace
    g = game("casino", cards=cards, stop="insurance")
    with refused(app, NotPermitted, "CB-X-INSURANCE", "h1", "another player", round_id=g.rid):
        g.act("insurance", g.bob, "h1", amount=100)


def test_ochko_a_punter_cannot_value_another_punters_ace(game, app):
    cards = ["AS", "4C", "5S", "3D", "2D", "4H", *CARDS]  # h1 holds an ace
    g = game("ochko", cards=cards)
    with refused(app, NotPermitted, "OC-7", "h1", "another player", round_id=g.rid):
        g.act("ace_value", g.bob, "h1", index=0, value=1)


def test_a_player_cannot_stake_another_players_money(game, app):
    g = game("casino", stop="stakes")
    wallet = app.get_player(g.ann).balance
    # The clause is left open: the refusal is about who acts, not a rule of the book.
    with refused(app, NotPermitted, ANY_CLAUSE, "own", round_id=g.rid) as info:
        app.place_stake(g.rid, g.ann, 200, actor=g.bob)
    assert info.value.clause in (None, "CB-1")
    assert app.get_player(g.ann).balance == wallet


# -- text a person typed (ledger/text.py) ------------------------------------------------------


@pytest.mark.parametrize("name", ["\ud800", "Ann\x00", "\u200b", "  ", "", "x" * 101, 7])
def test_a_player_name_that_is_not_visible_text_is_refused(app, name):
    with refused(app, InvalidCommand, None, "a player's name"):
        app.register_player(name)


@pytest.mark.parametrize("name", ["\udfff", "Main\nroom", "\u3164"])
def test_a_table_name_that_is_not_visible_text_is_refused(app, name):
    with refused(app, InvalidCommand, None, "a table's name"):
        app.open_table("casino", {}, name=name)


def test_a_client_seed_with_a_lone_surrogate_is_refused_before_anything_is_hashed(app):
    with refused(app, InvalidRules, None, "client_seed", "lone surrogate"):
        app.open_table("casino", {"client_seed": "\ud800"})


def test_a_pool_payout_reason_that_is_not_text_is_refused(app, fund):
    tid = app.open_table("vingt-un", {"pool_ante": 10})["table_id"]
    ann = fund("Ann")
    with refused(app, InvalidCommand, None, "reason", "VU-28"):
        app.pay_from_pool(tid, ann, 1, "\ud800")
