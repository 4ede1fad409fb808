"""English Vingt-un, clause by clause (RULES.md VU-1..VU-31; seeds 000 and 002).

Every scenario plays a fixed shoe through the application and pins each payout to the minor
unit three ways: the hand's ``result``, the stored ``HandSettled`` event (amount and the
clauses it cites), and every wallet's balance before and after. Every scenario ends by
checking that the books balance: all folded accounts sum to zero and no round leaves money in
escrow.

Pinned in test_vingt_un_irregularities.py rather than here: VU-23..VU-26 (irregularities and
their penalties) and the dealer's first division of his pair (VU-21); here, his dividing again
(VU-20, VU-21) and VU-22 for the dealer.

Seating convention unless a test says otherwise: the dealer "D" sits in seat 1 and is chosen
by seat; players "A", "B", "C" sit in seats 2, 3, 4, so the order of play (from the dealer's
left) is A, B, C and the pone (on the dealer's right) is the last of them. The fixed shoe
lists cards in dealing order: each player's first card, the dealer's first, each player's
second, the dealer's second, then the draws.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from ledger import accounts
from ledger.balances import fold_balances
from ledger.errors import (
    InsufficientFunds,
    InvalidCommand,
    NotAPair,
    NotFound,
    NotPermitted,
    OutOfTurn,
    RuleViolation,
    StakeOutOfLimits,
    WrongPhase,
)

START = 1_000_000
LIMITS = {"min_stake": 100, "max_stake": 1_000}


# -- harness -------------------------------------------------------------------------------


class VingtUnTable:
    """A Vingt-un table with named, funded players seated in the order given (seat 1, 2 …)."""

    def __init__(
        self,
        app: Any,
        fund: Any,
        seats: list[str],
        options: dict[str, Any] | None = None,
        dealer: str | None = None,
        choose: bool = True,
    ) -> None:
        self.app = app
        self.options = {**LIMITS, **(options or {})}
        self.table_id = app.open_table("vingt-un", self.options)["table_id"]
        self.ids: dict[str, str] = {}
        for seat, name in enumerate(seats, start=1):
            self.ids[name] = fund(name, START)
            app.seat_player(self.table_id, self.ids[name], seat)
        self.names = {pid: name for name, pid in self.ids.items()}
        self.before = self.balances()
        self.rounds: list[str] = []
        if choose:
            app.choose_dealer(self.table_id, self.ids[dealer] if dealer else None)

    # -- state -------------------------------------------------------------------------

    def table(self) -> Any:
        return self.app.get_table(self.table_id)

    def dealer(self) -> str:
        """The name of the player now holding the deal."""
        return self.names[self.table().dealer]

    def balances(self) -> dict[str, int]:
        return {name: self.app.get_player(pid).balance for name, pid in self.ids.items()}

    def deltas(self) -> dict[str, int]:
        now = self.balances()
        return {name: now[name] - self.before[name] for name in now}

    def pool(self) -> int:
        """The pool's balance: the one its table keeps, checked against the whole log."""
        folded = fold_balances(self.app).get(accounts.pool(self.table_id), 0)
        assert self.app.get_table(self.table_id).pool == folded
        return folded

    def round(self, rid: str) -> Any:
        return self.app.get_round(rid)

    def events(self, rid: str) -> list[Any]:
        return list(self.app.events.get(UUID(rid)))

    def settled(self, rid: str) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for e in self.events(rid):
            if type(e).__name__ == "HandSettled":
                assert e.hand not in found, f"hand {e.hand} settled twice"
                found[e.hand] = e
        return found

    # -- commands ----------------------------------------------------------------------

    def start(self, cards: list[str], **kwargs: Any) -> str:
        self.app.fix_next_shoe(self.table_id, cards)
        rid = self.app.start_round(self.table_id, **kwargs)["round_id"]
        self.rounds.append(rid)
        return rid

    def stake(self, rid: str, name: str, amount: int) -> dict:
        return self.app.place_stake(rid, self.ids[name], amount)

    def double(self, rid: str, called: bool) -> dict:
        return self.app.act(rid, "dealer_double", actor=self.round(rid).dealer, called=called)

    def deal(self, cards: list[str], stakes: dict[str, int], double: bool = False) -> str:
        """Start a round, stake on the first cards in the order given, and answer 'double'."""
        rid = self.start(cards)
        for name, amount in stakes.items():
            self.stake(rid, name, amount)
        self.double(rid, double)
        return rid

    def hit(self, rid: str, name: str, hand: str) -> str:
        return self.app.act(rid, "hit", actor=self.ids[name], hand=hand)["card"]

    def stand(self, rid: str, name: str, hand: str) -> dict:
        return self.app.act(rid, "stand", actor=self.ids[name], hand=hand)

    def split(self, rid: str, name: str, hand: str, amount: int | None = None) -> str:
        out = self.app.act(rid, "split", actor=self.ids[name], hand=hand, amount=amount)
        return out["new_hand"]

    def dealer_draw(self, rid: str) -> str:
        return self.app.act(rid, "dealer_draw", actor=self.round(rid).dealer)["card"]

    def dealer_stand(self, rid: str) -> dict:
        return self.app.act(rid, "dealer_stand", actor=self.round(rid).dealer)

    # -- checks ------------------------------------------------------------------------

    def assert_hand(
        self,
        rid: str,
        hand: str,
        amount: int,
        clauses: list[str],
        outcome: str | None = None,
    ) -> Any:
        """The hand's result and its HandSettled event agree, to the minor unit."""
        rnd = self.round(rid)
        assert rnd.hands[hand]["result"] == amount
        event = self.settled(rid)[hand]
        assert event.amount == amount
        assert list(event.clauses) == clauses
        if outcome is not None:
            assert event.outcome == outcome
        return event

    def assert_books_balance(self) -> None:
        balances = fold_balances(self.app)
        assert sum(balances.values()) == 0
        for rid in self.rounds:
            if self.round(rid).ended:
                assert balances.get(accounts.escrow(rid), 0) == 0, f"money left in escrow of {rid}"
        # The wallets the ledger folds from its transfers are the wallets players see.
        for name, pid in self.ids.items():
            assert balances.get(accounts.player(pid), 0) == self.balances()[name]


def refused(
    app: Any, error: type[Exception], clause: str | None, call: Any, *args: Any, **kwargs: Any
) -> Any:
    """The command is refused with ``error`` citing ``clause``, and nothing is written."""
    before = app.recorder.max_notification_id()
    with pytest.raises(error) as info:
        call(*args, **kwargs)
    if clause is not None:
        assert info.value.clause == clause
    assert app.recorder.max_notification_id() == before
    return info.value


def of_type(events: list[Any], name: str) -> list[Any]:
    return [e for e in events if type(e).__name__ == name]


@pytest.fixture
def vingt_un(app, fund):
    def make(
        seats: list[str], options: dict[str, Any] | None = None, **kwargs: Any
    ) -> VingtUnTable:
        return VingtUnTable(app, fund, seats, options, **kwargs)

    return make


# -- Stakes and limits ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "delta", "clauses", "outcome"),
    [
        # Dealer natural after his double: the maximum stake, doubled, then doubled again.
        (["9C", "AS", "8C", "KD"], -4_000, ["VU-8"], "dealer natural"),
        # Player natural after the dealer's double: the dealer pays four times the maximum.
        (["AC", "TD", "KC", "8D"], 4_000, ["VU-10"], "natural"),
    ],
    ids=["dealer-natural", "player-natural"],
)
def test_VU_1_maximum_limits_the_stake_not_the_hand_which_can_move_four_times_it(
    vingt_un,
    cards,
    delta,
    clauses,
    outcome,
):
    t = vingt_un(["D", "A"])
    rid = t.deal(cards, {"A": 1_000}, double=True)

    assert t.round(rid).ended
    t.assert_hand(rid, "h1", delta, clauses, outcome)
    assert abs(delta) == 4 * LIMITS["max_stake"]
    assert t.deltas() == {"D": -delta, "A": delta}
    t.assert_books_balance()


# -- VU-2: the dealer is chosen first ----------------------------------------------------------


def test_VU_2_no_round_before_a_dealer_is_chosen_then_the_first_seat_deals(app, vingt_un):
    t = vingt_un(["D", "A"], choose=False)
    refused(app, RuleViolation, "VU-2", app.start_round, t.table_id)

    app.choose_dealer(t.table_id)
    (chosen,) = of_type(list(app.events.get(UUID(t.table_id))), "DealerChosen")
    assert (chosen.player_id, chosen.method, chosen.clause) == (t.ids["D"], "seat", "VU-2")

    rid = t.start(["TC", "TD", "9C", "8D"])
    t.stake(rid, "A", 300)
    t.double(rid, False)
    t.stand(rid, "A", "h1")
    t.dealer_stand(rid)
    assert t.round(rid).dealer == t.ids["D"]
    t.assert_hand(rid, "h1", 300, ["VU-14"], "won")  # 19 against the dealer's 18
    assert t.deltas() == {"D": -300, "A": 300}
    t.assert_books_balance()


def test_VU_2_a_named_dealer_banks_and_play_starts_on_his_left(app, vingt_un):
    t = vingt_un(["A", "B", "C"], {"dealer_choice": "named"}, choose=False)
    refused(app, InvalidCommand, "VU-2", app.choose_dealer, t.table_id)
    app.choose_dealer(t.table_id, t.ids["B"])
    assert t.dealer() == "B"

    # B sits in seat 2: C (seat 3) is on his left, then A (seat 1).
    rid = t.start(["TC", "8C", "TD", "9C", "9D", "8D"])
    assert t.round(rid).seats == [[3, t.ids["C"]], [1, t.ids["A"]]]
    t.stake(rid, "C", 300)
    t.stake(rid, "A", 200)
    t.double(rid, False)
    t.stand(rid, "C", "h1")  # 19
    t.stand(rid, "A", "h2")  # 17
    t.dealer_stand(rid)  # 18

    t.assert_hand(rid, "h1", 300, ["VU-14"], "won")
    t.assert_hand(rid, "h2", -200, ["VU-14"], "lost")
    assert t.deltas() == {"A": -200, "B": -100, "C": 300}
    t.assert_books_balance()


# -- The deal ----------------------------------------------------------------------------------


@pytest.mark.parametrize("cut", [None, 17], ids=["random-cut", "cut-at-17"])
def test_VU_3_the_dealer_shuffles_and_the_pone_on_his_right_cuts(app, vingt_un, cut):
    t = vingt_un(["D", "A", "B"])
    rid = app.start_round(t.table_id, cut=cut)["round_id"]  # a random, committed shoe
    t.rounds.append(rid)
    rnd = t.round(rid)
    assert rnd.pone == t.ids["B"]  # B in seat 3 sits on the right of D in seat 1

    shoe_events = list(app.events.get(rnd.shoe_id))
    names = [type(e).__name__ for e in shoe_events]
    assert names[:2] == ["Committed", "Cut"]  # committed before it is cut, both before a card
    committed, cut_event = shoe_events[0], shoe_events[1]
    assert committed.fixed is False
    assert committed.algorithm == "hmac-sha256-fisher-yates-v1"
    assert cut_event.by == t.ids["B"]
    assert cut_event.clause == "VU-3"
    assert 0 <= cut_event.cut < 52
    if cut is not None:
        assert cut_event.cut == cut
    assert "Revealed" not in names  # the seed stays sealed while the shoe is in play

    # Cards are dealt only after the cut; no money has moved yet.
    first_card = of_type(t.events(rid), "CardDealt")[0]
    assert first_card.shoe == rnd.shoe_id and first_card.shoe_index == 0
    assert t.deltas() == {"D": 0, "A": 0, "B": 0}
    t.assert_books_balance()


def test_VU_3_a_fixed_shoe_is_also_cut_by_the_pone(app, vingt_un):
    t = vingt_un(["D", "A", "B"])
    rid = t.start(["TC", "9C", "TD", "9D", "9H", "8D"])
    cut = of_type(list(app.events.get(t.round(rid).shoe_id)), "Cut")
    assert [(c.by, c.clause) for c in cut] == [(t.ids["B"], "VU-3")]
    t.stake(rid, "A", 100)
    t.stake(rid, "B", 100)
    t.double(rid, False)
    t.stand(rid, "A", "h1")  # 19
    t.stand(rid, "B", "h2")  # 18
    t.dealer_stand(rid)  # 18
    t.assert_hand(rid, "h1", 100, ["VU-14"])
    t.assert_hand(rid, "h2", -100, ["VU-14"])
    assert t.deltas() == {"D": 0, "A": 100, "B": -100}
    t.assert_books_balance()


def test_VU_4_one_card_face_down_to_each_player_from_the_dealers_left_then_dealer(app, vingt_un):
    # A seat 1, D seat 2 (named), B seat 3, C seat 4: the dealer's left is B, then C, then A.
    t = vingt_un(["A", "D", "B", "C"], dealer="D")
    rid = t.start(["9C", "TC", "8C", "TD", "9D", "9H", "8H", "7D"])
    rnd = t.round(rid)
    assert rnd.phase == "staking"
    assert [rnd.hands[h]["player"] for h in rnd.order] == [t.ids["B"], t.ids["C"], t.ids["A"]]
    first = of_type(t.events(rid), "CardDealt")
    assert [(c.hand, c.card, c.face_up, c.drawn, c.clause) for c in first] == [
        ("h1", "9C", False, False, "VU-4"),
        ("h2", "TC", False, False, "VU-4"),
        ("h3", "8C", False, False, "VU-4"),
        ("dealer", "TD", False, False, "VU-4"),
    ]
    for h in rnd.order:
        assert rnd.hands[h]["face_up"] == [False]
    assert rnd.dealer_hand["face_up"] == [False]

    t.stake(rid, "B", 100)
    t.stake(rid, "C", 200)
    t.stake(rid, "A", 300)
    t.double(rid, False)
    t.stand(rid, "B", "h1")  # 18
    t.stand(rid, "C", "h2")  # 19
    t.stand(rid, "A", "h3")  # 16
    t.dealer_stand(rid)  # 17
    t.assert_hand(rid, "h1", 100, ["VU-14"], "won")
    t.assert_hand(rid, "h2", 200, ["VU-14"], "won")
    t.assert_hand(rid, "h3", -300, ["VU-14"], "lost")
    assert t.deltas() == {"A": -300, "D": 0, "B": 100, "C": 200}
    t.assert_books_balance()


def test_VU_5_each_player_stakes_on_his_first_card_between_the_limits(app, vingt_un):
    t = vingt_un(["D", "A", "B"])
    rid = t.start(["TC", "9C", "TD", "9D", "9H", "8D"])
    rnd = t.round(rid)
    assert [len(rnd.hands[h]["cards"]) for h in rnd.order] == [1, 1]  # he has looked at one card

    refused(app, StakeOutOfLimits, "VU-5", t.stake, rid, "A", 99)
    refused(app, StakeOutOfLimits, "VU-5", t.stake, rid, "A", 1_001)
    refused(app, NotPermitted, "VU-5", t.stake, rid, "D", 100)  # VU-6: the dealer stakes nothing
    t.stake(rid, "A", 100)
    refused(app, RuleViolation, "VU-5", t.stake, rid, "A", 100)  # one stake per card
    refused(app, WrongPhase, "VU-6", t.double, rid, True)  # not before every stake is down
    t.stake(rid, "B", 1_000)
    placed = of_type(t.events(rid), "StakePlaced")
    assert [(p.hand, p.amount, p.clause) for p in placed] == [
        ("h1", 100, "VU-5"),
        ("h2", 1_000, "VU-5"),
    ]

    t.double(rid, False)
    t.stand(rid, "A", "h1")  # 19
    t.stand(rid, "B", "h2")  # 18, a tie
    t.dealer_stand(rid)  # 18
    t.assert_hand(rid, "h1", 100, ["VU-14"], "won")
    t.assert_hand(rid, "h2", -1_000, ["VU-14"], "lost")
    assert t.deltas() == {"D": 900, "A": 100, "B": -1_000}
    t.assert_books_balance()


def test_VU_6_dealer_double_doubles_every_stake_even_beyond_the_maximum(app, vingt_un):
    t = vingt_un(["D", "A", "B"])
    rid = t.start(["8C", "TC", "TD", "6D", "9C", "8D", "9S"])
    t.stake(rid, "A", 1_000)  # the maximum
    t.stake(rid, "B", 300)
    refused(app, NotPermitted, "VU-6", app.act, rid, "dealer_double", actor=t.ids["A"], called=True)
    t.double(rid, True)

    rnd = t.round(rid)
    assert rnd.dealer_doubled is True
    assert [rnd.hands[h]["stake"] for h in rnd.order] == [2_000, 600]  # 2,000 > max_stake
    raised = of_type(t.events(rid), "StakeRaised")
    assert [(r.hand, r.amount, r.reason, r.clause) for r in raised] == [
        ("h1", 1_000, "dealer_double", "VU-6"),
        ("h2", 300, "dealer_double", "VU-6"),
    ]
    (called,) = of_type(t.events(rid), "DealerDoubleCalled")
    assert (called.called, called.actor) == (True, t.ids["D"])

    assert t.hit(rid, "A", "h1") == "9S"  # 14 + 9: over-draws, pays the doubled stake
    t.stand(rid, "B", "h2")  # 19
    t.dealer_stand(rid)  # 18
    t.assert_hand(rid, "h1", -2_000, ["VU-12"], "over-draw")
    t.assert_hand(rid, "h2", 600, ["VU-14"], "won")
    assert t.deltas() == {"D": 1_400, "A": -2_000, "B": 600}
    t.assert_books_balance()


def test_VU_7_second_card_face_down_to_each_player_and_the_dealer_in_the_same_order(app, vingt_un):
    t = vingt_un(["D", "A", "B"])
    rid = t.start(["TC", "5C", "9D", "7C", "6D", "6H", "4H"])
    t.stake(rid, "A", 200)
    t.stake(rid, "B", 400)
    assert all(len(t.round(rid).hands[h]["cards"]) == 1 for h in ("h1", "h2"))  # not before VU-6
    t.double(rid, False)

    events = t.events(rid)
    names = [type(e).__name__ for e in events]
    after_double = events[names.index("DealerDoubleCalled") + 1 :]
    second = of_type(after_double, "CardDealt")[:3]
    assert [(c.hand, c.card, c.face_up, c.drawn, c.clause) for c in second] == [
        ("h1", "7C", False, False, "VU-7"),
        ("h2", "6D", False, False, "VU-7"),
        ("dealer", "6H", False, False, "VU-7"),
    ]
    rnd = t.round(rid)
    assert rnd.hands["h1"]["face_up"] == [False, False]
    assert rnd.hands["h2"]["face_up"] == [False, False]

    t.stand(rid, "A", "h1")  # 17
    t.hit(rid, "B", "h2")  # 11 + 4 = 15
    t.stand(rid, "B", "h2")
    t.dealer_stand(rid)  # 15
    t.assert_hand(rid, "h1", 200, ["VU-14"], "won")
    t.assert_hand(rid, "h2", -400, ["VU-14"], "lost")  # 15 against 15: the dealer's tie
    assert t.deltas() == {"D": 200, "A": 200, "B": -400}
    t.assert_books_balance()


# -- Naturals ------------------------------------------------------------------------------------


@pytest.mark.parametrize("double", [False, True], ids=["stakes", "doubled-stakes"])
def test_VU_8_dealer_natural_collects_double_from_every_player_and_ends_the_round(
    app,
    vingt_un,
    double,
):
    t = vingt_un(["D", "A", "B", "C"])
    # A 9,9; B ace-king (natural); C 5,7; the dealer ace-queen.
    rid = t.deal(
        ["9C", "AH", "5D", "AS", "9D", "KH", "7C", "QD"],
        {"A": 200, "B": 300, "C": 100},
        double=double,
    )
    k = 2 if double else 1

    rnd = t.round(rid)
    assert rnd.ended and rnd.phase == "ended"
    assert not [c for c in of_type(t.events(rid), "CardDealt") if c.drawn]  # nobody drew
    assert rnd.dealer_hand["face_up"] == [True, True]  # both cards shown
    declared = of_type(t.events(rid), "NaturalDeclared")
    assert [(d.hand, d.clause) for d in declared] == [("dealer", "VU-8"), ("h2", "VU-9")]
    t.assert_hand(rid, "h1", -400 * k, ["VU-8"], "dealer natural")
    t.assert_hand(rid, "h2", 0, ["VU-9"], "natural stand-off")
    t.assert_hand(rid, "h3", -200 * k, ["VU-8"], "dealer natural")
    (ended,) = of_type(t.events(rid), "Ended")
    assert (ended.passes_deal, ended.clause) == (False, "VU-8")
    assert t.dealer() == "D"  # the dealer's own natural keeps his deal
    assert t.deltas() == {"D": 600 * k, "A": -400 * k, "B": 0, "C": -200 * k}
    t.assert_books_balance()


@pytest.mark.parametrize("double", [False, True], ids=["stakes", "doubled-stakes"])
def test_VU_9_natural_against_natural_neither_pays_the_other(vingt_un, double):
    t = vingt_un(["D", "A"])
    rid = t.deal(["AH", "AS", "KC", "QD"], {"A": 700}, double=double)
    t.assert_hand(rid, "h1", 0, ["VU-9"], "natural stand-off")
    assert t.settled(rid)["h1"].stake == (1_400 if double else 700)
    assert t.deltas() == {"D": 0, "A": 0}
    t.assert_books_balance()


# Player natural A (ace, king); B 9,10 = 19; the dealer 9,8 = 17.
NATURAL_FOR_A = ["AC", "TC", "9D", "KC", "9C", "8D"]


@pytest.mark.parametrize("double", [False, True], ids=["stakes", "doubled-stakes"])
def test_VU_10_player_natural_is_paid_double_at_once_and_the_deal_passes_left(
    app,
    vingt_un,
    double,
):
    t = vingt_un(["D", "A", "B"])
    rid = t.deal(NATURAL_FOR_A, {"A": 200, "B": 300}, double=double)
    k = 2 if double else 1

    # Declared and paid at once, while B still has to play.
    rnd = t.round(rid)
    assert rnd.phase == "play"
    assert rnd.hands["h1"]["result"] == 400 * k
    assert t.balances()["A"] == START + 400 * k
    (declared,) = of_type(t.events(rid), "NaturalDeclared")
    assert (declared.hand, declared.clause) == ("h1", "VU-10")

    t.stand(rid, "B", "h2")  # 19
    t.dealer_stand(rid)  # 17
    t.assert_hand(rid, "h1", 400 * k, ["VU-10"], "natural")
    t.assert_hand(rid, "h2", 300 * k, ["VU-14"], "won")
    (ended,) = of_type(t.events(rid), "Ended")
    assert (ended.passes_deal, ended.clause) == (True, "VU-10")
    (passed,) = of_type(list(app.events.get(UUID(t.table_id))), "DealPassed")
    assert (passed.from_player, passed.to_player, passed.clause) == (
        t.ids["D"],
        t.ids["A"],
        "VU-10",
    )
    assert t.dealer() == "A"  # the player on the dealer's left
    assert t.deltas() == {"D": -700 * k, "A": 400 * k, "B": 300 * k}
    t.assert_books_balance()


def test_VU_10_natural_passes_deal_false_keeps_the_dealer(app, vingt_un):
    t = vingt_un(["D", "A", "B"], {"natural_passes_deal": False})
    rid = t.deal(NATURAL_FOR_A, {"A": 200, "B": 300})
    t.stand(rid, "B", "h2")
    t.dealer_stand(rid)
    t.assert_hand(rid, "h1", 400, ["VU-10"], "natural")
    t.assert_hand(rid, "h2", 300, ["VU-14"], "won")
    (ended,) = of_type(t.events(rid), "Ended")
    assert ended.passes_deal is False
    assert not of_type(list(app.events.get(UUID(t.table_id))), "DealPassed")
    assert t.dealer() == "D"
    assert t.deltas() == {"D": -700, "A": 400, "B": 300}
    t.assert_books_balance()


def test_VU_10_natural_collects_from_players_takes_one_stake_from_each_other_player(app, vingt_un):
    t = vingt_un(["D", "A", "B", "C"], {"natural_collects_from_players": True})
    # A natural; B 10,9 = 19; C 8,7 = 15; the dealer 10,Q = 20.
    rid = t.deal(["AC", "TC", "8C", "TD", "KC", "9C", "7H", "QD"], {"A": 200, "B": 300, "C": 100})
    assert t.balances()["A"] == START + 400 + 300 + 100  # all at once, on the declaration

    t.stand(rid, "B", "h2")
    t.stand(rid, "C", "h3")
    t.dealer_stand(rid)
    t.assert_hand(rid, "h1", 400, ["VU-10"], "natural")  # from the dealer
    t.assert_hand(rid, "h2", -300, ["VU-14"], "lost")
    t.assert_hand(rid, "h3", -100, ["VU-14"], "lost")
    from_players = [
        (e.from_account, e.amount)
        for e in of_type(list(app.events.get(UUID(t.ids["A"]))), "FundsTransferred")
        if e.clause == "VU-10" and "collects one stake" in e.memo
    ]
    assert sorted(from_players) == [(accounts.escrow(rid), 100), (accounts.escrow(rid), 300)]
    assert t.deltas() == {"D": 0, "A": 800, "B": -600, "C": -200}
    t.assert_books_balance()


def test_VU_10_two_naturals_neither_pay_nor_collect_from_each_other(vingt_un):
    # The ledger's reading (README): natural against natural stands off between players as
    # it does with the dealer (VU-9); only a hand without a natural pays each natural.
    t = vingt_un(["D", "A", "B", "C"], {"natural_collects_from_players": True})
    # A and B naturals; C 9,7 = 16; the dealer 8,9 = 17.
    rid = t.deal(["AC", "AD", "9C", "8D", "KC", "KD", "7C", "9H"], {"A": 200, "B": 300, "C": 100})
    side = [(e.hand, e.to_hand, e.amount, e.clause) for e in of_type(t.events(rid), "HoldAdjusted")]
    assert side == [("h3", "h1", -100, "VU-10"), ("h3", "h2", -100, "VU-10")]

    t.stand(rid, "C", "h3")
    t.dealer_stand(rid)
    t.assert_hand(rid, "h1", 400, ["VU-10"], "natural")
    t.assert_hand(rid, "h2", 600, ["VU-10"], "natural")
    t.assert_hand(rid, "h3", -100, ["VU-14"], "lost")
    assert t.deltas() == {"D": -900, "A": 500, "B": 700, "C": -300}
    t.assert_books_balance()


# -- Drawing -------------------------------------------------------------------------------------


def test_VU_11_drawn_cards_face_up_one_at_a_time_as_many_as_asked_in_turn(app, vingt_un):
    t = vingt_un(["D", "A", "B"])
    rid = t.deal(
        ["2C", "TC", "TD", "3D", "8C", "7D", "2H", "3H", "4C", "AS", "5S"], {"A": 100, "B": 200}
    )
    refused(app, OutOfTurn, "VU-11", t.hit, rid, "B", "h2")  # A is served first
    refused(app, NotPermitted, "VU-11", t.hit, rid, "A", "h2")  # not his hand
    drawn = [t.hit(rid, "A", "h1") for _ in range(5)]
    assert drawn == ["2H", "3H", "4C", "AS", "5S"]  # from the top, in order
    assert t.round(rid).total("h1") == 20  # 2+3+2+3+4+1+5: the ace counts one here
    t.stand(rid, "A", "h1")
    t.stand(rid, "B", "h2")  # 18
    t.dealer_stand(rid)  # 17

    draws = [c for c in of_type(t.events(rid), "CardDealt") if c.drawn]
    assert [(c.hand, c.face_up, c.clause, c.actor) for c in draws] == [
        ("h1", True, "VU-11", t.ids["A"])
    ] * 5
    assert t.round(rid).hands["h1"]["face_up"] == [False, False, True, True, True, True, True]
    t.assert_hand(rid, "h1", 100, ["VU-14"], "won")
    t.assert_hand(rid, "h2", 200, ["VU-14"], "won")
    assert t.deltas() == {"D": -300, "A": 100, "B": 200}
    t.assert_books_balance()


@pytest.mark.parametrize("double", [False, True], ids=["stake", "doubled-stake"])
def test_VU_12_overdraw_pays_the_dealer_at_once_and_the_first_two_cards_stay_hidden(
    app,
    vingt_un,
    double,
):
    t = vingt_un(["D", "A", "B"])
    rid = t.deal(["TC", "9C", "8D", "6C", "TD", "9H", "8H"], {"A": 300, "B": 200}, double=double)
    k = 2 if double else 1
    d_before = t.balances()["D"]
    t.hit(rid, "A", "h1")  # 16 + 8 = 24

    # Paid at once: before B plays and before the dealer turns his cards.
    rnd = t.round(rid)
    assert rnd.phase == "play" and rnd.current_turn() == "h2"
    t.assert_hand(rid, "h1", -300 * k, ["VU-12"], "over-draw")
    (over,) = of_type(t.events(rid), "HandOverdrawn")
    assert (over.hand, over.total, over.clause) == ("h1", 24, "VU-12")
    assert t.balances()["A"] == START - 300 * k
    assert t.balances()["D"] == d_before + 300 * k

    t.stand(rid, "B", "h2")  # 19
    t.dealer_stand(rid)  # 17
    t.assert_hand(rid, "h2", 200 * k, ["VU-14"], "won")
    # Nobody may see his first two cards, not even once the round is over.
    rnd = t.round(rid)
    assert rnd.hands["h1"]["face_up"] == [False, False, True]
    assert not [e for e in of_type(t.events(rid), "CardsShown") if e.hand == "h1"]
    assert t.deltas() == {"D": 100 * k, "A": -300 * k, "B": 200 * k}
    t.assert_books_balance()


def test_VU_13_after_the_players_the_dealer_turns_up_his_cards_and_may_stand_on_12(app, vingt_un):
    t = vingt_un(["D", "A"])
    rid = t.deal(["TC", "TD", "3C", "2D", "9S"], {"A": 400})
    refused(app, WrongPhase, "VU-13", t.dealer_stand, rid)  # not before the round of players
    t.stand(rid, "A", "h1")  # 13

    rnd = t.round(rid)
    assert rnd.phase == "dealer"
    assert rnd.dealer_hand["face_up"] == [True, True]
    shown = [e for e in of_type(t.events(rid), "CardsShown") if e.hand == "dealer"]
    assert [e.clause for e in shown] == ["VU-13"]
    refused(app, NotPermitted, "VU-13", app.act, rid, "dealer_draw", actor=t.ids["A"])

    t.dealer_stand(rid)  # on 12: no fixed rule makes him draw
    stood = [e for e in of_type(t.events(rid), "HandStood") if e.hand == "dealer"]
    assert [(e.total, e.clause) for e in stood] == [(12, "VU-13")]
    t.assert_hand(rid, "h1", 400, ["VU-14"], "won")
    assert t.settled(rid)["h1"].dealer_total == 12
    assert t.deltas() == {"D": -400, "A": 400}
    t.assert_books_balance()


def test_VU_13_the_dealer_may_draw_on_18_at_his_own_discretion(app, vingt_un):
    t = vingt_un(["D", "A"])
    rid = t.deal(["TC", "TD", "9C", "8D", "2H"], {"A": 400})
    refused(app, WrongPhase, "VU-13", t.dealer_draw, rid)  # A has not played yet
    t.stand(rid, "A", "h1")  # 19
    assert t.dealer_draw(rid) == "2H"  # 18 + 2 = 20
    (drawn,) = [c for c in of_type(t.events(rid), "CardDealt") if c.hand == "dealer" and c.drawn]
    assert (drawn.face_up, drawn.clause) == (True, "VU-13")
    t.dealer_stand(rid)
    t.assert_hand(rid, "h1", -400, ["VU-14"], "lost")
    assert t.settled(rid)["h1"].dealer_total == 20
    assert t.deltas() == {"D": 400, "A": -400}
    t.assert_books_balance()


# -- Settlement ----------------------------------------------------------------------------------


def test_VU_14_dealer_wins_ties(vingt_un):
    t = vingt_un(["D", "A", "B", "C"])
    rid = t.deal(["TC", "TD", "TH", "TS", "8C", "9D", "7H", "8S"], {"A": 300, "B": 200, "C": 100})
    t.stand(rid, "A", "h1")  # 18
    t.stand(rid, "B", "h2")  # 19
    t.stand(rid, "C", "h3")  # 17
    t.dealer_stand(rid)  # 18

    tie = t.assert_hand(rid, "h1", -300, ["VU-14"], "lost")
    assert (tie.player_total, tie.dealer_total) == (18, 18)
    t.assert_hand(rid, "h2", 200, ["VU-14"], "won")
    t.assert_hand(rid, "h3", -100, ["VU-14"], "lost")
    assert t.deltas() == {"D": 200, "A": -300, "B": 200, "C": -100}
    t.assert_books_balance()


def test_VU_15_dealer_overdraws_pays_those_standing_and_nothing_back_to_overdrawers(app, vingt_un):
    t = vingt_un(["D", "A", "B", "C"])
    rid = t.deal(
        ["TC", "9C", "TD", "TH", "5C", "TS", "6D", "6H", "9D", "8S"], {"A": 300, "B": 200, "C": 100}
    )
    t.stand(rid, "A", "h1")  # 15
    t.stand(rid, "B", "h2")  # 19
    t.hit(rid, "C", "h3")  # 16 + 9 = 25
    assert t.dealer_draw(rid) == "8S"  # 16 + 8 = 24

    over = [e for e in of_type(t.events(rid), "HandOverdrawn") if e.hand == "dealer"]
    assert [(e.total, e.clause) for e in over] == [(24, "VU-15")]
    assert t.round(rid).ended
    t.assert_hand(rid, "h1", 300, ["VU-15"], "won")
    t.assert_hand(rid, "h2", 200, ["VU-15"], "won")
    t.assert_hand(rid, "h3", -100, ["VU-12"], "over-draw")
    assert t.deltas() == {"D": -400, "A": 300, "B": 200, "C": -100}
    t.assert_books_balance()


def test_VU_16_dealer_drawn_vingt_un_takes_double_but_single_from_a_drawn_vingt_un(vingt_un):
    t = vingt_un(["D", "A", "B", "C"])
    rid = t.deal(
        ["TC", "5C", "TD", "TH", "9C", "6D", "6C", "4H", "TS", "8D", "7S"],
        {"A": 300, "B": 200, "C": 100},
    )
    t.stand(rid, "A", "h1")  # 19
    t.hit(rid, "B", "h2")  # 11 + 10 = 21, drawn: he stands on it
    t.hit(rid, "C", "h3")  # 16 + 8 = 24
    assert t.dealer_draw(rid) == "7S"  # 14 + 7 = 21, drawn
    t.dealer_stand(rid)

    t.assert_hand(rid, "h1", -600, ["VU-16"], "lost")
    t.assert_hand(rid, "h2", -200, ["VU-16"], "lost")
    t.assert_hand(rid, "h3", -100, ["VU-12"], "over-draw")  # nothing further
    assert t.deltas() == {"D": 900, "A": -600, "B": -200, "C": -100}
    t.assert_books_balance()


def test_VU_17_player_drawn_vingt_un_is_paid_double_when_the_dealer_has_none(vingt_un):
    t = vingt_un(["D", "A"])
    rid = t.deal(["5C", "TD", "6C", "9D", "TH"], {"A": 250})
    t.hit(rid, "A", "h1")  # 11 + 10 = 21
    stood = of_type(t.events(rid), "HandStood")
    assert [(e.hand, e.total, e.actor) for e in stood] == [("h1", 21, "ledger")]
    t.dealer_stand(rid)  # 19
    t.assert_hand(rid, "h1", 500, ["VU-17"], "won")
    assert t.deltas() == {"D": -500, "A": 500}
    t.assert_books_balance()


def test_VU_17_player_drawn_vingt_un_is_paid_double_when_the_dealer_overdraws(vingt_un):
    t = vingt_un(["D", "A"])
    rid = t.deal(["5C", "TD", "6C", "6D", "KH", "9S"], {"A": 250})
    t.hit(rid, "A", "h1")  # 21
    t.dealer_draw(rid)  # 16 + 9 = 25
    t.assert_hand(rid, "h1", 500, ["VU-15", "VU-17"], "won")
    assert t.deltas() == {"D": -500, "A": 500}
    t.assert_books_balance()


# -- Dividing ------------------------------------------------------------------------------------


def test_VU_18_a_king_and_a_queen_are_not_a_pair(app, vingt_un):
    t = vingt_un(["D", "A"])
    rid = t.deal(["KC", "TD", "QC", "8D"], {"A": 300})
    error = refused(app, NotAPair, "VU-18", t.split, rid, "A", "h1", 300)
    assert "KC" in error.message and "QC" in error.message
    assert list(t.round(rid).hands) == ["h1"]
    t.stand(rid, "A", "h1")  # 20
    t.dealer_stand(rid)  # 18
    t.assert_hand(rid, "h1", 300, ["VU-14"], "won")
    assert t.deltas() == {"D": -300, "A": 300}
    t.assert_books_balance()


def test_VU_18_two_kings_are_a_pair_and_may_be_divided(vingt_un):
    t = vingt_un(["D", "A"])
    rid = t.deal(["KC", "TD", "KD", "8D", "9C", "7C"], {"A": 300})
    assert t.split(rid, "A", "h1", 100) == "h2"
    rnd = t.round(rid)
    assert rnd.hands["h1"]["cards"] == ["KC", "9C"]
    assert rnd.hands["h2"]["cards"] == ["KD", "7C"]
    t.stand(rid, "A", "h1")  # 19
    t.stand(rid, "A", "h2")  # 17
    t.dealer_stand(rid)  # 18
    t.assert_hand(rid, "h1", 300, ["VU-14"], "won")
    t.assert_hand(rid, "h2", -100, ["VU-14"], "lost")
    assert t.deltas() == {"D": -200, "A": 200}
    t.assert_books_balance()


def test_VU_19_a_separate_stake_of_a_different_amount_and_a_card_on_each(app, vingt_un):
    t = vingt_un(["D", "A", "B"])
    rid = t.deal(["7C", "TC", "TD", "7D", "8C", "8D", "TH", "4S", "9S"], {"A": 200, "B": 100})
    refused(app, StakeOutOfLimits, "VU-19", t.split, rid, "A", "h1", 1_001)
    refused(app, StakeOutOfLimits, "VU-19", t.split, rid, "A", "h1", 99)
    refused(
        app, NotPermitted, "VU-19", app.act, rid, "split", actor=t.ids["B"], hand="h1", amount=500
    )

    assert t.split(rid, "A", "h1", 500) == "h3"
    events = t.events(rid)
    (split,) = of_type(events, "HandSplit")
    assert (split.hand, split.new_hand, split.card, split.clause) == ("h1", "h3", "7D", "VU-19")
    placed = [(p.hand, p.amount, p.clause) for p in of_type(events, "StakePlaced")]
    assert placed[-1] == ("h3", 500, "VU-19")
    on_each = [(c.hand, c.card, c.clause) for c in of_type(events, "CardDealt")][-2:]
    assert on_each == [("h1", "TH", "VU-19"), ("h3", "4S", "VU-19")]
    rnd = t.round(rid)
    assert rnd.order == ["h1", "h3", "h2"]
    assert (rnd.hands["h1"]["stake"], rnd.hands["h3"]["stake"]) == (200, 500)

    t.stand(rid, "A", "h1")  # 17
    t.hit(rid, "A", "h3")  # 11 + 9 = 20
    t.stand(rid, "A", "h3")
    t.stand(rid, "B", "h2")  # 18
    t.dealer_stand(rid)  # 18
    t.assert_hand(rid, "h1", -200, ["VU-14"], "lost")
    t.assert_hand(rid, "h3", 500, ["VU-14"], "won")
    t.assert_hand(rid, "h2", -100, ["VU-14"], "lost")
    assert t.deltas() == {"D": -200, "A": 300, "B": -100}
    t.assert_books_balance()


def test_VU_19_after_the_dealers_double_a_stake_past_the_maximum_is_not_copied(app, vingt_un):
    # VU-6 doubles A's 600 to 1,200, past the maximum of 1,000 (VU-1); the divided card's
    # stake is a separate one "within the limits" (VU-19). B's 300 doubled is 600: within.
    t = vingt_un(["D", "A", "B"])
    cards = ["7C", "3C", "TD", "7D", "3D", "8D", "TH", "4S", "TS", "5S", "9S", "KS"]
    rid = t.deal(cards, {"A": 600, "B": 300}, double=True)

    error = refused(app, StakeOutOfLimits, "VU-19", t.split, rid, "A", "h1")
    assert "1200" in error.message and "dealer's double" in error.message
    assert "100..1000" in error.message and "name it" in error.message
    refused(app, StakeOutOfLimits, "VU-19", t.split, rid, "A", "h1", 1_200)
    assert t.split(rid, "A", "h1", 1_000) == "h3"  # named: the most the limits allow
    t.stand(rid, "A", "h1")  # 7 TH: 17
    t.stand(rid, "A", "h3")  # 7 4S: 11
    assert t.split(rid, "B", "h2") == "h4"  # none named: his stake as doubled, 600
    rnd = t.round(rid)
    stakes = {h: rnd.hands[h]["stake"] for h in ("h1", "h3", "h2", "h4")}
    assert stakes == {"h1": 1_200, "h3": 1_000, "h2": 600, "h4": 600}
    t.stand(rid, "B", "h2")  # 3 TS: 13
    t.stand(rid, "B", "h4")  # 3 5S: 8
    t.dealer_stand(rid)  # 18

    t.assert_hand(rid, "h1", -1_200, ["VU-14"], "lost")
    t.assert_hand(rid, "h3", -1_000, ["VU-14"], "lost")
    t.assert_hand(rid, "h2", -600, ["VU-14"], "lost")
    t.assert_hand(rid, "h4", -600, ["VU-14"], "lost")
    assert t.deltas() == {"D": 3_400, "A": -2_200, "B": -1_200}
    t.assert_books_balance()


def _divide_four_sevens(t: VingtUnTable, fourth_hand_second_card: str) -> str:
    """A holds 7C 7D and divides them into four hands (stakes 100, 200, 300, 400)."""
    cards = (
        ["7C", "TD", "7D", "8D"]  # A: 7,7; the dealer 18
        + ["7H", "7S"]  # a seven on each of the first two hands
        + ["TC", "TH"]  # h1 and h3 after the second division: 17 each
        + ["4C", fourth_hand_second_card]  # h2 and h4 after the third division
        + ["9C", "6C"]  # draws
    )
    rid = t.deal(cards, {"A": 100})
    assert t.split(rid, "A", "h1", 200) == "h2"
    assert t.split(rid, "A", "h1", 300) == "h3"  # the seven received on h1 matches again
    t.stand(rid, "A", "h1")
    t.stand(rid, "A", "h3")
    assert t.split(rid, "A", "h2", 400) == "h4"  # so does the one received on h2
    rnd = t.round(rid)
    assert rnd.order == ["h1", "h3", "h2", "h4"]
    assert [rnd.hands[h]["stake"] for h in ("h1", "h2", "h3", "h4")] == [100, 200, 300, 400]
    return rid


def test_VU_20_a_matching_card_may_be_divided_again_up_to_four_hands(vingt_un):
    t = vingt_un(["D", "A"])
    rid = _divide_four_sevens(t, "QC")
    t.hit(rid, "A", "h2")  # 11 + 9 = 20
    t.stand(rid, "A", "h2")
    t.stand(rid, "A", "h4")  # 17
    t.dealer_stand(rid)  # 18
    t.assert_hand(rid, "h1", -100, ["VU-14"], "lost")
    t.assert_hand(rid, "h2", 200, ["VU-14"], "won")
    t.assert_hand(rid, "h3", -300, ["VU-14"], "lost")
    t.assert_hand(rid, "h4", -400, ["VU-14"], "lost")
    assert t.deltas() == {"D": 600, "A": -600}
    t.assert_books_balance()


def test_VU_20_no_fifth_hand_when_the_first_hand_is_divided_again_from_two_packs(app, vingt_un):
    t = vingt_un(["D", "A"], {"deal_limit": "two_packs"})  # two packs: eight sevens
    cards = (
        ["7C", "TD", "7D", "8D"]  # A: 7,7; the dealer 18
        + ["7H", "4C"]  # first division: h1 7,7 again; h2 7,4
        + ["7S", "TH"]  # second division of h1: h1 7,7 again; h3 7,10
        + ["7C", "QC"]  # third division of h1: h1 7,7 (the second pack's seven); h4 7,Q
        + ["6C", "9C"]  # draws
    )
    rid = t.deal(cards, {"A": 100})
    assert t.split(rid, "A", "h1", 200) == "h2"
    assert t.split(rid, "A", "h1", 300) == "h3"
    assert t.split(rid, "A", "h1", 400) == "h4"
    assert t.round(rid).hands["h1"]["cards"] == ["7C", "7C"]
    refused(app, RuleViolation, "VU-20", t.split, rid, "A", "h1", 100)
    assert t.round(rid).order == ["h1", "h4", "h3", "h2"]

    t.hit(rid, "A", "h1")  # 14 + 6 = 20
    t.stand(rid, "A", "h1")
    t.stand(rid, "A", "h4")  # 17
    t.stand(rid, "A", "h3")  # 17
    t.hit(rid, "A", "h2")  # 11 + 9 = 20
    t.stand(rid, "A", "h2")
    t.dealer_stand(rid)  # 18
    t.assert_hand(rid, "h1", 100, ["VU-14"], "won")
    t.assert_hand(rid, "h2", 200, ["VU-14"], "won")
    t.assert_hand(rid, "h3", -300, ["VU-14"], "lost")
    t.assert_hand(rid, "h4", -400, ["VU-14"], "lost")
    assert t.deltas() == {"D": 400, "A": -400}
    t.assert_books_balance()


def test_VU_20_no_fifth_hand_from_a_seven_received_on_a_divided_hand(app, vingt_un):
    t = vingt_un(["D", "A"], {"deal_limit": "two_packs"})
    rid = _divide_four_sevens(t, "7C")  # the second pack's seven of clubs on the fourth hand
    t.hit(rid, "A", "h2")  # 20
    t.stand(rid, "A", "h2")
    refused(app, RuleViolation, "VU-20", t.split, rid, "A", "h4", 100)
    t.hit(rid, "A", "h4")  # 14 + 6 = 20
    t.stand(rid, "A", "h4")
    t.dealer_stand(rid)  # 18
    assert len(t.round(rid).hands) == 4
    t.assert_hand(rid, "h1", -100, ["VU-14"], "lost")
    t.assert_hand(rid, "h2", 200, ["VU-14"], "won")
    t.assert_hand(rid, "h3", -300, ["VU-14"], "lost")
    t.assert_hand(rid, "h4", 400, ["VU-14"], "won")
    assert t.deltas() == {"D": -200, "A": 200}
    t.assert_books_balance()


def test_VU_22_a_third_matching_card_gives_no_right_to_divide(app, vingt_un):
    t = vingt_un(["D", "A"])
    rid = t.deal(["5C", "TD", "5D", "8D", "5H"], {"A": 300})
    t.hit(rid, "A", "h1")  # 5,5,5 = 15
    before = app.recorder.max_notification_id()
    with pytest.raises(NotAPair) as info:
        t.split(rid, "A", "h1", 300)
    # VU-18 ("only the first two cards") and VU-22 both decide this refusal.
    assert info.value.clause in ("VU-18", "VU-22")
    assert app.recorder.max_notification_id() == before
    assert list(t.round(rid).hands) == ["h1"]
    t.stand(rid, "A", "h1")
    t.dealer_stand(rid)  # 18
    t.assert_hand(rid, "h1", -300, ["VU-14"], "lost")
    assert t.deltas() == {"D": 300, "A": -300}
    t.assert_books_balance()


def test_VU_21_VU_20_the_dealer_divides_again_when_a_card_so_received_matches(app, vingt_un):
    t = vingt_un(["D", "A", "B"])
    cards = (
        ["TC", "TD", "8C", "9C", "7D", "8H"]  # A 19, B 17; the dealer 8,8
        + ["8S", "TH"]  # first division: the dealer's first hand 8,8 again; his second 8,10
        + ["2C", "3C"]  # second division of his first hand: 8,2 and his third hand 8,3
        + ["9H", "KS"]  # his draws
    )
    rid = t.deal(cards, {"A": 100, "B": 200})
    t.stand(rid, "A", "h1")
    t.stand(rid, "B", "h2")
    dealer = t.round(rid).dealer
    assert t.app.act(rid, "dealer_split", actor=dealer)["hands"] == ["dealer", "dealer2"]
    assert t.app.act(rid, "dealer_split", actor=dealer)["hands"] == ["dealer", "dealer3"]

    rnd = t.round(rid)
    # He plays a divided hand's new hand next after it, as a player does (VU-20, VU-21).
    assert rnd.dealer_hand_ids() == ["dealer", "dealer3", "dealer2"]
    assert {h: rnd.rules_hand(h)["cards"] for h in rnd.dealer_hand_ids()} == {
        "dealer": ["8C", "2C"],
        "dealer3": ["8S", "3C"],
        "dealer2": ["8H", "TH"],
    }
    divided = [(e.hand, e.new_hand, e.card) for e in of_type(t.events(rid), "DealerDivided")]
    assert divided == [("dealer", "dealer2", "8H"), ("dealer", "dealer3", "8S")]
    # Each of his three hands meets every stake: the first hold covered the worst case of the
    # deal (a double, VU-6, then a drawn 21, VU-16: four stakes); each division adds what one
    # more dealer hand can take from the stake as it stands, a drawn 21's two (no double called).
    assert [rnd.hands[h]["held"] for h in ("h1", "h2")] == [
        4 * 100 + 2 * (2 * 100),
        4 * 200 + 2 * (2 * 200),
    ]
    # The bank's cover: four times the stakes at staking, and with each division double them
    # (what one more dealer hand can pay; no double was called, VU-6).
    assert rnd.bank_held == 4 * 300 + 2 * (2 * 300)

    assert t.dealer_draw(rid) == "9H"  # 8 2 9: nineteen
    t.dealer_stand(rid)
    assert t.round(rid).dealer_in_turn() == "dealer3"
    assert t.dealer_draw(rid) == "KS"  # 8 3 K: a drawn Vingt-un
    t.dealer_stand(rid)
    assert t.round(rid).dealer_in_turn() == "dealer2"
    t.dealer_stand(rid)  # 8 10: eighteen

    # A's 19: a tie lost to the 19 (VU-14), double to the 21 (VU-16), one stake from the 18.
    t.assert_hand(rid, "h1", -200, ["VU-14", "VU-16", "VU-21"], "lost")
    # B's 17: loses to all three, double to the 21.
    t.assert_hand(rid, "h2", -800, ["VU-14", "VU-16", "VU-21"], "lost")
    assert t.deltas() == {"D": 1_000, "A": -200, "B": -800}
    t.assert_books_balance()


def test_VU_20_the_dealer_makes_no_fifth_hand_from_two_packs(app, vingt_un):
    t = vingt_un(["D", "A"], {"deal_limit": "two_packs"})  # two packs: eight eights
    cards = (
        ["TC", "8C", "9C", "8D"]  # A 19; the dealer 8,8
        + ["8H", "TH"]  # first division: his first hand 8,8 again; his second 8,10
        + ["8S", "2C"]  # second: his first hand 8,8 again; his third 8,2
        + ["8C", "3C"]  # third: his first hand 8,8 (the second pack's eight); his fourth 8,3
    )
    rid = t.deal(cards, {"A": 100})
    dealer = t.round(rid).dealer
    t.stand(rid, "A", "h1")
    for new_hand in ("dealer2", "dealer3", "dealer4"):
        assert t.app.act(rid, "dealer_split", actor=dealer)["hands"] == ["dealer", new_hand]
    assert t.round(rid).dealer_hand["cards"] == ["8C", "8C"]
    refused(app, RuleViolation, "VU-20", t.app.act, rid, "dealer_split", actor=dealer)
    assert t.round(rid).dealer_hand_ids() == ["dealer", "dealer4", "dealer3", "dealer2"]

    for _ in range(4):  # 16, 11, 10 and 18
        t.dealer_stand(rid)
    # A's 19 beats each of the four: one stake from each (VU-14).
    t.assert_hand(rid, "h1", 400, ["VU-14", "VU-21"], "won")
    assert t.deltas() == {"D": -400, "A": 400}
    t.assert_books_balance()


def test_VU_22_the_dealer_may_not_divide_on_a_third_matching_card(app, vingt_un):
    t = vingt_un(["D", "A"])
    rid = t.deal(["TC", "3C", "9C", "3D", "3H", "9S"], {"A": 100})
    t.stand(rid, "A", "h1")  # 19
    dealer = t.round(rid).dealer
    t.dealer_draw(rid)  # 3 3 3: nine
    refused(app, NotAPair, "VU-22", t.app.act, rid, "dealer_split", actor=dealer)
    t.dealer_draw(rid)  # 3 3 3 9: eighteen
    t.dealer_stand(rid)
    t.assert_hand(rid, "h1", 100, ["VU-14"], "won")
    assert t.deltas() == {"D": -100, "A": 100}
    t.assert_books_balance()


# -- The pool -----------------------------------------------------------------------------------


def test_VU_27a_every_player_pays_an_ante_into_the_pool_at_the_start_of_the_deal(app, vingt_un):
    t = vingt_un(["D", "A", "B"], {"pool_ante": 50})
    rid = t.start(["TC", "9C", "TD", "9D", "8C", "8D"])
    assert t.pool() == 100  # before any stake
    assert t.balances() == {"D": START, "A": START - 50, "B": START - 50}

    # Each ante leaves its wallet in the player's stream and reaches the pool in the table's,
    # through the round's escrow: each stream records the account it guards.
    def antes(stream: str) -> list[tuple]:
        return [
            (e.from_account, e.to_account, e.amount, e.clause, e.memo)
            for e in of_type(list(app.events.get(UUID(stream))), "FundsTransferred")
            if e.clause == "VU-27"
        ]

    pool, escrow = accounts.pool(t.table_id), accounts.escrow(rid)
    for name in ("A", "B"):
        assert antes(t.ids[name]) == [(accounts.player(t.ids[name]), escrow, 50, "VU-27", "ante")]
    assert antes(t.table_id) == [(escrow, pool, 50, "VU-27", "ante")] * 2

    t.stake(rid, "A", 200)
    t.stake(rid, "B", 100)
    t.double(rid, False)
    t.stand(rid, "A", "h1")  # 19
    t.stand(rid, "B", "h2")  # 17
    t.dealer_stand(rid)  # 18
    t.assert_hand(rid, "h1", 200, ["VU-14"], "won")
    t.assert_hand(rid, "h2", -100, ["VU-14"], "lost")
    assert t.pool() == 100
    assert t.deltas() == {"D": -100, "A": 150, "B": -150}
    t.assert_books_balance()


def test_VU_27b_the_dealer_pays_a_penalty_into_the_pool_when_he_overdraws(vingt_un):
    t = vingt_un(["D", "A"], {"pool_dealer_overdraw": 500})
    rid = t.deal(["TC", "TD", "8C", "6D", "9S"], {"A": 300})
    t.stand(rid, "A", "h1")  # 18
    t.dealer_draw(rid)  # 16 + 9 = 25
    t.assert_hand(rid, "h1", 300, ["VU-15"], "won")
    assert t.pool() == 500
    assert t.deltas() == {"D": -800, "A": 300}
    t.assert_books_balance()


def test_VU_27b_no_penalty_when_the_dealer_stands(vingt_un):
    t = vingt_un(["D", "A"], {"pool_dealer_overdraw": 500})
    rid = t.deal(["TC", "TD", "8C", "9D"], {"A": 300})
    t.stand(rid, "A", "h1")  # 18
    t.dealer_stand(rid)  # 19
    t.assert_hand(rid, "h1", -300, ["VU-14"], "lost")
    assert t.pool() == 0
    assert t.deltas() == {"D": 300, "A": -300}
    t.assert_books_balance()


@pytest.mark.parametrize(("share", "to_pool"), [("1/4", 100), ("1/3", 133)])
def test_VU_27c_the_dealer_pays_a_share_of_his_receipts_on_ties_into_the_pool(
    vingt_un,
    share,
    to_pool,
):
    t = vingt_un(["D", "A", "B", "C"], {"pool_tie_share": share})
    # A 18 and B 18 tie the dealer's 18; C 19 wins (not a tie: no share).
    rid = t.deal(["TC", "TD", "TS", "TH", "8C", "8D", "9S", "8H"], {"A": 300, "B": 100, "C": 200})
    for name, hand in (("A", "h1"), ("B", "h2"), ("C", "h3")):
        t.stand(rid, name, hand)
    t.dealer_stand(rid)
    t.assert_hand(rid, "h1", -300, ["VU-14"], "lost")
    t.assert_hand(rid, "h2", -100, ["VU-14"], "lost")
    t.assert_hand(rid, "h3", 200, ["VU-14"], "won")
    assert t.pool() == to_pool  # a share of the 400 received on ties, rounded down
    assert t.deltas() == {"D": 400 - 200 - to_pool, "A": -300, "B": -100, "C": 200}
    t.assert_books_balance()


@pytest.mark.parametrize(
    ("rounding", "share", "stake", "to_pool", "recorded"),
    [
        ("down", "1/3", 100, 33, "down: 100/3 -> 33"),
        ("up", "1/3", 100, 34, "up: 100/3 -> 34"),
        ("half_up", "1/3", 200, 67, "half_up: 200/3 -> 67"),
        ("half_up", "1/4", 102, 26, "half_up: 51/2 -> 26"),
        ("up", "1/4", 400, 100, "none"),
    ],
)
def test_VU_27c_the_share_of_tie_receipts_is_rounded_by_the_tables_rounding(
    app, vingt_un, rounding, share, stake, to_pool, recorded
):
    t = vingt_un(["D", "A"], {"pool_tie_share": share, "rounding": rounding})
    rid = t.deal(["TC", "TD", "8C", "8D"], {"A": stake})
    t.stand(rid, "A", "h1")  # 18
    t.dealer_stand(rid)  # 18: a tie, the dealer receives the stake (VU-14)
    t.assert_hand(rid, "h1", -stake, ["VU-14"], "lost")
    assert t.pool() == to_pool
    assert t.deltas() == {"D": stake - to_pool, "A": -stake}
    # The pool's leg records the fraction and the rounding, as HandSettled.rounding does,
    # and where the money came from: his cover (no credit here), not his wallet.
    (leg,) = [
        e
        for e in of_type(list(app.events.get(UUID(t.table_id))), "FundsTransferred")
        if e.clause == "VU-27"
    ]
    assert leg.amount == to_pool
    assert leg.memo == (
        f"share of receipts on ties: {share} of {stake}, rounding {recorded}, "
        "paid from his bank cover"
    )
    t.assert_books_balance()


def test_VU_27c_a_tie_at_drawn_vingt_un_also_pays_the_share_into_the_pool(vingt_un):
    t = vingt_un(["D", "A"], {"pool_tie_share": "1/4"})
    rid = t.deal(["5C", "TD", "6C", "4D", "TH", "7S"], {"A": 400})
    t.hit(rid, "A", "h1")  # 21, drawn
    t.dealer_draw(rid)  # 14 + 7 = 21, drawn: a tie, and the dealer receives the single stake
    t.dealer_stand(rid)
    t.assert_hand(rid, "h1", -400, ["VU-16"], "lost")
    assert t.pool() == 100
    assert t.deltas() == {"D": 300, "A": -400}
    t.assert_books_balance()


def test_VU_28_the_pool_pays_out_to_a_recipient_for_a_stated_reason(app, vingt_un):
    t = vingt_un(["D", "A", "B"], {"pool_ante": 100})
    rid = t.deal(["TC", "9C", "TD", "9D", "9H", "8D"], {"A": 200, "B": 100})
    t.stand(rid, "A", "h1")  # 19
    t.stand(rid, "B", "h2")  # 18, a tie
    t.dealer_stand(rid)  # 18
    t.assert_hand(rid, "h1", 200, ["VU-14"], "won")
    t.assert_hand(rid, "h2", -100, ["VU-14"], "lost")
    assert t.pool() == 200

    refused(app, RuleViolation, "VU-28", app.pay_from_pool, t.table_id, t.ids["B"], 201, "too much")
    refused(app, InvalidCommand, None, app.pay_from_pool, t.table_id, t.ids["B"], 150, "  ")
    out = app.pay_from_pool(t.table_id, t.ids["B"], 150, "best hand of the evening")
    assert (out["recipient"], out["amount"]) == (t.ids["B"], 150)

    payouts = [
        e
        for e in of_type(list(app.events.get(UUID(t.ids["B"]))), "FundsTransferred")
        if e.clause == "VU-28"
    ]
    # The pool's leg is recorded on the table, the wallet's in the player's stream.
    clearing = accounts.pool_payout(t.table_id)
    assert [(e.from_account, e.to_account, e.amount) for e in payouts] == [
        (clearing, accounts.player(t.ids["B"]), 150)
    ]
    (out_of_pool,) = [
        e
        for e in of_type(list(app.events.get(UUID(t.table_id))), "FundsTransferred")
        if e.clause == "VU-28"
    ]
    assert (out_of_pool.from_account, out_of_pool.to_account, out_of_pool.amount) == (
        accounts.pool(t.table_id),
        clearing,
        150,
    )
    assert "best hand of the evening" in payouts[0].memo
    assert t.pool() == 50
    # The table itself records the payout and the balance it was checked against (VU-28).
    (paid,) = of_type(list(app.events.get(UUID(t.table_id))), "PoolPaid")
    assert (paid.recipient, paid.amount, paid.balance, paid.clause) == (
        t.ids["B"],
        150,
        200,
        "VU-28",
    )
    assert paid.reason == "best hand of the evening"
    assert t.deltas() == {"D": -100, "A": 100, "B": -50}
    t.assert_books_balance()


# -- Limiting and passing the deal ------------------------------------------------------------


def test_VU_29_VU_30_a_natural_throws_the_dealer_out_and_the_deal_passes_left(app, vingt_un):
    t = vingt_un(["D", "A", "B"])
    first = t.deal(NATURAL_FOR_A + ["2C", "3C"], {"A": 200, "B": 300})
    t.stand(first, "B", "h2")  # 19
    t.dealer_stand(first)  # 17
    t.assert_hand(first, "h1", 400, ["VU-10"], "natural")
    t.assert_hand(first, "h2", 300, ["VU-14"], "won")
    assert t.dealer() == "A"
    refused(app, RuleViolation, "VU-2", app.start_round, t.table_id, actor=t.ids["D"])

    # A deals from seat 2: B (seat 3) is on his left, then D (seat 1), who is now the pone.
    second = t.start(["TC", "9C", "TD", "9D", "8C", "8D"], actor=t.ids["A"])
    rnd = t.round(second)
    assert rnd.dealer == t.ids["A"]
    assert rnd.seats == [[3, t.ids["B"]], [1, t.ids["D"]]]
    assert rnd.pone == t.ids["D"]
    t.stake(second, "B", 100)
    t.stake(second, "D", 200)
    t.double(second, False)
    t.stand(second, "B", "h1")  # 19
    t.stand(second, "D", "h2")  # 17
    t.dealer_stand(second)  # 18
    t.assert_hand(second, "h1", 100, ["VU-14"], "won")
    t.assert_hand(second, "h2", -200, ["VU-14"], "lost")
    assert t.dealer() == "A"  # no natural this time: he keeps the deal
    assert t.deltas() == {"D": -700 - 200, "A": 400 + 100, "B": 300 + 100}
    t.assert_books_balance()


def test_VU_29_deal_limit_hands_passes_the_deal_after_n_hands_not_on_a_natural(app, vingt_un):
    t = vingt_un(["D", "A", "B"], {"deal_limit": "hands", "deal_hands": 2})
    first = t.deal(NATURAL_FOR_A, {"A": 200, "B": 300})
    t.stand(first, "B", "h2")  # 19
    t.dealer_stand(first)  # 17
    t.assert_hand(first, "h1", 400, ["VU-10"], "natural")
    t.assert_hand(first, "h2", 300, ["VU-14"], "won")
    (ended,) = of_type(t.events(first), "Ended")
    assert ended.passes_deal is False
    assert t.dealer() == "D"  # a natural does not end a deal limited by hands

    second = t.deal(["TC", "9C", "TD", "9D", "8C", "7D"], {"A": 100, "B": 100})
    assert t.round(second).dealer == t.ids["D"]
    t.stand(second, "A", "h1")  # 19
    t.stand(second, "B", "h2")  # 17
    t.dealer_stand(second)  # 17
    t.assert_hand(second, "h1", 100, ["VU-14"], "won")
    t.assert_hand(second, "h2", -100, ["VU-14"], "lost")

    (passed,) = of_type(list(app.events.get(UUID(t.table_id))), "DealPassed")
    assert (passed.from_player, passed.to_player, passed.clause) == (
        t.ids["D"],
        t.ids["A"],
        "VU-29",
    )
    assert t.dealer() == "A"
    assert t.deltas() == {"D": -700, "A": 500, "B": 200}
    t.assert_books_balance()


# -- Selling the deal -------------------------------------------------------------------------


def test_VU_31_sell_deal_moves_the_price_from_buyer_to_seller_and_the_buyer_deals(app, vingt_un):
    t = vingt_un(["D", "A", "B", "C"])
    ids = t.ids
    refused(app, NotPermitted, "VU-31", app.offer_deal, t.table_id, ids["A"], ids["C"], 2_500)
    refused(app, InvalidCommand, "VU-31", app.offer_deal, t.table_id, ids["D"], ids["D"], 2_500)
    app.offer_deal(t.table_id, ids["D"], ids["C"], 2_500)
    assert t.deltas() == {"D": 0, "A": 0, "B": 0, "C": 0}  # an offer moves nothing
    app.accept_deal(t.table_id, ids["C"], 2_500)

    assert t.deltas() == {"D": 2_500, "A": 0, "B": 0, "C": -2_500}
    events = list(app.events.get(UUID(t.table_id)))
    (offered,) = of_type(events, "DealOffered")
    assert (offered.seller, offered.buyer, offered.price, offered.clause, offered.actor) == (
        ids["D"],
        ids["C"],
        2_500,
        "VU-31",
        ids["D"],
    )
    (sold,) = of_type(events, "DealSold")
    assert (sold.seller, sold.buyer, sold.price, sold.clause, sold.actor) == (
        ids["D"],
        ids["C"],
        2_500,
        "VU-31",
        ids["C"],  # the buyer's own acceptance
    )
    table = t.table()
    assert (table.dealer, table.proper_dealer) == (t.ids["C"], t.ids["D"])
    assert table.seat_of(t.ids["C"]) == 4  # the buyer does not change seats

    # C deals, starting with the player on the left of the proper dealer D: A, B, then D.
    rid = t.start(["AC", "TC", "9C", "TD", "KC", "9D", "7C", "8D"])
    rnd = t.round(rid)
    assert rnd.dealer == t.ids["C"]
    assert [rnd.hands[h]["player"] for h in rnd.order] == [t.ids["A"], t.ids["B"], t.ids["D"]]
    refused(app, WrongPhase, "VU-31", app.offer_deal, t.table_id, t.ids["C"], t.ids["B"], 100)
    refused(app, WrongPhase, "VU-31", app.sell_deal, t.table_id, t.ids["C"], t.ids["B"], 100)
    t.stake(rid, "A", 200)
    t.stake(rid, "B", 300)
    t.stake(rid, "D", 100)
    t.double(rid, False)
    t.stand(rid, "B", "h2")  # 19
    t.stand(rid, "D", "h3")  # 16
    t.dealer_stand(rid)  # 18
    t.assert_hand(rid, "h1", 400, ["VU-10"], "natural")
    t.assert_hand(rid, "h2", 300, ["VU-14"], "won")
    t.assert_hand(rid, "h3", -100, ["VU-14"], "lost")

    # The buyer loses the deal: it reverts to A, who would have dealt next had there been no
    # sale (the player on D's left), not to D, who sits on C's left.
    (passed,) = of_type(list(app.events.get(UUID(t.table_id))), "DealPassed")
    assert (passed.from_player, passed.to_player) == (t.ids["C"], t.ids["A"])
    assert t.dealer() == "A"

    sale = [
        (e.from_account, e.to_account, e.amount)
        for name in ("C", "D")
        for e in of_type(list(app.events.get(UUID(t.ids[name]))), "FundsTransferred")
        if e.clause == "VU-31"
    ]
    clearing = accounts.deal_sale(t.table_id)
    assert sale == [
        (accounts.player(t.ids["C"]), clearing, 2_500),
        (clearing, accounts.player(t.ids["D"]), 2_500),
    ]
    assert t.deltas() == {"D": 2_500 - 100, "A": 400, "B": 300, "C": -2_500 - 400 - 300 + 100}
    assert fold_balances(app).get(clearing, 0) == 0
    t.assert_books_balance()


def test_VU_31_the_buyer_must_agree_to_the_price(app, vingt_un):
    t = vingt_un(["D", "A", "B", "C"])
    ids, tid = t.ids, t.table_id
    refused(app, WrongPhase, "VU-31", app.accept_deal, tid, ids["C"], 2_500)  # nothing offered
    app.offer_deal(tid, ids["D"], ids["C"], 2_500)
    # Only the player offered the deal accepts, himself, at the price offered.
    refused(app, NotPermitted, "VU-31", app.accept_deal, tid, ids["B"], 2_500)
    refused(app, NotPermitted, "VU-31", app.accept_deal, tid, ids["C"], 2_500, actor=ids["D"])
    refused(app, RuleViolation, "VU-31", app.accept_deal, tid, ids["C"], 2_000)
    # A new offer replaces the open one: the buyer accepts only the price now offered.
    app.offer_deal(tid, ids["D"], ids["C"], 3_000)
    refused(app, RuleViolation, "VU-31", app.accept_deal, tid, ids["C"], 2_500)
    # Nobody but an admin records a sale in one step.
    for actor in (ids["D"], ids["C"]):
        refused(
            app, NotPermitted, "VU-31", app.sell_deal, tid, ids["D"], ids["C"], 3_000, actor=actor
        )
    assert t.deltas() == {"D": 0, "A": 0, "B": 0, "C": 0}
    assert t.table().dealer == ids["D"]
    app.accept_deal(tid, ids["C"], 3_000)
    assert t.deltas() == {"D": 3_000, "A": 0, "B": 0, "C": -3_000}


def test_VU_31_an_offer_can_be_withdrawn_or_declined_and_lapses_with_the_next_round(app, vingt_un):
    t = vingt_un(["D", "A", "B"])
    ids, tid = t.ids, t.table_id
    app.offer_deal(tid, ids["D"], ids["B"], 500)
    refused(app, NotPermitted, "VU-31", app.withdraw_deal_offer, tid, actor=ids["A"])
    app.withdraw_deal_offer(tid, actor=ids["D"])  # the seller withdraws
    refused(app, WrongPhase, "VU-31", app.accept_deal, tid, ids["B"], 500)
    app.offer_deal(tid, ids["D"], ids["B"], 500)
    app.withdraw_deal_offer(tid, actor=ids["B"])  # the buyer declines
    withdrawn = of_type(list(app.events.get(UUID(tid))), "DealOfferWithdrawn")
    assert [(w.actor, w.buyer, w.price, w.clause) for w in withdrawn] == [
        (ids["D"], ids["B"], 500, "VU-31"),
        (ids["B"], ids["B"], 500, "VU-31"),
    ]
    # Nothing open: nothing to withdraw (not found, as reading it says), not a conflict.
    refused(app, NotFound, "VU-31", app.withdraw_deal_offer, tid, actor=ids["D"])

    app.offer_deal(tid, ids["D"], ids["B"], 500)
    rid = t.start(["TC", "9D", "8H", "KC", "7D", "9C"])  # a round starts: the offer lapses
    assert t.table().deal_offer is None
    assert str(app.get_table(tid).current_round) == rid
    refused(app, WrongPhase, "VU-31", app.accept_deal, tid, ids["B"], 500)


def test_VU_31_an_offer_lapses_when_the_deal_changes_hands(app, vingt_un):
    t = vingt_un(["D", "A", "B"])
    ids, tid = t.ids, t.table_id
    app.offer_deal(tid, ids["D"], ids["B"], 500)
    app.choose_dealer(tid, ids["A"])
    refused(app, WrongPhase, "VU-31", app.accept_deal, tid, ids["B"], 500)
    assert t.deltas() == {"D": 0, "A": 0, "B": 0}


def test_VU_31_a_buyer_short_of_the_price_is_told_his_own_balance(app, vingt_un):
    t = vingt_un(["D", "A", "B"])
    ids, tid = t.ids, t.table_id
    app.offer_deal(tid, ids["D"], ids["B"], START + 1)
    error = refused(app, InsufficientFunds, "VU-31", app.accept_deal, tid, ids["B"], START + 1)
    assert f"holds {START}" in str(error)


# -- Seed 000, the worked example ----------------------------------------------------------------


def test_seed_000_four_then_nine_make_13_a_seven_makes_20_and_he_stands(vingt_un):
    t = vingt_un(["D", "A"])
    rid = t.deal(["4H", "TD", "9S", "8D", "7H"], {"A": 250})
    assert t.round(rid).total("h1") == 13
    assert t.hit(rid, "A", "h1") == "7H"
    rnd = t.round(rid)
    assert rnd.total("h1") == 20
    assert rnd.hands["h1"]["status"] == "open"  # 20 does not stand by itself: he chooses to
    t.stand(rid, "A", "h1")
    t.dealer_stand(rid)  # 18
    event = t.assert_hand(rid, "h1", 250, ["VU-14"], "won")
    assert (event.player_total, event.dealer_total) == (20, 18)
    assert t.deltas() == {"D": -250, "A": 250}
    t.assert_books_balance()


@pytest.mark.parametrize(
    ("double", "paid"), [(False, 250), (True, 500)], ids=["his-stake", "the-double"]
)
def test_seed_000_had_the_third_card_been_a_nine_he_overdraws_and_pays(vingt_un, double, paid):
    t = vingt_un(["D", "A"])
    rid = t.deal(["4H", "TD", "9S", "8D", "9C"], {"A": 250}, double=double)
    assert t.hit(rid, "A", "h1") == "9C"  # 4 + 9 + 9 = 22
    rnd = t.round(rid)
    assert rnd.ended  # nobody left standing: the dealer has no one to play against
    assert rnd.dealer_hand["cards"] == ["TD", "8D"]  # he drew nothing
    event = t.assert_hand(rid, "h1", -paid, ["VU-12"], "over-draw")
    assert event.player_total == 22
    assert rnd.hands["h1"]["face_up"] == [False, False, True]
    assert t.deltas() == {"D": paid, "A": -paid}
    t.assert_books_balance()
