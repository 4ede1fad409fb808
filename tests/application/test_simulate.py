"""The simulator plays real rounds through the application; its figures must agree with the
known figures of casino Blackjack, a seed must make a run reproducible, and the CLI and the
benchmarks must run.

One seeded run of ROUNDS rounds is shared by the checks, of two kinds:

- exact: an independent referee (``casino_referee``) reads every round of the run and holds the
  dealer's draws to S17, every player decision to basic strategy and every settlement to the
  cards and 3:2, so a wrong rule is a named fault, not a shift in a figure. The run is
  deterministic for its seed, and the same referee is shown to fault short runs played with the
  wrong rules (a blackjack paid 6:5, a player mimicking the dealer, a dealer hitting soft 17, no
  double after a split).
- statistical: the figures against exact and published values, each allowing Z standard errors
  of the run's own counts (plus, for the dealer table, a small allowance for a shoe part-dealt
  rather than full: card removal). They bound the deal itself (the shoe's make-up, the shuffle)
  and catch gross errors only: at 2,500 rounds the house edge is known to about ±8 points of a
  bet, while a 6:5 payout moves it by 1.4 points and mimicking the dealer by 5. Telling those
  apart by the figures alone would take hundreds of thousands of rounds; the referee does it
  exactly in a few hundred.
"""

from __future__ import annotations

import gc
import io
import json
import math
import os
import subprocess
import sys
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from casino_referee import Verdict, natural, referee, total

from ledger import simulate
from ledger.application import TwentyOneLedger
from ledger.cli import main
from ledger.config import store_env
from ledger.shuffle import ALGORITHM, verify_seed
from ledger.simulate import Settings, play_round, run, setup_table
from ledger.simulate_tally import FINALS, UPCARDS, Tally, dealer_table

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 2500  # about 5 s; the standard error of a share with n samples is at most 0.5/sqrt(n)
Z = 4.0
SEED = 2024


# -- the dealer's final-total table, computed exactly for a full 6-deck shoe ----------------------


def exact_dealer_table(decks: int = 6, hit_soft_17: bool = False) -> dict[str, dict[str, float]]:
    """P(final outcome | up-card) when the hole card and draws come from the rest of a full
    shoe. Agrees with the published tables (6 decks, S17: the dealer busts 42.3% of the time
    with a 6 up, 35.4% with a 2, and 23.0% with a ten once he has peeked for blackjack)."""

    @cache
    def final(
        hard: int, has_ace: bool, cards: int, shoe: tuple[int, ...]
    ) -> tuple[tuple[str, float], ...]:
        soft = has_ace and hard + 10 <= 21
        best = hard + 10 if soft else hard
        if cards == 2 and best == 21:
            return (("blackjack", 1.0),)
        if best > 21:
            return (("bust", 1.0),)
        if best > 17 or (best == 17 and not (hit_soft_17 and soft)):
            return ((str(best), 1.0),)
        out: Counter = Counter()
        left = sum(shoe)
        for value in range(1, 11):
            if shoe[value]:
                rest = list(shoe)
                rest[value] -= 1
                for outcome, p in final(
                    hard + value, has_ace or value == 1, cards + 1, tuple(rest)
                ):
                    out[outcome] += shoe[value] / left * p
        return tuple(out.items())

    table = {}
    for up in UPCARDS:
        value = 1 if up == "A" else int(up)
        shoe = [0] + [4 * decks] * 9 + [16 * decks]
        shoe[value] -= 1
        table[up] = dict(final(value, value == 1, 1, tuple(shoe)))
    return table


EXACT = exact_dealer_table()


def test_the_exact_table_is_the_published_one():
    assert EXACT["6"]["bust"] == pytest.approx(0.4228, abs=0.0005)
    assert EXACT["2"]["bust"] == pytest.approx(0.3536, abs=0.0005)
    assert EXACT["10"]["blackjack"] == pytest.approx(0.0772, abs=0.0005)
    assert EXACT["10"]["bust"] / (1 - EXACT["10"]["blackjack"]) == pytest.approx(0.230, abs=0.001)
    assert all(sum(row.values()) == pytest.approx(1.0) for row in EXACT.values())


# -- one long seeded run --------------------------------------------------------------------------


def played(settings: Settings) -> tuple[dict, Verdict]:
    """A run's figures, and the referee's verdict on its rounds."""
    app = TwentyOneLedger(env=store_env("memory", environ={}))
    try:
        figures = run(settings, app)
        started = [
            n.originator_id
            for n in app.recorder.select_notifications(start=1, limit=10**7)
            if n.topic.endswith("Round.Started")
        ]
        verdict = referee([list(app.events.get(rid)) for rid in started], settings.stake)
    finally:
        app.close()
    return figures, verdict


@pytest.fixture(scope="module")
def run_of_record() -> tuple[dict, Verdict]:
    return played(Settings(rounds=ROUNDS, seed=SEED, players=1, strategy="basic"))


@pytest.fixture(scope="module")
def figures(run_of_record) -> dict:
    return run_of_record[0]


@pytest.fixture(scope="module")
def verdict(run_of_record) -> Verdict:
    return run_of_record[1]


def share_tolerance(p: float, n: int) -> float:
    return Z * math.sqrt(max(p * (1 - p), 0.01) / n)


# -- exact: the referee on every round of the run ------------------------------------------------


@pytest.mark.slow
def test_the_dealer_draws_below_17_and_stands_on_every_17_soft_ones_too(verdict):
    assert verdict.of("dealer") == []
    assert verdict.rounds == ROUNDS and verdict.dealer_draws > ROUNDS / 2
    assert verdict.soft_17_stands > 10  # the rule that S17 and H17 differ on was met


@pytest.mark.slow
def test_every_decision_of_the_player_is_basic_strategys(verdict):
    assert verdict.of("decision") == []
    assert verdict.decisions > ROUNDS
    # Each kind of decision was met, a double after a split (DAS) too.
    assert verdict.splits > 10 and verdict.doubles > 100 and verdict.doubles_after_split > 5


@pytest.mark.slow
def test_every_hand_is_paid_what_its_cards_say_and_so_is_the_run(verdict, figures):
    assert verdict.of("settlement") == []
    assert verdict.naturals_paid > 50  # each paid 3:2
    # The run's figure is the referee's sum, to the minor unit: nothing is counted twice or lost.
    net = figures["player_net_per_hand"] * figures["initial_hands"] * 100
    assert net == pytest.approx(verdict.net, abs=1e-6)


@pytest.mark.slow
def test_the_dealer_table_counts_what_the_referee_counts_from_the_cards(verdict, figures):
    """The run's dealer figures, derived again for this seed from the dealer's cards alone."""
    for up in UPCARDS:
        mine, counted = figures["dealer"][up], verdict.dealer[up]
        assert (mine["n"], mine["played"]) == (counted["n"], counted["played"]), up
        no_blackjack = 1 - counted["blackjack"] / counted["n"]
        assert mine["blackjack"] == pytest.approx(counted["blackjack"] / counted["n"]), up
        for final in FINALS[1:-2] + ["bust"]:  # 17 … 21, bust: of the hands he played out
            share = no_blackjack * counted[final] / counted["played"]
            assert mine[final] == pytest.approx(share), (up, final)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("wrong", "faults"),
    [
        ({"payout": "6:5"}, {"settlement"}),
        ({"strategy": "mimic"}, {"decision"}),
        ({"soft17": "hit"}, {"dealer", "decision"}),  # and 11 against an ace is a double
        ({"das": False}, {"decision"}),
        ({"soft17": "hit", "payout": "6:5", "das": False}, {"dealer", "decision", "settlement"}),
    ],
    ids=["6:5", "mimic", "H17", "no DAS", "H17, 6:5, no DAS"],
)
def test_the_referee_faults_a_run_played_by_the_wrong_rules(wrong, faults):
    """The same seed, 300 rounds (under a second each): each wrong rule is named."""
    _, verdict = played(Settings(rounds=300, seed=SEED, players=1, **wrong))

    assert {fault.split(":")[0] for fault in verdict.faults} == faults, verdict.faults[:5]


def test_the_referee_settles_by_the_book():
    assert total(["AS", "6H"]) == (17, True) and total(["AS", "6H", "TD"]) == (17, False)
    assert total(["AS", "AD", "9C"]) == (21, True) and total(["KS", "QH", "2C"]) == (22, False)
    assert natural(["AS", "KD"]) and not natural(["AS", "5D", "5C"])


# -- statistical: the figures against exact and published values -----------------------------------


@pytest.mark.slow
def test_the_dealer_busts_as_often_as_the_published_figures_say(figures):
    """Bounds the deal (the shoe's make-up and the shuffle), within Z standard errors: about
    ±15 points with a 6 up at 2,500 rounds, too wide to tell S17 from H17 (2 points); the
    referee checks the dealer's rule itself, draw by draw."""
    six, ten = figures["dealer"]["6"], figures["dealer"]["10"]

    # A 6 up: no blackjack possible, busts 42%.
    assert six["blackjack"] == 0
    assert six["bust"] == pytest.approx(0.4228, abs=share_tolerance(0.4228, six["played"]) + 0.005)
    # A ten up: busts 23% of the hands he plays out after peeking for blackjack.
    after_peek = ten["bust"] / (1 - ten["blackjack"])
    assert after_peek == pytest.approx(0.230, abs=share_tolerance(0.230, ten["played"]) + 0.005)
    assert ten["blackjack"] == pytest.approx(0.0772, abs=share_tolerance(0.0772, ten["n"]) + 0.003)


@pytest.mark.slow
def test_every_cell_of_the_dealer_table_agrees_with_the_exact_figures(figures):
    """Within Z standard errors of each cell's count (see above): a shoe of the wrong make-up
    or a biased shuffle, not a fine rule."""
    table = figures["dealer"]
    assert sum(row["n"] for row in table.values()) == ROUNDS
    for up in UPCARDS:
        row = table[up]
        assert sum(row[k] for k in FINALS) == pytest.approx(1.0)
        assert row["under_17"] == 0  # the casino dealer always draws to 17
        for outcome in FINALS[1:]:
            expected = EXACT[up].get(outcome, 0.0)
            n = row["n"] if outcome == "blackjack" else row["played"]
            assert row[outcome] == pytest.approx(
                expected, abs=share_tolerance(expected, n) + 0.005
            ), (up, outcome)


@pytest.mark.slow
def test_the_net_per_hand_is_within_four_standard_errors_of_the_house_edge(figures):
    """6 decks, S17, DAS, no surrender, 3:2: the house edge of basic strategy is about 0.45%
    of the initial bet. At 2,500 rounds four standard errors are about 8 points of a bet, so
    this catches gross errors in the money only: a 6:5 payout (1.4 points) or a player who
    mimics the dealer (5 points) passes it, and the referee's tests above fault them exactly."""
    stderr = figures["player_net_per_hand_stderr"]

    assert 0.015 < stderr < 0.03  # the sample is large enough for the band to mean something
    assert figures["player_net_per_hand"] == pytest.approx(-0.0045, abs=Z * stderr)
    assert -0.12 < figures["player_net_per_hand"] < 0.11


@pytest.mark.slow
def test_naturals_come_in_one_hand_in_twenty_one(figures):
    p = 2 * (24 / 312) * (96 / 311)  # an ace and a ten-card from a full 6-deck shoe: 4.75%

    assert figures["naturals_rate"] == pytest.approx(
        p, abs=share_tolerance(p, figures["initial_hands"])
    )
    assert figures["rounds"] == figures["initial_hands"] == ROUNDS
    assert figures["hands"] >= ROUNDS  # splits add hands
    assert figures["events"] > 15 * ROUNDS


# -- counting -------------------------------------------------------------------------------------


def test_a_natural_is_an_initial_hand_dealt_ace_and_ten_not_a_split_ace_drawing_a_ten(app):
    s = Settings(rounds=2, players=1, strategy="basic")
    table, view = setup_table(s, app)
    shoe = [
        "AS",
        "9H",
        "KD",
        "7C",  # round 1: a natural against a dealer 16 (who needs not draw)
        "AD",
        "6H",
        "AC",
        "TC",  # round 2: aces split against a 6 ...
        "KH",
        "QS",  # ... each drawing a ten-card: 21, but no natural
        "9D",  # the dealer draws to 16 and busts
    ] + ["2C"] * 30
    app.fix_next_shoe(table, shoe)
    tally = Tally()

    first = app.get_round(play_round(app, table, s, view, tally))
    second = app.get_round(play_round(app, table, s, view, tally))

    assert first.hands["h1"]["outcome"] == "blackjack"
    assert [h["cards"] for h in second.hands.values()] == [["AD", "KH"], ["AC", "QS"]]
    assert (tally.naturals, tally.initial_hands, tally.hands) == (1, 2, 3)
    assert tally.net_units == pytest.approx(1.5 + 2)


def test_the_dealer_table_counts_the_rounds_he_did_not_need_to_play():
    # 10 rounds with a ten up: one dealer blackjack, nine without; he played only three of
    # those (in the others the player had busted) and busted in all three.
    tally = Tally()
    tally.dealer["10"].update({"n": 10, "blackjack": 1})
    tally.dealer_played["10"].update({"n": 3, "bust": 3})

    row = dealer_table(tally)["10"]

    assert row["blackjack"] == pytest.approx(0.1)  # not 1/4, as counting played rounds gave
    assert row["bust"] == pytest.approx(0.9)
    assert (row["n"], row["played"]) == (10, 3)


def test_a_share_the_run_saw_nothing_of_is_null_not_zero():
    # An ace up twice, neither his blackjack, and he never played out (the player busted);
    # a six never dealt; a ten up once, his blackjack.
    tally = Tally()
    tally.dealer["A"].update({"n": 2})
    tally.dealer["10"].update({"n": 1, "blackjack": 1})

    table = dealer_table(tally)

    assert table["A"]["blackjack"] == 0.0
    assert all(table["A"][k] is None for k in FINALS if k != "blackjack")
    assert all(table["6"][k] is None for k in FINALS)
    assert (table["6"]["n"], table["6"]["played"]) == (0, 0)
    assert table["10"]["blackjack"] == 1.0
    assert all(table["10"][k] == 0.0 for k in FINALS if k != "blackjack")


# -- seeds ----------------------------------------------------------------------------------------

TIMINGS = ("seconds", "rounds_per_second", "events_per_second", "table_ids")  # not figures


def seeded(
    seed: int | None, family: str = "casino", one_command: bool = False, **options: Any
) -> dict:
    app = TwentyOneLedger(env=store_env("memory", environ={}))
    settings = Settings(
        family=family, rounds=60, seed=seed, players=2, one_command=one_command, **options
    )
    try:
        result = run(settings, app)
    finally:
        app.close()
    return {k: v for k, v in result.items() if k not in TIMINGS}


@pytest.mark.parametrize("family", ["casino", "vingt-un", "hoyle-1913", "ochko"])
def test_the_same_seed_gives_the_same_figures(family):
    assert seeded(11, family) == seeded(11, family)


@pytest.mark.parametrize("family", ["casino", "vingt-un", "hoyle-1913", "ochko"])
def test_one_command_per_round_plays_exactly_the_same_rounds(family):
    step_by_step = seeded(11, family)

    assert seeded(11, family, one_command=True) == step_by_step


@pytest.mark.parametrize("one_command", [False, True], ids=["step-by-step", "one-command"])
@pytest.mark.parametrize("family", ["vingt-un", "hoyle-1913", "ochko"])
def test_the_policies_stand_for_a_hand_that_waits_for_its_holder(family, one_command):
    """With holder_ends_turn a hand at 21 waits for a stand the policies (step by step) and
    play_round (one command) make, so the same seed plays the same rounds as without it: the
    same cards, results and number of events."""
    plain = seeded(3, family, one_command)

    assert seeded(3, family, one_command, holder_ends_turn=True) == plain


def test_another_seed_or_no_seed_deals_other_cards():
    assert seeded(11) != seeded(12)
    assert seeded(None) != seeded(None)


def test_seeded_shoes_follow_the_provably_fair_protocol():
    app = TwentyOneLedger(env=store_env("memory", environ={}))
    try:
        run(Settings(rounds=80, seed=5), app)  # a 6-deck shoe lasts about 45 one-player rounds
        shoes = [
            app.get_shoe(n.originator_id)
            for n in app.recorder.select_notifications(start=1, limit=10**6)
            if n.topic.endswith("Shoe.Committed")
        ]
    finally:
        app.close()

    revealed = [shoe for shoe in shoes if shoe.revealed]
    assert len(shoes) >= 2 and revealed
    for shoe in revealed:
        assert not shoe.fixed and shoe.algorithm == ALGORITHM and shoe.cut_at is not None
        assert verify_seed(shoe.server_seed, shoe.commitment)


# -- the command line -----------------------------------------------------------------------------


def test_simulate_prints_one_json_object_with_the_figures_and_the_settings():
    out, err = io.StringIO(), io.StringIO()

    code = main(
        ["simulate", "--rounds", "20", "--seed", "3", "--players", "2", "--strategy", "mimic"],
        stdout=out,
        stderr=err,
    )

    assert code == 0 and err.getvalue() == ""
    (line,) = out.getvalue().splitlines()
    result = json.loads(line)
    for key in (
        "rounds",
        "hands",
        "events",
        "rounds_per_second",
        "player_net_per_hand",
        "naturals_rate",
        "dealer",
    ):
        assert key in result
    assert result["rounds"] == 20 and result["hands"] >= 40
    assert set(result["dealer"]) == set(UPCARDS)
    assert set(FINALS) | {"n"} <= set(result["dealer"]["10"])
    assert result["seed"] == 3
    assert len(result["table_ids"]) == 1  # the table the run played at, to find its rounds
    assert (result["settings"]["players"], result["settings"]["strategy"]) == (2, "mimic")
    assert result["settings"]["decks"] == 6
    assert "holder_ends_turn" not in result["settings"]  # a private game's option


def test_holder_ends_turn_is_a_private_games_flag_that_the_settings_carry():
    out = io.StringIO()
    argv = ["simulate", "--family", "ochko", "--rounds", "4", "--seed", "2", "--players", "3"]

    assert main([*argv, "--holder-ends-turn"], stdout=out) == 0

    result = json.loads(out.getvalue())
    assert result["settings"]["holder_ends_turn"] is True
    plain = io.StringIO()
    assert main(argv, stdout=plain) == 0
    assert json.loads(plain.getvalue())["settings"]["holder_ends_turn"] is False
    with pytest.raises(SystemExit) as refused:
        main(["simulate", "--rounds", "1", "--holder-ends-turn"], stderr=io.StringIO())
    assert refused.value.code == 2


def test_a_private_game_s_settings_list_no_casino_options():
    """--decks, --soft17 … are refused for the private families, and their players follow the
    documented policy, not --strategy: the run's settings must not claim them."""
    out = io.StringIO()

    assert main(["simulate", "--family", "vingt-un", "--rounds", "3"], stdout=out) == 0

    settings = json.loads(out.getvalue())["settings"]
    assert settings["family"] == "vingt-un" and settings["rounds"] == 3
    assert {"decks", "soft17", "payout", "das", "surrender", "strategy"}.isdisjoint(settings)


def test_simulate_on_sqlite_keeps_the_file_it_was_given(tmp_path):
    path = tmp_path / "sim" / "run.sqlite3"
    out = io.StringIO()

    assert (
        main(
            ["simulate", "--rounds", "5", "--store", "sqlite", "--sqlite-path", str(path)],
            stdout=out,
            stderr=io.StringIO(),
        )
        == 0
    )

    result = json.loads(out.getvalue())
    assert result["rounds"] == 5 and result["sqlite_path"] == str(path)
    assert path.exists()


@pytest.mark.parametrize("family", ["vingt-un", "hoyle-1913", "ochko"])
def test_simulate_plays_the_private_games(family):
    out = io.StringIO()

    assert (
        main(
            ["simulate", "--family", family, "--rounds", "10", "--players", "3", "--seed", "1"],
            stdout=out,
            stderr=io.StringIO(),
        )
        == 0
    )
    assert json.loads(out.getvalue())["initial_hands"] == 30


def test_python_m_ledger_simulate_runs_as_a_program():
    done = subprocess.run(
        [sys.executable, "-m", "ledger", "simulate", "--rounds", "3", "--seed", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "LEDGER_STORE": "memory"},
    )

    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no progress bar when stderr is not a terminal
    assert json.loads(done.stdout)["rounds"] == 3


# -- the benchmarks, quick mode, in-memory store only ---------------------------------------------


def test_the_benchmarks_run_in_quick_mode(capsys):
    from benchmarks.__main__ import main as bench

    assert bench(["--quick", "--stores", "memory"]) == 0

    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    names = {line["name"] for line in lines}
    assert {"rounds_per_s_memory", "events_per_s_memory", "sim_rounds_per_s_vs_gymnasium"} <= names
    assert "sim_rounds_per_s_workers_vs_gymnasium_workers" in names
    assert {
        f"load_{what}_memory_after_100_rounds" for what in ("table", "round", "player")
    } <= names
    for line in lines:
        assert {"name", "value", "unit", "baseline", "ratio", "target"} <= set(line)
        if line["baseline"] and line["value"] is not None:
            assert line["ratio"] == pytest.approx(line["value"] / line["baseline"], rel=1e-3)
    targeted = [line for line in lines if line["target"]]
    assert targeted and all("met" in line for line in targeted)


def test_an_unreachable_store_is_an_error_message_not_a_traceback(monkeypatch):
    monkeypatch.setenv("POSTGRES_HOST", "127.0.0.1")
    monkeypatch.setenv("POSTGRES_PORT", "1")  # nothing listens there
    monkeypatch.setenv("POSTGRES_CONNECT_TIMEOUT", "1")
    out, err = io.StringIO(), io.StringIO()

    assert main(["simulate", "--store", "postgres", "--rounds", "1"], stdout=out, stderr=err) == 1
    assert out.getvalue() == ""
    assert "PostgreSQL postgres@127.0.0.1:1/test" in err.getvalue()


def test_a_long_run_leaves_the_collector_as_it_found_it(monkeypatch):
    """``run`` keeps the store's rows out of full collections while it plays (gc.freeze), and
    gives them back when it ends, even on a failure; a caller's own freeze is left alone. It
    collects young objects less often while it plays, and puts the thresholds back."""
    monkeypatch.setattr(simulate, "FREEZE_EVERY", 2)
    freeze, froze = gc.freeze, []
    thresholds, playing = gc.get_threshold(), []

    def counted_freeze():
        froze.append(1)
        playing.append(gc.get_threshold())
        freeze()

    monkeypatch.setattr(simulate.gc, "freeze", counted_freeze)
    app = TwentyOneLedger(env=store_env("memory", environ={}))
    try:
        run(Settings(rounds=5, seed=3), app)
        assert len(froze) == 2 and gc.get_freeze_count() == 0
        assert playing[0][0] == max(thresholds[0], simulate.YOUNG_COLLECTION_EVERY)
        assert playing[0][1:] == thresholds[1:] and gc.get_threshold() == thresholds

        played = []

        def fails_on_the_third(*args):
            played.append(1)
            if len(played) == 3:
                raise RuntimeError("a failing round")
            return play_round(*args)

        monkeypatch.setattr(simulate, "play_round", fails_on_the_third)
        with pytest.raises(RuntimeError):
            run(Settings(rounds=4, seed=3), app)
        assert len(froze) == 3 and gc.get_freeze_count() == 0
        assert gc.get_threshold() == thresholds

        gc.freeze()
        monkeypatch.setattr(simulate, "play_round", play_round)
        run(Settings(rounds=1, seed=3), app)
        assert gc.get_freeze_count() > 0  # still the caller's
    finally:
        gc.unfreeze()
        app.close()
