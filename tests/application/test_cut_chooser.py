"""Who chose where a shoe was cut (auditor review): ``Shoe.Cut.by`` is the player whose cut
it is by the rules; ``chosen_by`` is who gave the place: the command's actor, the ledger at
random, or a fixed test shoe. The audit shows it beside the cut."""

from __future__ import annotations

from uuid import UUID

import pytest

from ledger.application import TwentyOneLedger
from ledger.config import store_env
from ledger.domain.shoe import Shoe
from replay.audit import audit_round


@pytest.fixture
def app():
    env = {**store_env("memory", environ={}), "LEDGER_ALLOW_FIXED_SHOES": "true"}
    app = TwentyOneLedger(env=env)
    yield app
    app.close()


def _casino(app: TwentyOneLedger) -> tuple[str, str]:
    table = app.open_table("casino", {"insurance": False, "decks": 1})["table_id"]
    pid = app.register_player("Ann")["player_id"]
    app.deposit(pid, 10_000)
    app.seat_player(table, pid, 1)
    return table, pid


def _cut(app: TwentyOneLedger, table: str) -> Shoe.Cut:
    shoe = app.get_table(table).shoe_id
    return next(e for e in app.events.get(UUID(str(shoe))) if isinstance(e, Shoe.Cut))


@pytest.mark.parametrize(
    ("how", "chooser"),
    [("given", "admin"), ("random", "ledger"), ("fixed", "fixed")],
)
def test_the_cut_records_who_chose_its_place(app, how, chooser):
    table, pid = _casino(app)
    if how == "fixed":
        app.fix_next_shoe(table, ["TH", "9S", "7D", "8C"] + ["2C"] * 48)
    started = app.start_round(table, actor="admin", cut=17 if how == "given" else None)

    cut = _cut(app, table)
    assert (cut.chosen_by, cut.by) == (chooser, pid)  # the pone's cut, whoever chose it
    if how == "given":
        assert cut.cut == 17
    app.place_stake(started["round_id"], pid, 200)
    audit = audit_round(app, started["round_id"])
    assert audit["shoe"]["recorded"]["cut"]["chosen_by"] == chooser
    assert audit["shoe"]["recorded"]["cut"]["actor"] == pid
