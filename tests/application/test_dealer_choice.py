"""VU-2: the dealer is chosen first — by seat, by name, or by cut."""

import pytest

from ledger.errors import InvalidCommand, NotPermitted, RuleViolation


def _table(app, fund, choice):
    players = [fund(name) for name in ("Ann", "Bob", "Cid")]
    table = app.open_table("vingt-un", {"dealer_choice": choice})["table_id"]
    for seat, pid in enumerate(players, start=1):
        app.seat_player(table, pid, seat)
    return table, players


def test_VU_2_by_cut_the_lowest_card_deals_and_each_cut_is_recorded(app, fund):
    table, (ann, bob, cid) = _table(app, fund, "cut")
    app.fix_next_shoe(table, ["9C", "3D", "KH"])

    chosen = app.choose_dealer(table)

    assert chosen["dealer"] == bob and chosen["method"] == "cut"
    cuts = [e for e in app.events.get(app.get_table(table).id) if type(e).__name__ == "CutForDeal"]
    assert [(e.player_id, e.card, e.shoe_index) for e in cuts] == [
        (ann, "9C", 0),
        (bob, "3D", 1),
        (cid, "KH", 2),
    ]
    shoe = app.get_shoe(cuts[0].shoe)
    assert shoe.revealed and shoe.fixed


def test_VU_2_by_cut_equal_cards_go_to_the_earlier_seat(app, fund):
    table, (ann, bob, cid) = _table(app, fund, "cut")
    app.fix_next_shoe(table, ["9C", "AD", "AH"])

    assert app.choose_dealer(table)["dealer"] == bob


def test_VU_2_a_random_cut_reveals_its_shoe_at_once(app, fund):
    table, players = _table(app, fund, "cut")

    dealer = app.choose_dealer(table)["dealer"]

    shoe = app.get_shoe(app.get_table(table).shoe_id)
    assert dealer in players
    assert shoe.revealed and len(shoe.server_seed) == 64


def test_VU_2_a_cut_between_rounds_reveals_the_shoe_whose_place_it_takes(app, fund):
    """SHUFFLE.md: a replaced shoe is revealed. The cut's fresh shoe takes the place of the
    shoe in use at the table, whose seed would otherwise never be shown."""
    from ledger.simulate import Settings, play_round
    from ledger.simulate_tally import Tally
    from ledger.strategy import TableView

    table, _ = _table(app, fund, "cut")
    app.choose_dealer(table)
    view = TableView(decks=1, dealer_hits_soft_17=False, double_after_split=True, surrender=False)
    play_round(app, table, Settings(family="vingt-un", stake=100), view, Tally())
    in_use, dealt = app.get_table(table).shoe_id, app.get_table(table).shoe_next
    assert not app.get_shoe(in_use).revealed

    app.choose_dealer(table)

    shoe = app.get_shoe(in_use)
    assert shoe.revealed and len(shoe.server_seed) == 64
    *_, revealed = app.events.get(in_use)
    assert (revealed.reason, revealed.cards_dealt) == ("replaced by a cut for the deal", dealt)


def test_VU_2_by_seat_the_first_seat_deals(app, fund):
    table, (ann, _, _) = _table(app, fund, "seat")

    assert app.choose_dealer(table)["dealer"] == ann


def test_VU_2_a_named_table_needs_the_name(app, fund, nothing_written):
    table, (_, bob, _) = _table(app, fund, "named")

    with nothing_written(), pytest.raises(InvalidCommand, match="give player_id") as refused:
        app.choose_dealer(table)
    assert refused.value.clause == "VU-2"
    assert app.choose_dealer(table, bob)["dealer"] == bob


def test_the_dealer_must_sit_at_the_table(app, fund, nothing_written):
    table, _ = _table(app, fund, "named")
    stranger = fund("Dan")

    with nothing_written(), pytest.raises(NotPermitted, match="not seated") as refused:
        app.choose_dealer(table, stranger)
    assert refused.value.clause == "VU-2"


def test_the_casino_house_always_deals(app, fund, nothing_written):
    table = app.open_table("casino")["table_id"]

    with nothing_written(), pytest.raises(RuleViolation, match="the house deals") as refused:
        app.choose_dealer(table)
    assert refused.value.clause == "CB-9"


def test_closing_a_table_reveals_its_shoe_and_refuses_new_rounds(app, fund, nothing_written):
    from ledger.errors import WrongPhase

    ann = fund("Ann")
    table = app.open_table("casino", {"insurance": False})["table_id"]
    app.seat_player(table, ann, 1)
    rid = app.start_round(table)["round_id"]
    app.place_stake(rid, ann, 1000)
    while not (rnd := app.get_round(rid)).ended:
        app.act(rid, "stand", actor=ann, hand=rnd.current_turn())
    shoe_id = app.get_table(table).shoe_id
    assert not app.get_shoe(shoe_id).revealed

    app.close_table(table)

    shoe = app.get_shoe(shoe_id)
    assert shoe.revealed and len(shoe.server_seed) == 64
    bob = fund("Bob")
    with nothing_written(), pytest.raises(WrongPhase, match="closed"):
        app.start_round(table)
    with nothing_written(), pytest.raises(WrongPhase, match="closed"):
        app.seat_player(table, bob, 2)


@pytest.mark.parametrize("choice", ["seat", "named", "cut"])
def test_no_dealer_is_chosen_at_a_closed_table(app, fund, nothing_written, choice):
    from ledger.errors import WrongPhase

    dora, bob = fund("Dora"), fund("Bob")
    table = app.open_table("vingt-un", {"dealer_choice": choice})["table_id"]
    app.seat_player(table, dora, 1)
    app.seat_player(table, bob, 2)
    app.close_table(table)

    named = dora if choice == "named" else None
    with nothing_written(), pytest.raises(WrongPhase, match="closed"):
        app.choose_dealer(table, named)  # a cut would commit a whole new shoe


def test_a_table_does_not_close_mid_round(app, fund, nothing_written):
    from ledger.errors import WrongPhase

    ann = fund("Ann")
    table = app.open_table("casino")["table_id"]
    app.seat_player(table, ann, 1)
    app.start_round(table)

    with nothing_written(), pytest.raises(WrongPhase, match="between rounds"):
        app.close_table(table)
