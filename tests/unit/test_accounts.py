"""Account names are made and read back in one place (ledger/accounts.py)."""

from uuid import uuid4

from ledger import accounts


def test_each_owner_helper_reads_back_the_name_its_maker_wrote():
    some = uuid4()
    assert accounts.wallet_owner(accounts.player(some)) == some
    assert accounts.pool_owner(accounts.pool(some)) == some
    assert accounts.escrow_owner(accounts.escrow(some)) == str(some)


def test_an_owner_helper_answers_none_for_another_kind_of_account():
    some = uuid4()
    for name in (accounts.house(some), accounts.CASHIER, accounts.deal_sale(some)):
        assert accounts.wallet_owner(name) is None
        assert accounts.pool_owner(name) is None
        assert accounts.escrow_owner(name) is None


def test_an_escrow_keeps_its_round_id_as_written_even_when_it_is_no_uuid():
    # replay verify reads damaged stores: a mangled escrow name is named, not an exception
    assert accounts.escrow_owner("escrow:not-a-uuid") == "not-a-uuid"
