"""A player-banker without credit puts up, as each stake is placed, the most that stake can
cost him (VU ×4: the dealer's double and a Vingt-un; H13 ×2: a natural is paid double,
H13-6; OC ×2: a natural or the banker's over-draw pays double, OC-5, OC-9), so the round
can always be settled; a bank that cannot cover a stake refuses it."""

from __future__ import annotations

from uuid import UUID

import pytest

from ledger import accounts
from ledger.balances import fold_balances
from ledger.errors import InsufficientFunds

STAKE = 100
COVER = {"vingt-un": 4, "hoyle-1913": 2, "ochko": 2}
# Still held once the stake is placed: a Hoyle round deals as its last stake is placed, and a
# deal that shows no natural releases the cover beyond a single stake (H13-6).
HELD = {**COVER, "hoyle-1913": 1}
SHOE = ["TC", "9C", "8D", "8H", "2S", "3S", "4S", "5S"]


def private_round(app, fund, family: str, bank: int) -> tuple[str, str, str]:
    dealer, ann = fund("Dee", bank), fund("Ann")
    table = app.open_table(family, {"min_stake": STAKE})["table_id"]
    app.seat_player(table, dealer, 1)
    app.seat_player(table, ann, 2)
    app.choose_dealer(table, dealer)
    app.fix_next_shoe(table, SHOE)
    return app.start_round(table, actor=dealer)["round_id"], dealer, ann


@pytest.mark.parametrize("family", list(COVER))
def test_the_bank_puts_up_the_most_a_stake_can_cost_it(app, fund, family):
    rid, dealer, ann = private_round(app, fund, family, bank=10_000)

    app.place_stake(rid, ann, STAKE)

    covered = [e.amount for e in app.events.get(UUID(rid)) if type(e).__name__ == "BankCovered"]
    assert covered[0] == COVER[family] * STAKE
    cover = HELD[family] * STAKE
    assert app.get_player(dealer).balance == 10_000 - cover
    assert app.get_round(rid).bank_held == cover
    assert (
        fold_balances(app)[accounts.escrow(rid)] == cover + app.get_round(rid).hands["h1"]["held"]
    )


@pytest.mark.parametrize("family", list(COVER))
def test_a_stake_the_bank_cannot_cover_is_refused(app, fund, family, nothing_written):
    rid, _, ann = private_round(app, fund, family, bank=COVER[family] * STAKE - 1)

    with nothing_written(), pytest.raises(InsufficientFunds):
        app.place_stake(rid, ann, STAKE)
