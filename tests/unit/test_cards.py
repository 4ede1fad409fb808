import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.cards import (
    RANKS,
    SUITS,
    declared_ace_counts,
    hand_total,
    is_ace,
    is_card,
    is_natural,
    is_soft,
    is_ten_card,
    pip_value,
    rank,
    same_denomination,
    totals_with_aces,
    unshuffled,
)

any_card = st.sampled_from(unshuffled(1))


def test_one_pack_runs_clubs_diamonds_hearts_spades_ace_to_king():
    pack = unshuffled(1)
    assert len(pack) == 52
    assert pack[:13] == [r + "C" for r in "A23456789TJQK"]
    assert pack[:3] == ["AC", "2C", "3C"]
    assert pack[9:13] == ["TC", "JC", "QC", "KC"]
    assert pack[13] == "AD"
    assert pack[26] == "AH"
    assert pack[39:] == [r + "S" for r in "A23456789TJQK"]
    assert len(set(pack)) == 52


def test_two_packs_are_pack_zero_then_pack_one():
    shoe = unshuffled(2)
    assert len(shoe) == 104
    assert shoe[:52] == unshuffled(1)
    assert shoe[52:] == unshuffled(1)
    assert shoe[51:53] == ["KS", "AC"]


@pytest.mark.parametrize("packs", [0, -1, True, 1.0, "2"])
def test_unshuffled_refuses_a_shoe_without_packs(packs):
    with pytest.raises(ValueError):
        unshuffled(packs)


@pytest.mark.parametrize("code", ["TH", "AS", "2C", "KD"])
def test_valid_codes(code):
    assert is_card(code)


@pytest.mark.parametrize("code", ["10H", "ah", "AX", "1C", "A", "", "ASS", None, 7])
def test_malformed_codes_are_not_cards(code):
    assert not is_card(code)


def test_rank_refuses_a_malformed_code():
    with pytest.raises(ValueError, match="10H"):
        rank("10H")


@pytest.mark.parametrize("code", ["10H", "ah", "AX", "A", "", "ASS", None, 7, ["A", "S"], {}])
@pytest.mark.parametrize("read", [rank, pip_value, is_ace, is_ten_card])
def test_every_reading_of_a_card_refuses_what_is_not_a_card(read, code):
    with pytest.raises(ValueError, match="not a card code"):
        read(code)


@given(st.lists(any_card, max_size=6))
def test_hand_total_counts_pips_and_one_soft_ace(cards):
    hard = sum(1 if c[0] == "A" else 10 if c[0] in "TJQK" else int(c[0]) for c in cards)
    soft = any(c[0] == "A" for c in cards) and hard + 10 <= 21
    assert hand_total(cards) == hard + (10 if soft else 0)
    assert is_soft(cards) == soft


def test_ranks_and_suits_constants():
    assert RANKS == "A23456789TJQK"
    assert SUITS == "CDHS"


@pytest.mark.parametrize(
    ("card", "value"),
    [("AC", 1), ("2D", 2), ("9H", 9), ("TS", 10), ("JC", 10), ("QD", 10), ("KH", 10)],
)
def test_pip_values(card, value):
    assert pip_value(card) == value


def test_ten_cards_are_ten_jack_queen_king_only():
    assert [r for r in RANKS if is_ten_card(r + "S")] == ["T", "J", "Q", "K"]
    assert [r for r in RANKS if is_ace(r + "S")] == ["A"]


def test_two_sevens_are_a_pair_vu_18():
    assert same_denomination("7C", "7H")


def test_king_and_queen_are_not_a_pair_vu_18():
    assert not same_denomination("KC", "QC")


def test_two_kings_of_different_suits_are_a_pair():
    assert same_denomination("KC", "KS")


def test_vingt_un_worked_example_four_nine_seven_stands_on_twenty():
    # Seed 000: "a 4, and then a 9, making 13 ... a 7, making his total 20".
    assert hand_total(["4C", "9D"]) == 13
    assert hand_total(["4C", "9D", "7H"]) == 20


def test_vingt_un_worked_example_a_nine_third_would_over_draw():
    # Seed 000: "Had his third card been a 9, it would have been an over-draw."
    assert hand_total(["4C", "9D", "9H"]) == 22


def test_ace_counts_eleven_when_it_fits():
    assert hand_total(["AC", "6D"]) == 17
    assert is_soft(["AC", "6D"])


def test_ace_falls_back_to_one_rather_than_over_draw():
    assert hand_total(["AC", "6D", "9H"]) == 16
    assert not is_soft(["AC", "6D", "9H"])


def test_only_one_of_several_aces_counts_eleven():
    assert hand_total(["AC", "AD"]) == 12
    assert hand_total(["AC", "AD", "AH", "AS"]) == 14
    assert is_soft(["AC", "AD"])


def test_hand_without_ace_is_never_soft():
    assert not is_soft(["TC", "7D"])
    assert hand_total([]) == 0


@pytest.mark.parametrize("hand", [["AS", "KH"], ["TD", "AC"], ["AH", "JS"], ["QC", "AD"]])
def test_ace_and_ten_card_is_a_natural(hand):
    assert is_natural(hand)
    assert hand_total(hand) == 21


@pytest.mark.parametrize(
    "hand",
    [["AS", "9H"], ["AS", "AH"], ["TC", "KH"], ["7C", "7D", "7H"], ["AS", "5C", "5D"], ["AS"], []],
)
def test_other_hands_are_not_naturals(hand):
    assert not is_natural(hand)


@given(st.lists(any_card, max_size=12))
def test_total_is_hard_total_or_ten_more_when_soft(hand):
    hard = sum(pip_value(c) for c in hand)
    assert hand_total(hand) == hard + (10 if is_soft(hand) else 0)
    assert not is_soft(hand) or hand_total(hand) <= 21


@given(st.lists(any_card, max_size=12))
def test_undeclared_aces_count_as_hand_total_does(hand):
    assert totals_with_aces(hand, {}) == hand_total(hand)


def test_russian_holder_may_count_an_ace_as_one():
    # OC-7: A + 6 is 17 by default; declared as 1 it is 7.
    assert totals_with_aces(["AC", "6D"], {0: 1}) == 7


def test_russian_ace_declared_eleven_counts_one_once_a_card_would_take_it_over_21():
    # OC-7: the holder chooses, and nobody chooses 26 over 16.
    assert totals_with_aces(["AC", "6D"], {0: 11}) == 17
    assert totals_with_aces(["AC", "6D", "9H"], {0: 11}) == 16
    assert declared_ace_counts(["AC", "6D", "9H"], {0: 11}) == {0: 1}
    # An ace declared 1 stays 1 where 11 would fit: that choice binds.
    assert totals_with_aces(["AC", "6D", "2H"], {0: 1}) == 9


def test_undeclared_ace_is_judged_with_the_declared_ones():
    # The declared 11 already makes 20 with the 9: the other ace must count 1.
    assert totals_with_aces(["AC", "AD", "9H"], {0: 11}) == 21
    assert totals_with_aces(["AC", "AD", "9H"], {0: 1}) == 21
    assert totals_with_aces(["AC", "AD", "9H", "5S"], {0: 11}) == 16
    # Two aces declared 11 cannot both count it: the later one gives way.
    assert declared_ace_counts(["AC", "AD"], {0: 11, 1: 11}) == {0: 11, 1: 1}


@given(st.lists(any_card, min_size=1, max_size=12), st.data())
def test_declared_aces_never_take_a_hand_over_21_that_counting_them_1_would_not(hand, data):
    aces = [i for i, card in enumerate(hand) if card[0] == "A"]
    declared = {i: data.draw(st.sampled_from([1, 11])) for i in aces if data.draw(st.booleans())}
    all_ones = sum(pip_value(card) for card in hand)  # every ace at 1
    total = totals_with_aces(hand, declared)
    assert total >= all_ones
    assert total <= 21 or total == all_ones


@pytest.mark.parametrize(
    ("ace_values", "message"),
    [({1: 11}, "not an ace"), ({2: 1}, "outside"), ({-1: 1}, "outside"), ({0: 10}, "1 or 11")],
)
def test_ace_declarations_must_name_an_ace_and_a_legal_value(ace_values, message):
    with pytest.raises(ValueError, match=message):
        totals_with_aces(["AC", "6D"], ace_values)
