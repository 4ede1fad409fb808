"""Casino Blackjack, clause by clause (RULES.md CB-1..CB-9) and the usual table options the
ledger cites as CB-X-…: double down, split, insurance, late surrender, H17 and 6:5.

Every scenario deals from a fixed shoe and checks the money to the minor unit: the hand's
``result``, the ``HandSettled`` event (outcome, multiplier, clauses, rounding), each wallet
before and after the round, the house account of the table, an empty escrow and books that
sum to zero.

A fixed shoe deals in the order of CB-2: one card to each hand, the dealer's up card, a second
card to each hand, the dealer's hole card; then every card drawn, in the order of play. The
shoe ends with ``SPARE`` cards that no scenario should reach: every test asserts the dealer's
exact cards, so a card drawn too many shows up.
"""

from __future__ import annotations

from contextlib import contextmanager
from uuid import UUID

import pytest

from ledger.balances import fold_balances
from ledger.domain.round import Round
from ledger.errors import (
    HandClosed,
    InsufficientFunds,
    InvalidCommand,
    NotAPair,
    RuleViolation,
    StakeOutOfLimits,
    WrongPhase,
)

SPARE = ["KS"] * 10  # never reached by a correct ledger in these scenarios


class CasinoTable:
    """A casino table with players already seated, dealing from a fixed shoe."""

    def __init__(self, app, fund, options=None, players=1, balance=1_000_000):
        self.app = app
        self.id = app.open_table("casino", options or {})["table_id"]
        self.house = f"house:{self.id}"
        self.players = [fund(f"Player {i}", balance) for i in range(1, players + 1)]
        for seat, pid in enumerate(self.players, start=1):
            app.seat_player(self.id, pid, seat)
        self.rid: str | None = None

    # -- playing ----------------------------------------------------------------------------

    def deal(self, cards: list[str], *stakes: int) -> str:
        """Fix the shoe, open a round and place one stake per player (the deal follows)."""
        assert len(stakes) == len(self.players)
        self.app.fix_next_shoe(self.id, list(cards) + SPARE)
        self.wallets_before = {pid: self.balance(pid) for pid in self.players}
        self.house_before = fold_balances(self.app).get(self.house, 0)
        self.rid = self.app.start_round(self.id)["round_id"]
        for pid, stake in zip(self.players, stakes):
            self.app.place_stake(self.rid, pid, stake)
        return self.rid

    def act(self, action: str, hand: str = "h1", player: int = 0, **kw) -> dict:
        return self.app.act(self.rid, action, actor=self.players[player], hand=hand, **kw)

    # -- reading ----------------------------------------------------------------------------

    @property
    def round(self) -> Round:
        return self.app.get_round(self.rid)

    def balance(self, pid: str) -> int:
        return self.app.get_player(pid).balance

    def events(self, kind: type | tuple[type, ...]) -> list:
        return [e for e in self.app.events.get(UUID(self.rid)) if isinstance(e, kind)]

    def settled(self, hand: str) -> Round.HandSettled:
        found = [e for e in self.events(Round.HandSettled) if e.hand == hand]
        assert len(found) == 1, f"hand {hand} settled {len(found)} times"
        return found[0]

    def dealer_cards(self) -> list[str]:
        return self.round.dealer_hand["cards"]

    # -- the money --------------------------------------------------------------------------

    def assert_money(self, *nets: int) -> None:
        """The round is over; each player's wallet moved by ``nets[i]``; the house by the rest."""
        rnd = self.round
        assert rnd.ended and rnd.phase == "ended"
        for pid, net in zip(self.players, nets, strict=True):
            assert self.balance(pid) - self.wallets_before[pid] == net, pid
            hand_results = sum(h["result"] for h in rnd.hands_of(pid))
            insurance = sum(h.get("insurance_result", 0) for h in rnd.hands_of(pid))
            assert hand_results + insurance == net, "hand results disagree with the wallet"
        books = fold_balances(self.app)
        assert books.get(self.house, 0) - self.house_before == -sum(nets)
        assert books.get(f"escrow:{self.rid}", 0) == 0
        assert sum(books.values()) == 0
        for pid in self.players:
            assert books[f"player:{pid}"] == self.balance(pid)


def assert_settled(event, *, outcome, amount, multiplier, clauses, stake=None, rounding="none"):
    assert event.outcome == outcome
    assert event.amount == amount
    assert event.multiplier == multiplier
    assert event.clauses == clauses
    if stake is not None:
        assert event.stake == stake
    if rounding == "none":
        assert event.rounding == "none"
    else:  # (mode, net): the record names the mode and the whole-unit result it produced
        mode, net = rounding
        assert event.rounding.split(":")[0].strip() == mode, event.rounding
        assert event.rounding.rstrip().endswith(str(net)), event.rounding


def notifications(app) -> list[tuple]:
    return [
        (n.id, n.originator_id, n.originator_version, n.topic, n.state)
        for n in app.recorder.select_notifications(start=1, limit=10**6)
    ]


@contextmanager
def refused(app, error: type, clause: str | None, *words: str):
    """The command raises ``error`` citing ``clause``, its message names ``words``, and the
    store is exactly as it was."""
    before = notifications(app)
    with pytest.raises(error) as info:
        yield info
    assert info.value.clause == clause, str(info.value)
    for word in words:
        assert word.lower() in str(info.value).lower(), str(info.value)
    assert notifications(app) == before


@pytest.fixture
def table(app, fund):
    def make(options=None, players=1, balance=1_000_000) -> CasinoTable:
        return CasinoTable(app, fund, options, players, balance)

    return make


# == CB-1: bets before the deal, between the limits =========================================


def test_CB_1_bets_within_the_limits_are_taken_before_the_deal(table, app):
    t = table(players=2)  # default limits: 200 .. 50 000 minor units ("$2 to $500")
    app.fix_next_shoe(t.id, ["9H", "TD", "7C", "TH", "9S", "KD", *SPARE])
    before = [t.balance(p) for p in t.players]
    house_before = fold_balances(app).get(t.house, 0)
    t.wallets_before, t.house_before = dict(zip(t.players, before)), house_before
    t.rid = app.start_round(t.id)["round_id"]
    assert t.round.phase == "betting"

    app.place_stake(t.rid, t.players[0], 200)  # the minimum
    rnd = t.round
    assert rnd.phase == "betting"  # no card before every bet is down
    assert rnd.hands["h1"]["cards"] == [] and rnd.dealer_hand["cards"] == []
    assert t.balance(t.players[0]) == before[0] - 200
    stake = t.events(Round.StakePlaced)[0]
    assert (stake.hand, stake.amount, stake.clause) == ("h1", 200, "CB-1")

    app.place_stake(t.rid, t.players[1], 50_000)  # the maximum; the deal follows
    assert t.round.phase == "play"
    t.act("stand", "h1", 0)
    t.act("stand", "h2", 1)
    assert t.dealer_cards() == ["7C", "KD"]
    assert t.settled("h1").amount == 200 and t.settled("h2").amount == 50_000
    t.assert_money(200, 50_000)


@pytest.mark.parametrize(
    ("options", "amount", "limits"),
    [
        ({}, 199, "200..50000"),
        ({}, 50_001, "200..50000"),
        ({"min_stake": 500, "max_stake": 1_000}, 499, "500..1000"),
        ({"min_stake": 500, "max_stake": 1_000}, 1_001, "500..1000"),
    ],
)
def test_CB_1_a_bet_outside_the_limits_is_refused(table, app, options, amount, limits):
    t = table(options)
    app.fix_next_shoe(t.id, ["9H", "7C", "TH", "KD", *SPARE])
    rid = app.start_round(t.id)["round_id"]
    wallet = t.balance(t.players[0])
    with refused(app, StakeOutOfLimits, "CB-1", str(amount), limits):
        app.place_stake(rid, t.players[0], amount)
    assert t.balance(t.players[0]) == wallet
    assert app.get_round(rid).phase == "betting"


# == CB-2: the deal ==========================================================================


def test_CB_2_one_card_to_each_player_then_the_dealer_up_then_second_cards_and_hole(table):
    t = table(players=2)
    t.deal(["9H", "TD", "7C", "TH", "9S", "KD"], 200, 300)

    dealt = [(e.hand, e.card, e.face_up, e.shoe_index, e.clause) for e in t.events(Round.CardDealt)]
    assert dealt == [
        ("h1", "9H", True, 0, "CB-2"),
        ("h2", "TD", True, 1, "CB-2"),
        ("dealer", "7C", True, 2, "CB-2"),
        ("h1", "TH", True, 3, "CB-2"),
        ("h2", "9S", True, 4, "CB-2"),
        ("dealer", "KD", False, 5, "CB-2"),  # the hole card, face down
    ]
    rnd = t.round
    assert rnd.dealer_hand["face_up"] == [True, False]
    assert rnd.hands["h1"]["face_up"] == [True, True]
    assert rnd.current_turn() == "h1"

    t.act("stand", "h1", 0)
    t.act("stand", "h2", 1)
    assert t.round.dealer_hand["face_up"] == [True, True]  # turned up after the players (CB-8)
    assert_settled(t.settled("h1"), outcome="won", amount=200, multiplier="1", clauses=["CB-8"])
    assert_settled(t.settled("h2"), outcome="won", amount=300, multiplier="1", clauses=["CB-8"])
    t.assert_money(200, 300)


# == CB-3: what a blackjack is ================================================================


@pytest.mark.parametrize(
    ("first", "second"), [("AS", "TH"), ("AS", "JH"), ("QD", "AC"), ("KC", "AD")]
)
def test_CB_3_an_ace_and_a_ten_card_as_the_first_two_cards_are_a_blackjack(table, first, second):
    t = table()
    t.deal([first, "9C", second, "7D"], 200)

    naturals = t.events(Round.NaturalDeclared)
    assert [(e.hand, e.clause) for e in naturals] == [("h1", "CB-3")]
    assert t.round.hands["h1"]["outcome"] == "blackjack"
    assert t.dealer_cards() == ["9C", "7D"]  # nothing left to play for: the dealer draws nothing
    assert_settled(
        t.settled("h1"), outcome="blackjack", amount=300, multiplier="3/2", clauses=["CB-4"]
    )
    t.assert_money(300)


def test_CB_3_twenty_one_in_three_cards_is_not_a_blackjack(table):
    t = table()
    t.deal(["5H", "9C", "6C", "8D", "TD"], 200)

    t.act("hit")  # 21 in three cards: stands by itself, paid even money
    assert t.round.hands["h1"]["cards"] == ["5H", "6C", "TD"]
    assert t.events(Round.NaturalDeclared) == []
    assert t.dealer_cards() == ["9C", "8D"]
    assert_settled(t.settled("h1"), outcome="won", amount=200, multiplier="1", clauses=["CB-8"])
    t.assert_money(200)


def test_CB_3_an_ace_and_a_ten_card_on_a_split_hand_is_not_a_blackjack(table):
    t = table()
    t.deal(["AS", "9C", "AD", "8D", "KH", "5C"], 200)

    assert t.act("split")["new_hand"] == "h2"
    rnd = t.round
    assert rnd.hands["h1"]["cards"] == ["AS", "KH"] and rnd.hands["h2"]["cards"] == ["AD", "5C"]
    assert t.events(Round.NaturalDeclared) == []
    assert t.dealer_cards() == ["9C", "8D"]
    assert_settled(t.settled("h1"), outcome="won", amount=200, multiplier="1", clauses=["CB-8"])
    assert_settled(t.settled("h2"), outcome="lost", amount=-200, multiplier="-1", clauses=["CB-8"])
    t.assert_money(0)


# == CB-4: player blackjack, dealer none: 3:2 at once ==========================================


def test_CB_4_a_player_blackjack_is_paid_three_to_two_at_once(table):
    t = table(players=2)
    t.deal(["AS", "TD", "9C", "KH", "8S", "8D"], 200, 200)

    rnd = t.round  # h1 is paid before h2 has played
    assert rnd.phase == "play" and rnd.current_turn() == "h2"
    assert rnd.hands["h1"]["settled"] and rnd.hands["h1"]["result"] == 300
    assert t.balance(t.players[0]) - t.wallets_before[t.players[0]] == 300
    assert_settled(
        t.settled("h1"),
        outcome="blackjack",
        amount=300,
        multiplier="3/2",
        clauses=["CB-4"],
        stake=200,
    )

    t.act("stand", "h2", 1)
    assert t.dealer_cards() == ["9C", "8D"]
    assert_settled(t.settled("h2"), outcome="won", amount=200, multiplier="1", clauses=["CB-8"])
    t.assert_money(300, 200)


@pytest.mark.parametrize(
    ("rounding", "bet", "paid"),
    [
        (None, 205, 307),  # 307.5: the default rounding is "down"
        ("down", 205, 307),
        ("half_up", 205, 308),
        ("up", 205, 308),
        ("down", 201, 301),  # 301.5
        ("half_up", 201, 302),
        ("up", 201, 302),
    ],
)
def test_CB_4_three_to_two_on_an_odd_bet_rounds_by_the_table_option(table, rounding, bet, paid):
    t = table({} if rounding is None else {"rounding": rounding})
    t.deal(["AS", "9C", "KH", "7D"], bet)

    assert t.round.hands["h1"]["result"] == paid
    assert_settled(
        t.settled("h1"),
        outcome="blackjack",
        amount=paid,
        multiplier="3/2",
        clauses=["CB-4"],
        stake=bet,
        rounding=(rounding or "down", paid),
    )
    t.assert_money(paid)


def test_CB_4_a_blackjack_against_an_ace_up_is_paid_after_the_dealer_peeks(table):
    t = table()
    t.deal(["AS", "AH", "KH", "7C"], 200)  # the dealer shows an ace: insurance first

    assert t.round.phase == "insurance" and not t.round.hands["h1"].get("settled")
    t.act("insurance", amount=0)
    rnd = t.round  # no dealer blackjack: 3:2, and nothing is left to play
    assert rnd.ended
    assert t.dealer_cards() == ["AH", "7C"]
    assert_settled(
        t.settled("h1"), outcome="blackjack", amount=300, multiplier="3/2", clauses=["CB-4"]
    )
    t.assert_money(300)


# == CB-5: dealer blackjack collects every bet without a blackjack ============================


def test_CB_5_dealer_blackjack_collects_every_bet_without_a_blackjack(table):
    t = table(players=2)
    t.deal(["9H", "5C", "TC", "KH", "6D", "AH"], 200, 300)  # dealer T up, A in the hole

    rnd = t.round  # the dealer peeks: the round ends before anybody acts
    assert rnd.ended and rnd.dealer_hand["natural"]
    assert t.dealer_cards() == ["TC", "AH"]
    assert [(e.hand, e.clause) for e in t.events(Round.NaturalDeclared)] == [("dealer", "CB-5")]
    assert_settled(t.settled("h1"), outcome="lost", amount=-200, multiplier="-1", clauses=["CB-5"])
    assert_settled(t.settled("h2"), outcome="lost", amount=-300, multiplier="-1", clauses=["CB-5"])
    t.assert_money(-200, -300)


def test_CB_5_dealer_blackjack_with_the_ace_up_and_no_insurance_offered(table):
    t = table({"insurance": False})
    t.deal(["9H", "AH", "KH", "QC"], 200)

    assert t.round.ended and t.events(Round.InsuranceDecided) == []
    assert_settled(t.settled("h1"), outcome="lost", amount=-200, multiplier="-1", clauses=["CB-5"])
    t.assert_money(-200)


# == CB-6: both blackjack: a stand-off =========================================================


def test_CB_6_player_and_dealer_blackjack_is_a_stand_off(table):
    t = table(players=2)
    t.deal(["AS", "9H", "TC", "KD", "9D", "AH"], 200, 200)

    assert t.round.ended
    assert_settled(t.settled("h1"), outcome="stand-off", amount=0, multiplier="0", clauses=["CB-6"])
    assert_settled(t.settled("h2"), outcome="lost", amount=-200, multiplier="-1", clauses=["CB-5"])
    t.assert_money(0, -200)


# == CB-7: the player hits or stays; a bust loses at once ======================================


def test_CB_7_the_player_hits_one_card_at_a_time_until_he_stays(table):
    t = table()
    t.deal(["2H", "TC", "3C", "7D", "4S", "5D", "4H"], 200)

    for card, cards in (("4S", 3), ("5D", 4), ("4H", 5)):
        out = t.act("hit")
        assert out["card"] == card and out["phase"] == "play"
        assert len(t.round.hands["h1"]["cards"]) == cards
    drawn = [e for e in t.events(Round.CardDealt) if e.drawn]
    assert [(e.card, e.clause, e.face_up) for e in drawn] == [
        ("4S", "CB-7", True),
        ("5D", "CB-7", True),
        ("4H", "CB-7", True),
    ]
    t.act("stand")  # 18 against 17
    assert t.dealer_cards() == ["TC", "7D"]
    assert_settled(t.settled("h1"), outcome="won", amount=200, multiplier="1", clauses=["CB-8"])
    t.assert_money(200)


def test_CB_7_a_bust_loses_at_once_even_when_the_dealer_busts_later(table):
    t = table(players=2)
    t.deal(["TH", "TD", "6D", "6C", "9S", "TS", "KC", "8H"], 200, 200)

    t.act("hit", "h1", 0)  # 26
    rnd = t.round
    assert rnd.phase == "play" and rnd.current_turn() == "h2"
    assert rnd.hands["h1"]["settled"] and rnd.hands["h1"]["result"] == -200
    assert_settled(t.settled("h1"), outcome="bust", amount=-200, multiplier="-1", clauses=["CB-7"])
    assert t.balance(t.players[0]) == t.wallets_before[t.players[0]] - 200

    t.act("stand", "h2", 1)
    assert t.dealer_cards() == ["6D", "TS", "8H"]  # 24: the dealer busts
    assert t.settled("h1").amount == -200  # the bust stays lost
    assert_settled(t.settled("h2"), outcome="won", amount=200, multiplier="1", clauses=["CB-8"])
    t.assert_money(-200, 200)


def test_CB_7_when_every_hand_busts_the_dealer_draws_nothing(table):
    t = table()
    t.deal(["TH", "6D", "6C", "TS", "KC"], 200)

    t.act("hit")
    assert t.dealer_cards() == ["6D", "TS"]  # 16, but nobody is left to play against
    assert_settled(t.settled("h1"), outcome="bust", amount=-200, multiplier="-1", clauses=["CB-7"])
    t.assert_money(-200)


def test_a_dealer_hand_the_round_ended_without_reads_settled_not_open(table):
    t = table()
    t.deal(["TH", "6D", "6C", "TS", "KC"], 200)
    assert t.round.dealer_hand["status"] == "open"

    t.act("hit")  # over 21: the round ends before the dealer plays

    assert t.round.ended and t.round.dealer_hand["status"] == "settled"


# == CB-8: the dealer hits 16 or under, stays on 17 or more, stands on soft 17 ===============


def test_CB_8_dealer_must_hit_16(table):
    t = table()
    t.deal(["TH", "TC", "9S", "6D", "5H"], 200)

    t.act("stand")
    assert t.dealer_cards() == ["TC", "6D", "5H"]
    assert [
        (e.card, e.clause) for e in t.events(Round.CardDealt) if e.hand == "dealer" and e.drawn
    ] == [("5H", "CB-8")]
    assert_settled(t.settled("h1"), outcome="lost", amount=-200, multiplier="-1", clauses=["CB-8"])
    assert t.settled("h1").dealer_total == 21
    t.assert_money(-200)


def test_CB_8_dealer_keeps_hitting_until_17_or_more(table):
    t = table()
    t.deal(["TH", "2C", "8S", "3D", "4H", "5S", "3C"], 200)

    t.act("stand")
    assert t.dealer_cards() == ["2C", "3D", "4H", "5S", "3C"]  # 5, 9, 14, 17: stays
    assert_settled(t.settled("h1"), outcome="won", amount=200, multiplier="1", clauses=["CB-8"])
    t.assert_money(200)


def test_CB_8_dealer_stays_on_hard_17(table):
    t = table()
    t.deal(["TH", "TC", "8S", "7D"], 200)

    t.act("stand")
    assert t.dealer_cards() == ["TC", "7D"]
    assert_settled(t.settled("h1"), outcome="won", amount=200, multiplier="1", clauses=["CB-8"])
    t.assert_money(200)


@pytest.mark.parametrize(
    ("up", "hole", "options"),
    [("6C", "AH", {}), ("AH", "6C", {"insurance": False})],
    ids=["six-up", "ace-up"],
)
def test_CB_8_dealer_stands_on_soft_17(table, up, hole, options):
    t = table(options)
    t.deal(["TH", up, "8S", hole], 200)

    t.act("stand")
    assert t.dealer_cards() == [up, hole]
    stood = [e for e in t.events(Round.HandStood) if e.hand == "dealer"]
    assert [(e.total, e.clause) for e in stood] == [(17, "CB-8")]
    assert_settled(t.settled("h1"), outcome="won", amount=200, multiplier="1", clauses=["CB-8"])
    assert t.settled("h1").dealer_total == 17
    t.assert_money(200)


def test_CB_8_dealer_counts_the_ace_as_one_when_eleven_would_bust(table):
    t = table()
    t.deal(["TH", "5C", "QS", "AH", "TD", "5S"], 200)  # soft 16, hard 16, then 21

    t.act("stand")
    assert t.dealer_cards() == ["5C", "AH", "TD", "5S"]
    assert_settled(t.settled("h1"), outcome="lost", amount=-200, multiplier="-1", clauses=["CB-8"])
    t.assert_money(-200)


def test_CB_8_dealer_bust_pays_every_standing_hand_even_money(table):
    t = table()
    t.deal(["TH", "TC", "2S", "6D", "KD"], 300)

    t.act("stand")  # 12 stands; the dealer makes 26
    assert t.dealer_cards() == ["TC", "6D", "KD"]
    assert_settled(t.settled("h1"), outcome="won", amount=300, multiplier="1", clauses=["CB-8"])
    assert t.settled("h1").dealer_total == 26
    t.assert_money(300)


@pytest.mark.parametrize(
    ("player", "outcome", "net"),
    [(["TH", "8S"], "push", 0), (["TH", "7S"], "lost", -200), (["TH", "9S"], "won", 200)],
)
def test_CB_8_totals_are_compared_with_the_dealers_18(table, player, outcome, net):
    t = table()
    t.deal([player[0], "TC", player[1], "8D"], 200)

    t.act("stand")
    assert t.dealer_cards() == ["TC", "8D"]
    assert_settled(
        t.settled("h1"), outcome=outcome, amount=net, multiplier=str(net // 200), clauses=["CB-8"]
    )
    t.assert_money(net)


# == CB-9: the dealer's play is automatic ======================================================


def test_CB_9_the_dealer_plays_without_any_command(table):
    t = table()
    t.deal(["TH", "2C", "9S", "4D", "TD", "2H"], 200)

    out = t.act("stand")  # the last player decision closes the round
    assert out["phase"] == "ended"
    assert t.dealer_cards() == ["2C", "4D", "TD", "2H"]  # 6, 16, 18
    assert all(e.actor == "ledger" for e in t.events(Round.HandStood) if e.hand == "dealer")
    assert_settled(t.settled("h1"), outcome="won", amount=200, multiplier="1", clauses=["CB-8"])
    t.assert_money(200)


@pytest.mark.parametrize("action", ["dealer_draw", "dealer_stand"])
@pytest.mark.parametrize("who", ["player", "admin", "house"])
def test_CB_9_nobody_gives_the_casino_dealer_orders(table, app, action, who):
    t = table()
    t.deal(["TH", "2C", "6S", "4D"], 200)
    actor = {"player": t.players[0], "admin": "admin", "house": "house"}[who]

    with refused(app, RuleViolation, "CB-9", "automatic"):
        app.act(t.rid, action, actor=actor)
    assert t.round.phase == "play" and t.dealer_cards() == ["2C", "4D"]


def test_CB_9_the_house_deals_no_player_is_chosen_dealer(table, app):
    t = table()
    with refused(app, RuleViolation, "CB-9", "house"):
        app.choose_dealer(t.id, t.players[0])
    assert app.get_table(t.id).dealer is None


# == CB-X-DOUBLE: double down ==================================================================


def test_CB_X_DOUBLE_doubles_the_bet_for_exactly_one_card(table):
    t = table()
    t.deal(["6H", "TC", "5C", "7D", "9S"], 200)

    out = t.act("double_down")
    assert out["card"] == "9S"
    hand = t.round.hands["h1"]
    assert hand["cards"] == ["6H", "5C", "9S"] and hand["doubled"] and hand["stake"] == 400
    raised = t.events(Round.StakeRaised)
    assert [(e.amount, e.reason, e.clause) for e in raised] == [(200, "double_down", "CB-X-DOUBLE")]
    assert t.dealer_cards() == ["TC", "7D"]
    assert_settled(
        t.settled("h1"), outcome="won", amount=400, multiplier="1", clauses=["CB-8"], stake=400
    )
    t.assert_money(400)


def test_CB_X_DOUBLE_a_lost_double_costs_twice_the_bet_and_gets_one_card_only(table):
    t = table(players=2)
    t.deal(["6H", "TH", "TC", "5C", "8H", "7D", "2D"], 200, 200)

    t.act("double_down", "h1", 0)  # 13, and no more cards for h1
    rnd = t.round
    assert rnd.hands["h1"]["status"] == "stood" and rnd.current_turn() == "h2"
    assert t.balance(t.players[0]) == t.wallets_before[t.players[0]] - 400  # both bets held
    with refused(t.app, HandClosed, "CB-7"):
        t.act("hit", "h1", 0)

    t.act("stand", "h2", 1)
    assert t.dealer_cards() == ["TC", "7D"]
    assert_settled(
        t.settled("h1"), outcome="lost", amount=-400, multiplier="-1", clauses=["CB-8"], stake=400
    )
    t.assert_money(-400, 200)


@pytest.mark.parametrize(
    ("double_on", "cards", "allowed"),
    [
        ("9-11", ["5H", "3C"], False),  # 8
        ("9-11", ["5H", "4C"], True),  # 9
        ("9-11", ["6H", "4C"], True),  # 10
        ("9-11", ["6H", "5C"], True),  # 11
        ("9-11", ["TH", "2C"], False),  # 12
        ("9-11", ["AH", "8C"], False),  # soft 19
        ("10-11", ["5H", "4C"], False),  # 9
        ("10-11", ["6H", "4C"], True),  # 10
        ("10-11", ["6H", "5C"], True),  # 11
        ("10-11", ["TH", "2C"], False),  # 12
        ("any_two", ["TH", "2C"], True),  # 12
        ("any_two", ["AH", "6C"], True),  # soft 17
        ("none", ["6H", "5C"], False),
    ],
)
def test_CB_X_DOUBLE_double_on_limits_the_totals(table, app, double_on, cards, allowed):
    t = table({"double_on": double_on})
    t.deal([cards[0], "TC", cards[1], "7D", "2S"], 200)

    if not allowed:
        with refused(app, RuleViolation, "CB-X-DOUBLE", double_on):
            t.act("double_down")
        assert t.round.hands["h1"]["stake"] == 200 and t.round.phase == "play"
        return
    t.act("double_down")
    hand = t.round.hands["h1"]
    assert hand["stake"] == 400 and hand["cards"] == [*cards, "2S"]
    total = t.round.total("h1")
    net = 400 if total > 17 else (0 if total == 17 else -400)
    assert t.settled("h1").amount == net
    t.assert_money(net)


def test_CB_X_DOUBLE_only_on_the_first_two_cards(table, app):
    t = table()
    t.deal(["3H", "TC", "2C", "7D", "4S"], 200)

    t.act("hit")  # 9 in three cards
    with refused(app, RuleViolation, "CB-X-DOUBLE", "first two cards"):
        t.act("double_down")
    assert t.round.hands["h1"]["stake"] == 200


def test_CB_X_DOUBLE_needs_the_second_bet_in_the_wallet(table, app):
    t = table(balance=300)
    t.deal(["6H", "TC", "5C", "7D", "9S"], 200)

    with refused(app, InsufficientFunds, "CB-X-DOUBLE", "200", "100"):
        t.act("double_down")
    assert t.balance(t.players[0]) == 100


# == CB-X-SPLIT: splitting pairs ===============================================================


def test_CB_X_SPLIT_a_pair_becomes_two_hands_each_with_the_bet(table):
    t = table()
    t.deal(["8S", "TC", "8D", "7D", "3C", "TH", "9H"], 200)

    out = t.act("split")
    assert out["new_hand"] == "h2"
    rnd = t.round  # the first hand gets its second card at once, the second waits its turn
    assert rnd.order == ["h1", "h2"]
    assert rnd.hands["h1"]["cards"] == ["8S", "3C"] and rnd.hands["h2"]["cards"] == ["8D"]
    assert rnd.hands["h2"]["stake"] == 200 and rnd.hands["h2"]["split_from"] == "h1"
    assert t.balance(t.players[0]) == t.wallets_before[t.players[0]] - 400
    split = t.events(Round.HandSplit)
    assert [(e.hand, e.new_hand, e.card, e.clause) for e in split] == [
        ("h1", "h2", "8D", "CB-X-SPLIT")
    ]

    t.act("hit", "h1")  # 21: stands by itself
    assert t.round.hands["h2"]["cards"] == ["8D", "9H"]
    t.act("stand", "h2")
    assert t.dealer_cards() == ["TC", "7D"]
    assert_settled(t.settled("h1"), outcome="won", amount=200, multiplier="1", clauses=["CB-8"])
    assert_settled(t.settled("h2"), outcome="push", amount=0, multiplier="0", clauses=["CB-8"])
    t.assert_money(200)


def test_CB_X_SPLIT_resplits_up_to_max_split_hands(table, app):
    t = table({"max_split_hands": 3})
    t.deal(["8S", "TC", "8D", "7D", "8C", "8H", "9C", "TS"], 200)

    assert t.act("split")["new_hand"] == "h2"
    assert t.round.hands["h1"]["cards"] == ["8S", "8C"]
    assert t.act("split")["new_hand"] == "h3"
    rnd = t.round
    assert rnd.order == ["h1", "h3", "h2"]  # a split hand is played next to its parent
    assert rnd.hands["h1"]["cards"] == ["8S", "8H"]
    with refused(app, RuleViolation, "CB-X-SPLIT", "3"):
        t.act("split")  # a fourth hand is one too many

    t.act("stand", "h1")  # 16
    assert t.round.hands["h3"]["cards"] == ["8C", "9C"]
    t.act("stand", "h3")  # 17
    assert t.round.hands["h2"]["cards"] == ["8D", "TS"]
    t.act("stand", "h2")  # 18
    assert t.dealer_cards() == ["TC", "7D"]
    assert [t.settled(h).amount for h in ("h1", "h3", "h2")] == [-200, 0, 200]
    assert sum(e.amount for e in t.events(Round.StakePlaced)) == 600
    t.assert_money(0)


def test_CB_X_SPLIT_max_split_hands_1_means_no_split(table, app):
    t = table({"max_split_hands": 1})
    t.deal(["8S", "TC", "8D", "7D"], 200)

    with refused(app, RuleViolation, "CB-X-SPLIT", "1"):
        t.act("split")


def test_CB_X_SPLIT_four_hands_by_default(table, app):
    t = table()
    t.deal(["8S", "TC", "8D", "7D", "8C", "8H", "8D", "TH", "TD", "TS"], 200)

    t.act("split")  # h2
    t.act("split")  # h3
    t.act("split")  # h4
    assert t.round.order == ["h1", "h4", "h3", "h2"]
    with refused(app, RuleViolation, "CB-X-SPLIT", "4"):
        t.act("split")
    for hand in ("h1", "h4", "h3", "h2"):  # 16, 18, 18, 18 against 17
        t.act("stand", hand)
    rnd = t.round
    assert [rnd.hands[h]["cards"] for h in ("h1", "h4", "h3", "h2")] == [
        ["8S", "8D"],
        ["8H", "TH"],
        ["8C", "TD"],
        ["8D", "TS"],
    ]
    assert t.dealer_cards() == ["TC", "7D"]
    assert [t.settled(h).amount for h in ("h1", "h4", "h3", "h2")] == [-200, 200, 200, 200]
    t.assert_money(400)


def test_CB_X_SPLIT_split_aces_receive_one_card_each(table, app):
    t = table(players=2)
    # h1 (player 1) A A; h2 (player 2) T 9; dealer T 7.
    t.deal(["AS", "TH", "TC", "AD", "9H", "7D", "9C", "5H"], 200, 200)

    assert t.act("split", "h1", 0)["new_hand"] == "h3"
    rnd = t.round  # both aces got one card and stood without a decision
    assert rnd.hands["h1"]["cards"] == ["AS", "9C"] and rnd.hands["h1"]["status"] == "stood"
    assert rnd.hands["h3"]["cards"] == ["AD", "5H"] and rnd.hands["h3"]["status"] == "stood"
    assert rnd.current_turn() == "h2"
    with refused(app, HandClosed, "CB-7"):
        t.act("hit", "h3", 0)  # soft 16, but a split ace takes one card

    t.act("stand", "h2", 1)
    assert t.dealer_cards() == ["TC", "7D"]
    assert [t.settled(h).amount for h in ("h1", "h3", "h2")] == [200, -200, 200]
    t.assert_money(0, 200)


def test_CB_X_SPLIT_aces_are_not_split_again_by_default(table, app):
    t = table(players=2)
    t.deal(["AS", "TH", "TC", "AD", "9H", "7D", "AC", "5H"], 200, 200)

    t.act("split", "h1", 0)
    rnd = t.round  # h1 drew a third ace and stands on soft 12
    assert rnd.hands["h1"]["cards"] == ["AS", "AC"] and rnd.hands["h1"]["status"] == "stood"
    with refused(app, RuleViolation, "CB-X-SPLIT"):
        t.act("split", "h1", 0)
    assert len(t.round.hands) == 3


def test_CB_X_SPLIT_resplit_aces_when_the_table_allows_it(table):
    t = table({"resplit_aces": True})
    t.deal(["AS", "TC", "AD", "7D", "AC", "9H", "8S", "5C"], 200)

    t.act("split")  # h1: AS, h2: AD; h1 draws AC
    assert t.round.hands["h1"]["cards"] == ["AS", "AC"]
    assert t.act("split", "h1")["new_hand"] == "h3"
    rnd = t.round
    assert rnd.hands["h1"]["cards"] == ["AS", "9H"]
    assert rnd.hands["h3"]["cards"] == ["AC", "8S"]
    assert rnd.hands["h2"]["cards"] == ["AD", "5C"]
    assert [t.settled(h).amount for h in ("h1", "h3", "h2")] == [200, 200, -200]
    t.assert_money(200)


def test_CB_X_SPLIT_a_split_ace_that_may_be_split_again_may_not_be_doubled(table, app):
    """Split aces take one card each: with ``resplit_aces`` an ace on an ace leaves the hand
    open to split again or stand on, never to draw a third card, by a hit or a double."""
    t = table({"resplit_aces": True})
    t.deal(["AH", "9D", "AC", "8S", "AD", "5C", "6D"], 200)

    t.act("split")  # h1: AH, h2: AC; h1 draws AD
    assert t.round.hands["h1"]["cards"] == ["AH", "AD"]
    with refused(app, RuleViolation, "CB-X-SPLIT"):
        t.act("hit", "h1")
    with refused(app, RuleViolation, "CB-X-SPLIT"):
        t.act("double_down", "h1")
    assert t.round.hands["h1"]["cards"] == ["AH", "AD"]
    assert t.round.hands["h1"]["stake"] == 200


def test_CB_X_SPLIT_double_after_split_when_allowed(table):
    t = table()  # double_after_split defaults to True
    t.deal(["4S", "TC", "4D", "7D", "7C", "TH", "6H", "9C"], 200)

    t.act("split")  # h1: 4 7 = 11
    assert t.act("double_down", "h1")["card"] == "TH"  # 21
    assert t.round.hands["h2"]["cards"] == ["4D", "6H"]  # 10
    assert t.act("double_down", "h2")["card"] == "9C"  # 19
    assert t.dealer_cards() == ["TC", "7D"]
    assert_settled(
        t.settled("h1"), outcome="won", amount=400, multiplier="1", clauses=["CB-8"], stake=400
    )
    assert_settled(
        t.settled("h2"), outcome="won", amount=400, multiplier="1", clauses=["CB-8"], stake=400
    )
    t.assert_money(800)


def test_CB_X_SPLIT_no_double_after_split_when_the_table_says_so(table, app):
    t = table({"double_after_split": False})
    t.deal(["4S", "TC", "4D", "7D", "7C", "TH", "6H", "9C"], 200)

    t.act("split")
    with refused(app, RuleViolation, "CB-X-DOUBLE", "split"):
        t.act("double_down", "h1")
    assert t.round.hands["h1"]["stake"] == 200
    t.act("hit", "h1")  # 21
    t.act("stand", "h2")  # 4 6 = 10 against 17
    assert [t.settled(h).amount for h in ("h1", "h2")] == [200, -200]
    t.assert_money(0)


def test_CB_X_SPLIT_refuses_a_non_pair_and_an_unequal_bet(table, app):
    t = table()
    t.deal(["TH", "TC", "9C", "7D"], 200)
    with refused(app, NotAPair, "CB-X-SPLIT", "TH", "9C"):
        t.act("split")

    t2 = table()
    t2.deal(["8S", "TC", "8D", "7D"], 200)
    with refused(app, InvalidCommand, "CB-X-SPLIT", "200"):
        t2.act("split", amount=300)


# == CB-X-INSURANCE ============================================================================


def test_CB_X_INSURANCE_pays_two_to_one_when_the_dealer_has_blackjack(table):
    t = table()
    t.deal(["TH", "AH", "9S", "KC"], 200)

    rnd = t.round  # the ace up: insurance is offered before the peek
    assert rnd.phase == "insurance" and not rnd.ended and not rnd.dealer_hand["natural"]
    t.act("insurance", amount=100)

    rnd = t.round
    assert rnd.ended and rnd.dealer_hand["natural"]
    assert rnd.hands["h1"]["insurance_result"] == 200
    ins = t.events(Round.InsuranceSettled)
    assert [(e.hand, e.amount, e.clause) for e in ins] == [("h1", 200, "CB-X-INSURANCE")]
    assert_settled(t.settled("h1"), outcome="lost", amount=-200, multiplier="-1", clauses=["CB-5"])
    t.assert_money(0)  # 200 lost on the bet, 200 won on the insurance


def test_CB_X_INSURANCE_is_lost_when_the_dealer_has_no_blackjack(table):
    t = table()
    t.deal(["TH", "AH", "9S", "7C"], 200)

    t.act("insurance", amount=100)
    rnd = t.round  # the dealer peeks, shows no blackjack, play goes on
    assert rnd.phase == "play" and not rnd.dealer_hand["natural"]
    assert rnd.hands["h1"]["insurance_result"] == -100
    assert t.balance(t.players[0]) == t.wallets_before[t.players[0]] - 300

    t.act("stand")  # 19 against soft 18
    assert t.dealer_cards() == ["AH", "7C"]
    assert [(e.amount, e.clause) for e in t.events(Round.InsuranceSettled)] == [
        (-100, "CB-X-INSURANCE")
    ]
    assert_settled(t.settled("h1"), outcome="won", amount=200, multiplier="1", clauses=["CB-8"])
    t.assert_money(100)


def test_CB_X_INSURANCE_declined_costs_nothing(table):
    t = table()
    t.deal(["TH", "AH", "9S", "7C"], 200)

    t.act("insurance", amount=0)
    assert t.round.phase == "play"
    t.act("stand")
    assert t.events(Round.InsuranceSettled) == []
    assert t.settled("h1").amount == 200
    t.assert_money(200)


def test_CB_X_INSURANCE_waits_for_every_hand_then_peeks(table, app):
    t = table(players=2)
    t.deal(["TH", "9D", "AH", "9S", "9C", "QC"], 200, 400)

    t.act("insurance", "h1", 0, amount=100)
    assert t.round.phase == "insurance" and t.events(Round.InsuranceSettled) == []
    with refused(app, HandClosed, "CB-X-INSURANCE"):
        t.act("insurance", "h1", 0, amount=50)  # decided once
    t.act("insurance", "h2", 1, amount=0)

    assert t.round.ended
    assert [t.settled(h).amount for h in ("h1", "h2")] == [-200, -400]
    t.assert_money(0, -400)


def test_CB_X_INSURANCE_is_at_most_half_the_bet(table, app):
    t = table()
    t.deal(["TH", "AH", "9S", "7C"], 205)

    with refused(app, InvalidCommand, "CB-X-INSURANCE", "102"):
        t.act("insurance", amount=103)
    t.act("insurance", amount=102)  # half of 205, rounded down: the most allowed
    assert t.round.hands["h1"]["insurance_result"] == -102


def test_CB_X_INSURANCE_not_offered_when_the_table_says_so(table, app):
    t = table({"insurance": False})
    t.deal(["TH", "AH", "9S", "7C"], 200)

    assert t.round.phase == "play"
    with refused(app, WrongPhase, "CB-X-INSURANCE"):
        t.act("insurance", amount=100)
    t.act("stand")
    t.assert_money(200)


# == CB-X-SURRENDER: late surrender ============================================================


def test_CB_X_SURRENDER_late_surrender_returns_half_the_bet(table):
    t = table({"late_surrender": True})
    t.deal(["TH", "TC", "6C", "9D"], 200)

    out = t.act("surrender")
    assert out["phase"] == "ended"
    assert t.round.hands["h1"]["surrendered"]
    assert [e.clause for e in t.events(Round.Surrendered)] == ["CB-X-SURRENDER"]
    assert t.dealer_cards() == ["TC", "9D"]
    assert_settled(
        t.settled("h1"),
        outcome="surrendered",
        amount=-100,
        multiplier="-1/2",
        clauses=["CB-X-SURRENDER"],
    )
    t.assert_money(-100)


@pytest.mark.parametrize(
    ("rounding", "returned"),
    [
        pytest.param(None, 102),  # half of 205 is 102.5; default "down"
        pytest.param("down", 102),
        pytest.param("half_up", 103),
        pytest.param("up", 103),
    ],
)
def test_CB_X_SURRENDER_odd_bet_returns_half_rounded_by_the_table_option(table, rounding, returned):
    t = table({"late_surrender": True, **({} if rounding is None else {"rounding": rounding})})
    t.deal(["TH", "TC", "6C", "9D"], 205)

    t.act("surrender")
    net = returned - 205
    assert t.round.hands["h1"]["result"] == net
    assert_settled(
        t.settled("h1"),
        outcome="surrendered",
        amount=net,
        multiplier="-1/2",
        clauses=["CB-X-SURRENDER"],
        stake=205,
        rounding=(rounding or "down", net),
    )
    t.assert_money(net)


def test_CB_X_SURRENDER_not_offered_by_default(table, app):
    t = table()
    t.deal(["TH", "TC", "6C", "9D"], 200)
    with refused(app, RuleViolation, "CB-X-SURRENDER", "surrender"):
        t.act("surrender")


def test_CB_X_SURRENDER_only_as_the_first_decision(table, app):
    t = table({"late_surrender": True})
    t.deal(["TH", "TC", "2C", "9D", "3S"], 200)

    t.act("hit")
    with refused(app, RuleViolation, "CB-X-SURRENDER", "first two cards"):
        t.act("surrender")


def test_CB_X_SURRENDER_is_late_a_dealer_blackjack_takes_the_whole_bet_first(table, app):
    t = table({"late_surrender": True})
    t.deal(["TH", "TC", "6C", "AD"], 200)

    assert t.round.ended
    assert t.settled("h1").amount == -200
    with refused(app, WrongPhase, None, "over"):
        t.act("surrender")
    t.assert_money(-200)


# == CB-X-H17: the dealer hits soft 17 =========================================================


@pytest.mark.parametrize(
    ("up", "hole", "options"),
    [("6C", "AH", {}), ("AH", "6C", {"insurance": False})],
    ids=["six-up", "ace-up"],
)
def test_CB_X_H17_soft17_hit_makes_the_dealer_hit_ace_six(table, up, hole, options):
    t = table({"soft17": "hit", **options})
    t.deal(["TH", up, "QS", hole, "4D"], 200)

    t.act("stand")  # 20 against A6 + 4 = 21
    assert t.dealer_cards() == [up, hole, "4D"]
    drawn = [
        (e.card, e.clause) for e in t.events(Round.CardDealt) if e.hand == "dealer" and e.drawn
    ]
    assert drawn == [("4D", "CB-X-H17")]  # the option decided that draw: CB-8 stands on it
    stood = [(e.total, e.clause) for e in t.events(Round.HandStood) if e.hand == "dealer"]
    assert stood == [(21, "CB-8")]  # standing on 21 is CB-8's, whatever the option
    assert_settled(t.settled("h1"), outcome="lost", amount=-200, multiplier="-1", clauses=["CB-8"])
    t.assert_money(-200)


@pytest.mark.parametrize(("up", "hole"), [("TC", "7D"), ("7C", "AH"), ("5C", "AH")])
def test_CB_X_H17_still_stands_on_hard_17_and_soft_18(table, up, hole):
    t = table({"soft17": "hit"})
    extra = ["2D"] if hole == "AH" and up == "5C" else []  # soft 16 hits once: soft 18
    t.deal(["TH", up, "QS", hole, *extra], 200)

    t.act("stand")
    assert t.dealer_cards() == [up, hole, *extra]
    assert t.settled("h1").amount == 200
    # Every step was CB-8's: the option differs from it only at a soft 17.
    dealer = [e for e in t.events((Round.CardDealt, Round.HandStood)) if e.hand == "dealer"]
    assert {e.clause for e in dealer if getattr(e, "drawn", True)} == {"CB-8"}
    t.assert_money(200)


# == CB-X-6:5: blackjack pays 6:5 ==============================================================


@pytest.mark.parametrize(
    ("bet", "rounding", "paid"),
    [
        (200, None, 240),
        (205, None, 246),
        (203, None, 243),  # 243.6, default "down"
        (203, "down", 243),
        (203, "half_up", 244),
        (203, "up", 244),
        (201, "down", 241),  # 241.2
        (201, "half_up", 241),
        (201, "up", 242),
    ],
)
def test_CB_X_6_5_blackjack_pays_six_to_five_rounded_by_the_table_option(
    table, bet, rounding, paid
):
    options = {"blackjack_payout": "6:5", **({} if rounding is None else {"rounding": rounding})}
    t = table(options)
    t.deal(["AS", "9C", "KH", "7D"], bet)

    exact = bet * 6 % 5 == 0
    assert_settled(
        t.settled("h1"),
        outcome="blackjack",
        amount=paid,
        multiplier="6/5",
        clauses=["CB-4", "CB-X-6:5"],
        stake=bet,
        rounding="none" if exact else (rounding or "down", paid),
    )
    assert t.round.hands["h1"]["result"] == paid
    t.assert_money(paid)


def test_CB_X_6_5_does_not_change_even_money_wins(table):
    t = table({"blackjack_payout": "6:5"})
    t.deal(["TH", "9C", "QH", "7D"], 205)

    t.act("stand")
    assert_settled(t.settled("h1"), outcome="won", amount=205, multiplier="1", clauses=["CB-8"])
    t.assert_money(205)


# == CB-X-SHOE: a round that runs out of cards =================================================


def test_CB_X_SHOE_a_round_that_runs_out_burns_after_the_shuffle_of_the_used_cards(table, app):
    t = table({"decks": 1, "burn": 1, "insurance": False})
    app.fix_next_shoe(t.id, ["2H", "6D", "3C", "TS", "2D"])  # runs out on the second hit
    t.rid = app.start_round(t.id)["round_id"]
    app.place_stake(t.rid, t.players[0], 200)
    t.act("hit")  # 2D: 7
    t.act("hit")  # the test shoe is empty: the used cards are shuffled, cut and burned

    events = [
        e for e in t.events((Round.ShoeReplaced, Round.CardBurned, Round.CardDealt)) if e.shoe
    ]
    replaced = next(i for i, e in enumerate(events) if isinstance(e, Round.ShoeReplaced))
    burned, dealt = events[replaced + 1], events[replaced + 2]
    assert isinstance(burned, Round.CardBurned) and burned.clause == "CB-X-SHOE"
    assert (burned.shoe, burned.shoe_index) == (events[replaced].shoe, 0)
    assert isinstance(dealt, Round.CardDealt) and (dealt.hand, dealt.shoe_index) == ("h1", 1)
    on_table = {"2H", "6D", "3C", "TS", "2D"}
    assert not on_table & {burned.card, dealt.card}  # the used cards only
    assert t.round.hands["h1"]["cards"] == ["2H", "3C", "2D", dealt.card]
