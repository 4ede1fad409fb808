"""``python -m ledger reveal-retired``: the upgrade that reveals the shoes a table retired
without a reveal, as a cut for the deal did before 7ce9108, so that ``replay verify`` passes
on a log the previous release wrote."""

import io
import json

from eventsourcing.application import AggregateNotFoundError

from ledger.application import TwentyOneLedger
from ledger.cli.reveal_retired import reveal_retired
from ledger.config import store_env
from ledger.simulate import Settings, play_round
from ledger.simulate_tally import Tally
from ledger.strategy import TableView
from ledger.use_cases.retired_shoes import UPGRADE_REASON
from replay.verify import verify

VIEW = TableView(decks=1, dealer_hits_soft_17=False, double_after_split=True, surrender=False)


def old_release(app, monkeypatch, *skipped: str) -> None:
    """Retire shoes as the previous release did: without the reveals named in ``skipped``."""
    retire = app.shoes.retire
    monkeypatch.setattr(
        app.shoes,
        "retire",
        lambda shoe, dealt, reason: None if reason in skipped else retire(shoe, dealt, reason),
    )


def cut_table(app) -> str:
    """A Vingt-un table whose dealer is chosen by cut, with two players and a round played."""
    table = app.open_table("vingt-un", {"dealer_choice": "cut"})["table_id"]
    for seat, name in enumerate(("Ann", "Bob"), start=1):
        pid = app.register_player(name)["player_id"]
        app.deposit(pid, 100_000)
        app.seat_player(table, pid, seat)
    app.choose_dealer(table)
    play_round(app, table, Settings(family="vingt-un", stake=100), VIEW, Tally())
    return table


def test_reveal_retired_reveals_what_a_cut_for_the_deal_and_a_closing_left_unrevealed(
    tmp_path, monkeypatch
):
    environ = {"LEDGER_STORE": "sqlite", "LEDGER_SQLITE_PATH": str(tmp_path / "old.sqlite3")}
    before = TwentyOneLedger(env=store_env(environ=environ))
    table = cut_table(before)
    replaced = before.get_table(table).shoe_id
    closing = cut_table(before)
    in_use = before.get_table(closing).shoe_id
    with monkeypatch.context() as patch:
        old_release(before, patch, "replaced by a cut for the deal", "the table closed")
        before.choose_dealer(table)
        before.close_table(closing)
    report = verify(before)
    unrevealed = [f.problem for f in report.faults if "never revealed" in f.problem]
    assert len(unrevealed) == 2, report.faults[:3]
    before.close()

    out, err = io.StringIO(), io.StringIO()
    assert reveal_retired(out, err, environ) == 0, err.getvalue()
    printed = json.loads(out.getvalue())
    assert printed["count"] == 2
    assert sorted(printed["revealed"]) == sorted([str(replaced), str(in_use)])
    assert printed["seed_missing"] == [] and printed["store_description"].startswith("SQLite")

    after = TwentyOneLedger(env=store_env(environ=environ))
    assert verify(after).ok, verify(after).faults[:3]
    *_, revealed = after.events.get(replaced)
    assert revealed.reason == UPGRADE_REASON
    after.close()

    out = io.StringIO()
    assert reveal_retired(out, err, environ) == 0, err.getvalue()
    assert json.loads(out.getvalue())["revealed"] == [], "run twice, it reveals nothing"


def test_a_shoe_whose_seed_the_vault_lacks_is_reported_and_the_others_revealed(app, monkeypatch):
    lost, kept = cut_table(app), cut_table(app)
    lost_shoe, kept_shoe = app.get_table(lost).shoe_id, app.get_table(kept).shoe_id
    with monkeypatch.context() as patch:
        old_release(app, patch, "the table closed")
        app.close_table(lost)
        app.close_table(kept)
    vault_open = app.shoes.vault.open

    def without_lost(shoe_id):
        if shoe_id == lost_shoe:
            raise AggregateNotFoundError(shoe_id)
        return vault_open(shoe_id)

    monkeypatch.setattr(app.shoes.vault, "open", without_lost)

    done = app.reveal_retired()

    assert done == {"revealed": [str(kept_shoe)], "seed_missing": [str(lost_shoe)]}
    assert app.get_shoe(kept_shoe).revealed and not app.get_shoe(lost_shoe).revealed
    assert app.reveal_retired() == {"revealed": [], "seed_missing": [str(lost_shoe)]}


def test_the_command_refuses_a_bad_store_setting():
    err = io.StringIO()
    assert reveal_retired(io.StringIO(), err, {"LEDGER_STORE": "nowhere"}) == 2
    assert "LEDGER_STORE" in err.getvalue()


def test_the_command_names_a_shoe_whose_seed_is_missing_and_exits_1(tmp_path, monkeypatch):
    from ledger.vault import ShoeVault

    environ = {"LEDGER_STORE": "sqlite", "LEDGER_SQLITE_PATH": str(tmp_path / "old.sqlite3")}
    before = TwentyOneLedger(env=store_env(environ=environ))
    table = cut_table(before)
    shoe = before.get_table(table).shoe_id
    with monkeypatch.context() as patch:
        old_release(before, patch, "the table closed")
        before.close_table(table)
    before.close()

    def lost(vault, shoe_id):
        raise AggregateNotFoundError(shoe_id)

    monkeypatch.setattr(ShoeVault, "open", lost)
    out, err = io.StringIO(), io.StringIO()
    assert reveal_retired(out, err, environ) == 1
    assert json.loads(out.getvalue())["seed_missing"] == [str(shoe)]
    assert f"shoe {shoe} was retired without a reveal" in err.getvalue()
