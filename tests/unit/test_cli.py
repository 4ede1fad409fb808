"""``python -m ledger simulate``: its flags, defaults and refusals (the parser only; the runs
themselves are in tests/application/test_simulate.py)."""

import io
import sys

import pytest

from ledger.cli import build_parser, main
from ledger.cli.open_pools import open_pools
from ledger.cli.simulate import progress_reporter, settings_from


def settings(*argv: str):
    parser = build_parser()
    args = parser.parse_args(["simulate", *argv])
    return settings_from(args, args.subparser)


def refusal(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_:
        settings(*argv)
    assert exit_.value.code == 2
    return capsys.readouterr().err


def test_defaults_are_one_player_at_a_six_deck_casino_table_in_memory():
    s = settings()

    assert (s.family, s.rounds, s.players, s.store, s.seed) == ("casino", 1000, 1, "memory", None)
    assert s.one_command is False
    assert (s.decks, s.soft17, s.payout, s.das, s.surrender, s.strategy) == (
        6,
        "stand",
        "3:2",
        True,
        False,
        "basic",
    )


def test_every_casino_option_is_read():
    s = settings(
        "--rounds",
        "50",
        "--seed",
        "7",
        "--players",
        "3",
        "--decks",
        "2",
        "--soft17",
        "hit",
        "--payout",
        "6:5",
        "--no-das",
        "--surrender",
        "--strategy",
        "mimic",
        "--one-command-per-round",
    )

    assert (s.rounds, s.seed, s.players, s.decks, s.soft17, s.payout) == (50, 7, 3, 2, "hit", "6:5")
    assert (s.das, s.surrender, s.strategy, s.one_command) == (False, True, "mimic", True)


@pytest.mark.parametrize("family", ["vingt-un", "hoyle-1913", "ochko"])
def test_a_private_game_takes_the_family_and_no_casino_option(family, capsys):
    assert settings("--family", family).family == family

    err = refusal(capsys, "--family", family, "--decks", "2", "--no-das")
    assert "--decks, --das" in err and "casino table options" in err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--rounds", "0"], "expected a number >= 1"),
        (["--rounds", "many"], "expected a whole number"),
        (["--seed", "x"], "a seed is a whole number"),
        (["--players", "8"], "at most 7"),
        (["--family", "ochko", "--players", "7"], "at most 6"),  # the dealer takes a seat too
        (["--decks", "9"], "1 to 8 decks"),
        (["--sqlite-path", "x.sqlite3"], "goes with --store sqlite"),
        (["--family", "baccarat"], "invalid choice"),
        (["--payout", "2:1"], "invalid choice"),
        (["--store", "redis"], "invalid choice"),
    ],
)
def test_bad_flags_are_refused_with_the_reason(argv, says, capsys):
    assert says in refusal(capsys, *argv)


def test_without_a_command_the_help_goes_to_stderr_and_the_exit_code_is_2():
    out, err = io.StringIO(), io.StringIO()

    assert main([], stdout=out, stderr=err) == 2
    assert out.getvalue() == ""
    assert "simulate" in err.getvalue()


def test_no_progress_bar_unless_stderr_is_a_terminal():
    stream = io.StringIO()

    with progress_reporter(10, stream) as progress:
        assert progress is None
    assert stream.getvalue() == ""


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_progress_bar():
    stream = FakeTerminal()

    with progress_reporter(10, stream) as progress:
        progress(10)

    assert "10/10" in stream.getvalue()


def test_open_pools_refuses_a_store_that_is_not_there_and_makes_nothing(tmp_path, capsys):
    # It opens pools on the tables of an existing ledger: a mistyped path is a mistake,
    # not a new empty ledger (auditor review, store-path mistakes).
    environ = {"LEDGER_STORE": "sqlite", "LEDGER_SQLITE_PATH": str(tmp_path / "typo" / "l.db")}

    assert open_pools(io.StringIO(), sys.stderr, environ) == 2

    err = capsys.readouterr().err.strip()
    assert err.startswith("python -m ledger open-pools: ") and "does not exist" in err
    assert len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_simulate_refuses_a_sqlite_path_that_is_a_directory(tmp_path, capsys):
    assert main(["simulate", "--store", "sqlite", "--sqlite-path", str(tmp_path)]) == 2

    err = capsys.readouterr().err.strip()
    assert "is a directory" in err and len(err.splitlines()) == 1
    # Named by the flag the user gave, not by a variable he never set.
    assert f"--sqlite-path {str(tmp_path)!r}" in err and "LEDGER_SQLITE_PATH" not in err
