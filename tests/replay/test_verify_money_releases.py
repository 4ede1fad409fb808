"""``replay verify`` on Hoyle rounds that release, once the deal shows no natural, the hold
beyond a single stake (H13-5) and the banker's cover beyond the open stakes (H13-6): the
release is money moved back by the round's own events, so the books hold on every store."""

from __future__ import annotations

from uuid import UUID

from ledger.application import TwentyOneLedger
from ledger.balances import fold_balances
from replay.rederive import rederive_round
from replay.verify import verify

# h1: a pair of eights, split; the dealer 19; one card drawn to each split hand.
SHOE = ["8H", "TH", "8D", "9H", "3C", "KD", "2S", "3S", "4S", "5S"]


def _split_after_release(app: TwentyOneLedger) -> tuple[str, str]:
    dealer = app.register_player("Dealer")["player_id"]
    punter = app.register_player("Punter")["player_id"]
    app.deposit(dealer, 10_000)
    app.deposit(punter, 500)
    table = app.open_table("hoyle-1913", {"allow_split": True})["table_id"]
    app.seat_player(table, dealer, 1)
    app.seat_player(table, punter, 2)
    app.choose_dealer(table, dealer)
    app.fix_next_shoe(table, SHOE)
    rid = app.start_round(table, actor=dealer)["round_id"]
    app.place_stake(rid, punter, 200)  # held 400, released to 200 after the deal
    app.act(rid, "split", actor=punter, hand="h1")  # 200 more: all 500 - 100 he has
    app.act(rid, "stand", actor=punter, hand="h1")
    app.act(rid, "stand", actor=punter, hand="h2")
    app.act(rid, "dealer_stand", actor=dealer)
    return rid, punter


def test_a_round_that_released_holds_after_the_deal_verifies_on_every_store(store_env):
    app = TwentyOneLedger(env={**store_env, "LEDGER_ALLOW_FIXED_SHOES": "true"})
    try:
        rid, punter = _split_after_release(app)
        names = [type(e).__name__ for e in app.events.get(UUID(rid))]
        assert "HoldAdjusted" in names and names.count("BankCovered") >= 2
        assert app.get_player(punter).balance == 500 - 400
        assert sum(fold_balances(app).values()) == 0

        report = verify(app)

        assert report.ok, report.text()
        assert rederive_round(app, rid).matches
    finally:
        app.close()
