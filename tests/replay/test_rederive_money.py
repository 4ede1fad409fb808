"""``replay rederive`` weighs every money-bearing field, not only the settlements (auditor
review, item 2): an insurance payout, a stake, a hold, the bank's cover, whom a settlement
pays from the cover, recorded otherwise than today's rules give them, make the round differ
(``matches`` false, exit 1). The differences the ledger's older records are known to show
(README, "rederive"), which move no one's money, still match."""

from __future__ import annotations

import copy
import dataclasses
import json
from uuid import UUID

import pytest
from forgery import forge_stream
from replay_history import play_fixed_casino
from store_checks import played
from test_rederive import _dealer_penalties_from_cover

from ledger.application import TwentyOneLedger
from ledger.domain.round import Round
from replay.__main__ import main
from replay.rederive import rederive, rederive_round


@pytest.fixture
def app(memory_env):
    application = TwentyOneLedger(env=memory_env)
    yield application
    application.close()


def insured_against_a_dealer_blackjack(app: TwentyOneLedger) -> str:
    """Casino, insurance offered: Ann holds a blackjack (stand-off, CB-6); Bob, 9 7, insures
    500 against the dealer's A K, is paid 1000 on it and loses his 1001 (CB-5)."""
    ann, bob = (app.register_player(name)["player_id"] for name in ("Ann", "Bob"))
    for pid in (ann, bob):
        app.deposit(pid, 100_000)
    table = app.open_table("casino", {"decks": 1, "burn": 0, "insurance": True})["table_id"]
    app.seat_player(table, ann, 1)
    app.seat_player(table, bob, 2)
    app.fix_next_shoe(table, ["AH", "9S", "AD", "QS", "7H", "KH"] + ["2C"] * 20)
    rid = app.start_round(table)["round_id"]
    app.place_stake(rid, ann, 1001)
    app.place_stake(rid, bob, 1001)
    app.act(rid, "insurance", actor=bob, hand="h2", amount=500)
    app.act(rid, "insurance", actor=ann, hand="h1", amount=0)
    assert app.get_round(rid).ended
    return rid


def test_an_insurance_payout_forged_in_a_stored_round_differs_and_exits_1(sqlite_file, capsys):
    env = sqlite_file[0]
    rid = played(env, insured_against_a_dealer_blackjack)
    assert main(["rederive", rid], env=env) == 0
    assert capsys.readouterr().out.rstrip().endswith("settlement matches")

    def pay_1500(events):
        return [
            dataclasses.replace(e, amount=1500) if isinstance(e, Round.InsuranceSettled) else e
            for e in events
        ]

    forge_stream(env, rid, pay_1500)  # every hash recomputed: the chain still holds

    assert main(["rederive", rid], env=env) == 1
    out = capsys.readouterr().out
    assert "settlement matches" not in out
    assert "Round.InsuranceSettled: amount recorded 1500, now 1000" in out
    assert main(["rederive", rid, "--json"], env=env) == 1
    shown = json.loads(capsys.readouterr().out)
    assert shown["matches"] is False
    assert shown["hands_differing"] == ["h2"]
    [line] = shown["differences"]
    assert line.endswith("Round.InsuranceSettled: amount recorded 1500, now 1000")
    assert all(s["recorded"] == s["rederived"] for s in shown["settlements"])


def _edited(events: list, **changes) -> list:
    """``events`` with the fields of some versions changed (``v24={"amount": 400}``)."""
    out = []
    for e in events:
        fields = changes.get(f"v{e.originator_version}")
        if fields:
            e = copy.copy(e)
            for name, value in fields.items():
                object.__setattr__(e, name, value)
        out.append(e)
    return out


def test_a_double_down_recorded_for_more_than_the_stake_differs(app):
    events = list(app.events.get(UUID(play_fixed_casino(app))))
    (double,) = [e for e in events if isinstance(e, Round.StakeRaised)]

    result = rederive(_edited(events, **{f"v{double.originator_version}": {"amount": 750}}))

    assert not result.matches
    assert result.hands_differing == [double.hand]
    assert "Round.StakeRaised: amount recorded 750, now 500" in result.differences[0]


# The Vingt-un round of ``_dealer_penalties_from_cover``: v7 Ann's stake (100, holding 400),
# v8 the dealer's cover for it (VU-5, 400), v23/v24 his division's hold and cover (VU-21,
# 200 each), v33 h1's settlement (+200, all from the cover), v34 the over-draw penalties'
# release (VU-27, -140) and v35 the rest of the cover released at the end (VU-14, -350).
DIFFERING = {
    "a stake's hold": ({"v7": {"held": 300}}, ["h1"]),
    "the cover of a stake": ({"v8": {"amount": 500}, "v35": {"amount": -450}}, ["dealer"]),
    "a division's hold, smaller": ({"v23": {"amount": 100}}, ["h1"]),
    "a division's cover, smaller": ({"v24": {"amount": 100}, "v35": {"amount": -250}}, ["dealer"]),
    "a division's cover, larger, none of it released": ({"v24": {"amount": 400}}, ["dealer"]),
    "a settlement paid from the wallet instead of the cover": (
        {"v33": {"from_bank_cover": 0}},
        ["h1"],
    ),
    "the penalties' release": ({"v34": {"amount": -240}, "v35": {"amount": -250}}, ["dealer"]),
}


@pytest.mark.parametrize("edit", DIFFERING)
def test_money_recorded_otherwise_than_today_differs(app, edit):
    changes, hands = DIFFERING[edit]

    result = rederive(_edited(_dealer_penalties_from_cover(app), **changes))

    assert not result.matches, result.text()
    assert result.hands_differing == hands, result.text()
    assert result.settlements and all(s["recorded"] == s["rederived"] for s in result.settlements)
    assert "money DIFFERS" in result.text()


def test_a_division_covered_as_the_older_records_cover_it_still_matches(app):
    # Recorded before: the division covered four times the stake (400, not 200), and the
    # 200 more came back to the dealer with the rest of his cover at the end (README).
    result = rederive(
        _edited(_dealer_penalties_from_cover(app), v24={"amount": 400}, v35={"amount": -550})
    )

    assert result.matches, result.text()
    assert result.event_differences == [
        "v24 Round.BankCovered: amount recorded 400, now 200",
        "v35 Round.BankCovered: amount recorded -550, now -350",
    ]


def test_a_settlement_paying_another_player_differs_naming_both_by_their_recorded_ids(app):
    # Bob's win recorded as paid to Ann: the line names both as the record does, never as
    # the stand-ins of the replay (the same on every run).
    rid = play_fixed_casino(app)
    events = list(app.events.get(UUID(rid)))
    rnd = app.get_round(rid)
    ann, bob = rnd.hands["h1"]["player"], rnd.hands["h2"]["player"]
    (bobs,) = [e for e in events if isinstance(e, Round.HandSettled) and e.hand == "h2"]

    result = rederive(_edited(events, **{f"v{bobs.originator_version}": {"player": ann}}))

    assert not result.matches
    assert result.differences == [
        f"v{bobs.originator_version} Round.HandSettled: player recorded '{ann}', now '{bob}'"
    ]
    assert result.hands_differing == ["h2"]
    assert rederive_round(app, rid).matches  # the stored round itself
