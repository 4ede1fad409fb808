"""VU-23..VU-26: irregularities at a Vingt-un table, their remedies and the pool penalty."""

from uuid import UUID

import pytest

from ledger.balances import fold_balances
from ledger.domain.chain import project
from ledger.errors import OutOfTurn, RuleViolation, WrongPhase

PENALTY = 50


@pytest.fixture
def table(app, fund):
    """Dealer D in seat 1; Ann (h1) and Bob (h2) play; a pool with a penalty is kept."""
    dealer, ann, bob = fund("Dealer"), fund("Ann"), fund("Bob")
    table_id = app.open_table("vingt-un", {"penalty_amount": PENALTY})["table_id"]
    for seat, pid in enumerate((dealer, ann, bob), start=1):
        app.seat_player(table_id, pid, seat)
    app.choose_dealer(table_id, dealer)
    return table_id, dealer, ann, bob


def _deal(app, table_id, dealer, ann, bob, shoe, stakes=(100, 200)):
    app.fix_next_shoe(table_id, shoe)
    rid = app.start_round(table_id, actor=dealer)["round_id"]
    app.place_stake(rid, ann, stakes[0])
    app.place_stake(rid, bob, stakes[1])
    app.act(rid, "dealer_double", actor=dealer, called=False)
    return rid


def _balances(app, *players):
    return [app.get_player(p).balance for p in players]


def _settled(app, rid):
    return {e.hand: e for e in app.events.get(UUID(rid)) if type(e).__name__ == "HandSettled"}


# First cards: Ann 4, Bob 5, dealer 9; second: Ann 9, Bob 6, dealer 8 (dealer 17).
SHOE = ["4C", "5C", "9C", "9D", "6D", "8D"]


def test_VU_23_player_given_two_cards_rejects_one_and_is_content(app, table, nothing_written):
    table_id, dealer, ann, bob = table
    before = _balances(app, dealer, ann, bob)
    rid = _deal(app, table_id, dealer, ann, bob, [*SHOE, "7H", "9H", "2S", "3S", "4S"])

    app.act(rid, "serve_two", actor=dealer, hand="h1")
    with nothing_written(), pytest.raises(RuleViolation, match="take or reject") as refused:
        app.act(rid, "hit", actor=ann, hand="h1")
    app.act(rid, "reject", actor=ann, hand="h1", card="9H")

    rnd = app.get_round(rid)
    assert refused.value.clause == "VU-23"
    assert rnd.hands["h1"]["cards"] == ["4C", "9D", "7H"]
    assert rnd.current_turn() == "h2"  # content: Ann may not draw again
    app.act(rid, "stand", actor=bob, hand="h2")
    app.act(rid, "dealer_stand", actor=dealer)
    after = _balances(app, dealer, ann, bob)
    assert _settled(app, rid)["h1"].amount == 100  # 20 beats the dealer's 17 (VU-14)
    assert after == [before[0] - 100 + 200 - PENALTY, before[1] + 100, before[2] - 200]
    assert fold_balances(app)[f"pool:{table_id}"] == PENALTY  # VU-26: the dealer offended
    assert sum(fold_balances(app).values()) == 0


def test_VU_23_keeping_both_cards_may_over_draw(app, table):
    table_id, dealer, ann, bob = table
    rid = _deal(app, table_id, dealer, ann, bob, [*SHOE, "7H", "9H", "2S", "3S", "4S"])

    app.act(rid, "serve_two", actor=dealer, hand="h1")
    app.act(rid, "take", actor=ann, hand="h1")

    hand = app.get_round(rid).hands["h1"]
    assert hand["cards"] == ["4C", "9D", "7H", "9H"]
    assert hand["result"] == -100
    assert _settled(app, rid)["h1"].clauses == ["VU-12"]


def test_VU_23_the_dealer_must_keep_both_of_his_own(app, table):
    table_id, dealer, ann, bob = table
    rid = _deal(app, table_id, dealer, ann, bob, [*SHOE, "TS", "9H", "2S"])
    app.act(rid, "stand", actor=ann, hand="h1")
    app.act(rid, "stand", actor=bob, hand="h2")

    app.act(rid, "serve_two", actor=dealer, hand="dealer")

    rnd = app.get_round(rid)
    assert rnd.dealer_hand["cards"] == ["9C", "8D", "TS", "9H"]
    assert rnd.ended
    assert {h: e.clauses for h, e in _settled(app, rid).items()} == {
        "h1": ["VU-15"],
        "h2": ["VU-15"],
    }


def test_VU_24_a_player_missed_by_the_dealer_may_throw_up_his_cards(app, table):
    table_id, dealer, ann, bob = table
    before = _balances(app, ann)
    rid = _deal(app, table_id, dealer, ann, bob, [*SHOE, "2H", "3S", "4S"])

    app.act(rid, "serve_out_of_order", actor=dealer, hand="h2")
    app.act(rid, "throw_up", actor=ann, hand="h1")

    assert app.get_round(rid).hands["h1"]["result"] == 0
    assert _balances(app, ann)[0] == before[0]  # nothing passes; his hold is released
    assert _settled(app, rid)["h1"].clauses == ["VU-24"]
    assert app.get_round(rid).hands["h2"]["cards"] == ["5C", "6D", "2H"]


def test_VU_24_throwing_up_needs_a_missed_turn(app, table):
    table_id, dealer, ann, bob = table
    rid = _deal(app, table_id, dealer, ann, bob, [*SHOE, "2H", "3S", "4S"])
    stored = list(app.recorder.select_notifications(start=1, limit=10**6))

    with pytest.raises(RuleViolation) as refused:
        app.act(rid, "throw_up", actor=ann, hand="h1")

    assert refused.value.clause == "VU-24"
    assert list(app.recorder.select_notifications(start=1, limit=10**6)) == stored


def test_VU_24_a_player_missed_and_served_later_may_no_longer_throw_up(app, table, nothing_written):
    """VU-24 gives the player passed over a choice: served later from the top of the pack,
    or throw up his cards. Having drawn, he has chosen: he may not see his card and then
    give up his stake back."""
    table_id, dealer, ann, bob = table
    rid = _deal(app, table_id, dealer, ann, bob, [*SHOE, "2H", "3S", "4S"])
    app.act(rid, "serve_out_of_order", actor=dealer, hand="h2")
    app.act(rid, "hit", actor=ann, hand="h1")  # 4C 9D + 3S: 16

    with nothing_written(), pytest.raises(RuleViolation, match="not both") as refused:
        app.act(rid, "throw_up", actor=ann, hand="h1")

    assert refused.value.clause == "VU-24"
    assert app.get_round(rid).hands["h1"]["cards"] == ["4C", "9D", "3S"]
    assert {"action": "throw_up", "actor": ann, "hand": "h1"} not in app.allowed_actions(rid)


def test_VU_24_a_hand_that_drew_before_it_was_passed_over_may_still_throw_up(app, table):
    """Only a draw after the dealer passed the hand over is a choice made: one before it
    (the hand was in turn, drew, and then the dealer served the next out of order) is not."""
    table_id, dealer, ann, bob = table
    rid = _deal(app, table_id, dealer, ann, bob, [*SHOE, "2H", "3S", "4S"])
    app.act(rid, "hit", actor=ann, hand="h1")  # 4C 9D + 2H: 15, still in turn
    app.act(rid, "serve_out_of_order", actor=dealer, hand="h2")

    app.act(rid, "throw_up", actor=ann, hand="h1")

    assert _settled(app, rid)["h1"].outcome == "thrown up"


def test_VU_25_false_division_pays_on_each_hand_and_VU_26_penalty(app, table):
    table_id, dealer, ann, bob = table
    before = _balances(app, dealer, ann)
    rid = _deal(app, table_id, dealer, ann, bob, [*SHOE, "2H", "3S", "4S"])

    app.act(rid, "false_division", actor=dealer, hand="h1")
    app.act(rid, "stand", actor=bob, hand="h2")
    app.act(rid, "dealer_stand", actor=dealer)

    after = _balances(app, dealer, ann)
    assert _settled(app, rid)["h1"].amount == -200
    assert after == [before[0] + 200 + 200, before[1] - 200 - PENALTY]  # Bob's 11 lost too
    assert fold_balances(app)[f"pool:{table_id}"] == PENALTY


def _status_live_and_replayed(app, rid, hand_id):
    """The hand's status as the application reads it, and as the round's stored events fold
    from nothing (how a round stored before any change reads)."""
    replayed = project(None, list(app.events.get(UUID(rid))))
    return app.get_round(rid).hands[hand_id]["status"], replayed.hands[hand_id]["status"]


def test_VU_24_a_hand_thrown_up_reads_settled_once_paid(app, table):
    table_id, dealer, ann, bob = table
    rid = _deal(app, table_id, dealer, ann, bob, [*SHOE, "2H", "3S", "4S"])
    app.act(rid, "serve_out_of_order", actor=dealer, hand="h2")
    app.act(rid, "throw_up", actor=ann, hand="h1")
    app.act(rid, "stand", actor=bob, hand="h2")
    app.act(rid, "dealer_stand", actor=dealer)

    assert app.get_round(rid).phase == "ended"
    assert _settled(app, rid)["h1"].outcome == "thrown up"
    assert _status_live_and_replayed(app, rid, "h1") == ("settled", "settled")
    assert _status_live_and_replayed(app, rid, "h2") == ("stood", "stood")


def test_VU_25_a_falsely_divided_hand_reads_settled_once_paid(app, table):
    table_id, dealer, ann, bob = table
    rid = _deal(app, table_id, dealer, ann, bob, [*SHOE, "2H", "3S", "4S"])
    app.act(rid, "false_division", actor=dealer, hand="h1")
    assert _status_live_and_replayed(app, rid, "h1") == ("settled", "settled")
    assert app.get_round(rid).current_turn() == "h2"
    app.act(rid, "stand", actor=bob, hand="h2")
    app.act(rid, "dealer_stand", actor=dealer)

    assert app.get_round(rid).phase == "ended"
    assert _settled(app, rid)["h1"].amount == -200
    assert _status_live_and_replayed(app, rid, "h1") == ("settled", "settled")


def _refused(app, error, call, *args, **kwargs):
    """The command is refused with ``error`` citing VU-25, and nothing is written."""
    stored = app.recorder.max_notification_id()
    with pytest.raises(error) as refused:
        call(*args, **kwargs)
    assert refused.value.clause == "VU-25"
    assert app.recorder.max_notification_id() == stored
    return refused.value


def test_VU_25_a_false_division_is_recorded_only_while_the_players_draw(app, table):
    table_id, dealer, ann, bob = table
    before = _balances(app, dealer, ann, bob)
    app.fix_next_shoe(table_id, [*SHOE, "2H", "3S", "4S"])
    rid = app.start_round(table_id, actor=dealer)["round_id"]

    _refused(app, WrongPhase, app.act, rid, "false_division", actor=dealer, hand="h1")  # staking
    app.place_stake(rid, ann, 100)
    app.place_stake(rid, bob, 200)
    _refused(app, WrongPhase, app.act, rid, "false_division", actor=dealer, hand="h1")  # double
    app.act(rid, "dealer_double", actor=dealer, called=False)
    app.act(rid, "stand", actor=ann, hand="h1")
    app.act(rid, "stand", actor=bob, hand="h2")
    _refused(app, WrongPhase, app.act, rid, "false_division", actor=dealer, hand="h2")  # dealer
    app.act(rid, "dealer_stand", actor=dealer)

    settled = _settled(app, rid)
    assert {h: (e.amount, e.clauses) for h, e in settled.items()} == {
        "h1": (-100, ["VU-14"]),  # 13 against the dealer's 17
        "h2": (-200, ["VU-14"]),  # 11
    }
    assert _balances(app, dealer, ann, bob) == [before[0] + 300, before[1] - 100, before[2] - 200]
    assert fold_balances(app).get(f"pool:{table_id}", 0) == 0  # no penalty was taken


def test_VU_25_drawing_separately_on_a_pair_is_no_false_division(app, table):
    table_id, dealer, ann, bob = table
    # Ann holds 4C 4D: a pair, which she may divide (VU-18, VU-19).
    rid = _deal(app, table_id, dealer, ann, bob, ["4C", "5C", "9C", "4D", "6D", "8D", "2H"])

    refusal = _refused(app, RuleViolation, app.act, rid, "false_division", actor=dealer, hand="h1")

    assert "pair" in refusal.message
    assert not _settled(app, rid)


def test_VU_25_a_refused_false_division_does_not_name_the_face_down_cards(app, table):
    table_id, dealer, ann, bob = table
    # Ann's 4C is dealt face down (VU-4), and so is her second card 4D: the dealer who
    # reports her sees neither, and the refusal must not show them to him.
    rid = _deal(app, table_id, dealer, ann, bob, ["4C", "5C", "9C", "4D", "6D", "8D", "2H"])

    refusal = _refused(app, RuleViolation, app.act, rid, "false_division", actor=dealer, hand="h1")

    assert refusal.clause == "VU-25"
    assert "4C" not in str(refusal) and "4D" not in str(refusal)


def test_VU_25_a_hand_not_yet_served_has_not_drawn_separately(app, table):
    table_id, dealer, ann, bob = table
    before = _balances(app, dealer, ann, bob)
    rid = _deal(app, table_id, dealer, ann, bob, [*SHOE, "2H", "3S", "4S"])

    _refused(app, OutOfTurn, app.act, rid, "false_division", actor=dealer, hand="h2")  # Ann's turn
    app.act(rid, "stand", actor=ann, hand="h1")
    app.act(rid, "false_division", actor=dealer, hand="h2")  # now Bob is served
    app.act(rid, "dealer_stand", actor=dealer)

    assert {h: (e.amount, e.clauses) for h, e in _settled(app, rid).items()} == {
        "h2": (-400, ["VU-25"]),  # pays on each of his two hands
        "h1": (-100, ["VU-14"]),
    }
    assert _balances(app, dealer, ann, bob) == [
        before[0] + 500,
        before[1] - 100,
        before[2] - 400 - PENALTY,
    ]
    assert fold_balances(app)[f"pool:{table_id}"] == PENALTY


def test_irregularities_belong_to_vingt_un_only(app, fund, nothing_written):
    ann = fund("Ann")
    table_id = app.open_table("casino", {"insurance": False})["table_id"]
    app.seat_player(table_id, ann, 1)
    app.fix_next_shoe(table_id, ["TC", "9C", "6D", "8D", "5H"])
    rid = app.start_round(table_id)["round_id"]
    app.place_stake(rid, ann, 1000)

    with nothing_written(), pytest.raises(RuleViolation, match="Vingt-un book") as refused:
        app.act(rid, "serve_two", actor="house", hand="h1")
    assert refused.value.clause == "VU-23"


def test_serving_two_cards_out_of_the_play_phase_is_refused(app, table, nothing_written):
    table_id, dealer, ann, bob = table
    app.fix_next_shoe(table_id, [*SHOE, "2H"])
    rid = app.start_round(table_id, actor=dealer)["round_id"]

    with nothing_written(), pytest.raises(WrongPhase, match="being served") as refused:
        app.act(rid, "serve_two", actor=dealer, hand="h1")
    assert refused.value.clause == "VU-23"


# VU-21: first cards Ann T, Bob T, dealer 8; second Ann 9 (19), Bob 7 (17), dealer 8.
DIVIDE = ["TC", "TD", "8C", "9C", "7D", "8D", "3H", "9H", "TS", "2S", "2D", "2H"]


def test_VU_21_the_dealer_divides_his_pair_and_each_hand_meets_every_stake(app, table):
    table_id, dealer, ann, bob = table
    before = _balances(app, dealer, ann, bob)
    rid = _deal(app, table_id, dealer, ann, bob, DIVIDE)
    app.act(rid, "stand", actor=ann, hand="h1")
    app.act(rid, "stand", actor=bob, hand="h2")

    app.act(rid, "dealer_split", actor=dealer)
    app.act(rid, "dealer_draw", actor=dealer)  # 8 3 T: a drawn Vingt-un
    app.act(rid, "dealer_stand", actor=dealer)
    app.act(rid, "dealer_stand", actor=dealer)  # 8 9: seventeen

    rnd = app.get_round(rid)
    assert rnd.dealer_hand["cards"] == ["8C", "3H", "TS"]
    assert rnd.dealer_second["cards"] == ["8D", "9H"]
    settled = _settled(app, rid)
    # Ann 19: pays double to the 21 (VU-16), wins one stake from the 17 (VU-14).
    assert (settled["h1"].amount, settled["h1"].clauses) == (-100, ["VU-16", "VU-14", "VU-21"])
    # Bob 17: double to the 21, and the tie goes to the dealer.
    assert (settled["h2"].amount, settled["h2"].clauses) == (-600, ["VU-16", "VU-14", "VU-21"])
    assert _balances(app, dealer, ann, bob) == [before[0] + 700, before[1] - 100, before[2] - 600]
    balances = fold_balances(app)
    assert balances[f"escrow:{rid}"] == 0 and sum(balances.values()) == 0


def test_VU_21_the_dealer_divides_only_a_pair_of_his_first_two_cards(app, table):
    table_id, dealer, ann, bob = table
    rid = _deal(app, table_id, dealer, ann, bob, ["TC", "TD", "8C", "9C", "7D", "9D", "2H", "2S"])
    app.act(rid, "stand", actor=ann, hand="h1")
    app.act(rid, "stand", actor=bob, hand="h2")
    stored = app.recorder.max_notification_id()

    from ledger.errors import NotAPair

    with pytest.raises(NotAPair) as refused:
        app.act(rid, "dealer_split", actor=dealer)

    assert refused.value.clause == "VU-18"
    assert app.recorder.max_notification_id() == stored


def test_VU_21_a_division_recorded_before_the_dealer_could_divide_again_still_reads(app, table):
    """A ``DealerDivided`` stored before it named its hands reads as the first hand divided
    into the second (the fields' class defaults), and the round folds as it did."""
    table_id, dealer, ann, bob = table
    rid = _deal(app, table_id, dealer, ann, bob, DIVIDE)
    app.act(rid, "stand", actor=ann, hand="h1")
    app.act(rid, "stand", actor=bob, hand="h2")
    app.act(rid, "dealer_split", actor=dealer)

    events = list(app.events.get(UUID(rid)))
    at = next(i for i, e in enumerate(events) if type(e).__name__ == "DealerDivided")
    stored = app.mapper.to_stored_event(events[at])
    state = app.mapper.transcoder.decode(stored.state)
    del state["hand"], state["new_hand"]  # as it was recorded before
    old = app.mapper.to_domain_event(
        type(stored)(
            originator_id=stored.originator_id,
            originator_version=stored.originator_version,
            topic=stored.topic,
            state=app.mapper.transcoder.encode(state),
        )
    )
    assert "hand" not in vars(old)
    assert (old.hand, old.new_hand, old.card) == ("dealer", "dealer2", "8D")

    folded = project(None, [*events[:at], old, *events[at + 1 :]])
    assert folded.dealer_hand_ids() == ["dealer", "dealer2"]
    assert folded.dealer_hand["cards"] == ["8C", "3H"]
    assert folded.dealer_second["cards"] == ["8D", "9H"]


# VU-23 with VU-21: Ann 19 (T 9), Bob 17 (T 7); the dealer 8 8, divided: 8 5 (13) and 8 T (18);
# then the two cards he gives himself at once, 9 and K.
SERVE_DIVIDED = ["TC", "TD", "8C", "9C", "7D", "8H", "5S", "TH", "9S", "KS", "2S", "3S"]


def _divided(app, table):
    table_id, dealer, ann, bob = table
    rid = _deal(app, table_id, dealer, ann, bob, SERVE_DIVIDED)
    app.act(rid, "stand", actor=ann, hand="h1")
    app.act(rid, "stand", actor=bob, hand="h2")
    app.act(rid, "dealer_split", actor=dealer)
    return rid


def test_VU_23_VU_21_two_cards_over_draw_his_first_hand_and_he_plays_his_second(app, table):
    table_id, dealer, ann, bob = table
    before = _balances(app, dealer, ann, bob)
    rid = _divided(app, table)

    out = app.act(rid, "serve_two", actor=dealer, hand="dealer")

    assert (out["hand"], out["cards"]) == ("dealer", ["9S", "KS"])
    rnd = app.get_round(rid)
    assert rnd.dealer_hand["cards"] == ["8C", "5S", "9S", "KS"]  # he keeps both: 32
    assert not rnd.ended and not _settled(app, rid)  # his second hand is still to play
    assert rnd.dealer_in_turn() == "dealer2"
    overdrawn = [
        (e.hand, e.clause) for e in app.events.get(UUID(rid)) if type(e).__name__ == "HandOverdrawn"
    ]
    assert overdrawn == [("dealer", "VU-21")]
    app.act(rid, "dealer_stand", actor=dealer)  # 18

    settled = _settled(app, rid)
    # Ann 19: paid by the over-drawn hand (VU-15) and by the 18 (VU-14).
    assert (settled["h1"].amount, settled["h1"].clauses) == (200, ["VU-15", "VU-14", "VU-21"])
    # Bob 17: paid by the over-drawn hand, pays the 18.
    assert (settled["h2"].amount, settled["h2"].clauses) == (0, ["VU-15", "VU-14", "VU-21"])
    assert _balances(app, dealer, ann, bob) == [
        before[0] - 200 - PENALTY,
        before[1] + 200,
        before[2],
    ]
    assert fold_balances(app)[f"pool:{table_id}"] == PENALTY  # VU-26: the dealer offended
    balances = fold_balances(app)
    assert balances[f"escrow:{rid}"] == 0 and sum(balances.values()) == 0


@pytest.mark.parametrize("named", ["dealer", "dealer2"])
def test_VU_23_VU_21_two_cards_go_to_the_dealers_hand_in_turn(app, table, named):
    table_id, dealer, ann, bob = table
    before = _balances(app, dealer, ann, bob)
    rid = _divided(app, table)
    app.act(rid, "dealer_stand", actor=dealer)  # his first hand stands on 13

    out = app.act(rid, "serve_two", actor=dealer, hand=named)

    assert (out["hand"], out["cards"]) == ("dealer2", ["9S", "KS"])
    rnd = app.get_round(rid)
    assert rnd.dealer_hand["cards"] == ["8C", "5S"]
    assert rnd.dealer_second["cards"] == ["8H", "TH", "9S", "KS"]  # 37: over-drawn
    assert rnd.ended
    settled = _settled(app, rid)
    # Each player beats the 13 (VU-14) and is paid by the over-drawn hand (VU-15).
    assert (settled["h1"].amount, settled["h1"].clauses) == (200, ["VU-14", "VU-15", "VU-21"])
    assert (settled["h2"].amount, settled["h2"].clauses) == (400, ["VU-14", "VU-15", "VU-21"])
    assert _balances(app, dealer, ann, bob) == [
        before[0] - 600 - PENALTY,
        before[1] + 200,
        before[2] + 400,
    ]
    balances = fold_balances(app)
    assert balances[f"escrow:{rid}"] == 0 and sum(balances.values()) == 0


def test_VU_21_two_cards_to_a_dealer_hand_not_in_turn_are_refused(app, table):
    table_id, dealer, ann, bob = table
    rid = _divided(app, table)
    stored = app.recorder.max_notification_id()

    with pytest.raises(OutOfTurn) as refused:
        app.act(rid, "serve_two", actor=dealer, hand="dealer2")  # his first hand is in turn

    assert refused.value.clause == "VU-21"
    assert app.recorder.max_notification_id() == stored


def test_VU_25_a_hand_of_a_divided_pair_is_no_false_division(app, table):
    table_id, dealer, ann, bob = table
    # Ann divides 7C 7D (VU-19): her hands are 7C 9H and 7D KS, neither a pair, both lawful.
    rid = _deal(
        app, table_id, dealer, ann, bob, ["7C", "5C", "9C", "7D", "6D", "8D", "9H", "KS", "2H"]
    )
    new_hand = app.act(rid, "split", actor=ann, hand="h1", amount=None)["new_hand"]

    for hand in ("h1", new_hand):
        refusal = _refused(
            app, RuleViolation, app.act, rid, "false_division", actor=dealer, hand=hand
        )
        assert refusal.clause == "VU-25"
        assert "divided pair" in refusal.message
    assert not _settled(app, rid)
    assert fold_balances(app).get(f"pool:{table_id}", 0) == 0  # no penalty was taken


# VU-21: Ann stands on 18 (T 8); the dealer 8 8, divided: 8 3 drawing K (21), 8 T drawing 5 (23).
TOTALS = ["TS", "TD", "8C", "8D", "7D", "8S", "3C", "TH", "KD", "5H", "2S", "3S"]


def test_VU_21_a_hand_settled_against_divided_hands_names_every_dealer_total(app, table):
    """Against 21 alone Ann's 18 would pay double (VU-16); the over-drawn 23 pays her one
    (VU-15): -1. The event carries both totals, enough to recompute that by hand."""
    table_id, dealer, ann, bob = table
    before = _balances(app, dealer, ann, bob)
    rid = _deal(app, table_id, dealer, ann, bob, TOTALS, stakes=(500, 100))
    app.act(rid, "stand", actor=ann, hand="h1")  # 18
    app.act(rid, "stand", actor=bob, hand="h2")  # 17
    app.act(rid, "dealer_split", actor=dealer)
    app.act(rid, "dealer_draw", actor=dealer)  # 8 3 K: a drawn Vingt-un
    app.act(rid, "dealer_stand", actor=dealer)
    app.act(rid, "dealer_draw", actor=dealer)  # 8 T 5: over 21

    settled = _settled(app, rid)
    assert {h: (e.amount, e.multiplier, e.clauses) for h, e in settled.items()} == {
        "h1": (-500, "-1", ["VU-16", "VU-15", "VU-21"]),
        "h2": (-100, "-1", ["VU-16", "VU-15", "VU-21"]),
    }
    for event in settled.values():
        assert (event.dealer_total, event.dealer_totals) == (21, {"dealer": 21, "dealer2": 23})
    assert _balances(app, dealer, ann, bob) == [before[0] + 600, before[1] - 500, before[2] - 100]


def test_a_hand_settled_against_one_dealer_hand_names_no_other_total(app, table):
    table_id, dealer, ann, bob = table
    rid = _deal(app, table_id, dealer, ann, bob, [*SHOE, "2S", "3S"])
    app.act(rid, "stand", actor=ann, hand="h1")
    app.act(rid, "stand", actor=bob, hand="h2")
    app.act(rid, "dealer_stand", actor=dealer)

    assert {h: (e.dealer_total, e.dealer_totals) for h, e in _settled(app, rid).items()} == {
        "h1": (17, None),
        "h2": (17, None),
    }


def test_a_settlement_recorded_before_dealer_totals_reads_and_verifies(app, table):
    """A ``HandSettled`` stored before ``dealer_totals`` existed (hashed without it) reads
    with None, and its hash still fits its content."""
    from ledger.domain.chain import event_hash, hash_matches

    table_id, dealer, ann, bob = table
    rid = _deal(app, table_id, dealer, ann, bob, [*SHOE, "2S", "3S"])
    app.act(rid, "stand", actor=ann, hand="h1")
    app.act(rid, "stand", actor=bob, hand="h2")
    app.act(rid, "dealer_stand", actor=dealer)
    event = next(e for e in app.events.get(UUID(rid)) if type(e).__name__ == "HandSettled")

    stored = app.mapper.to_stored_event(event)
    state = app.mapper.transcoder.decode(stored.state)
    del state["dealer_totals"]  # as it was recorded before
    fields = {k: v for k, v in vars(event).items() if k != "dealer_totals"}
    state["hash"] = event_hash("Round.HandSettled", fields)
    old = app.mapper.to_domain_event(
        type(stored)(
            originator_id=stored.originator_id,
            originator_version=stored.originator_version,
            topic=stored.topic,
            state=app.mapper.transcoder.encode(state),
        )
    )

    assert "dealer_totals" not in vars(old)
    assert old.dealer_totals is None
    assert hash_matches("Round.HandSettled", vars(old))
