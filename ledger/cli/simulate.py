"""``python -m ledger simulate``: play many rounds through the real application and store,
and print ONE JSON object on stdout (the figures of ``ledger.simulate.run`` and the settings
used), with a progress bar on stderr when stderr is a terminal.

    python -m ledger simulate --family casino --rounds 10000 --seed 1 --store memory
    python -m ledger simulate --rounds 200000 --seed 1 --workers 2   # both cores

``--seed`` makes a run reproducible: the shoes' server seeds and cuts then come from
``random.Random(seed)`` instead of ``secrets`` (simulation only; see ``ShoeService.rng``).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from ledger.cli.store import Refused, open_ledger
from ledger.config import describe, store_env
from ledger.progress import terminal_bar

FAMILIES = ("vingt-un", "hoyle-1913", "ochko", "casino")
STORES = ("memory", "sqlite", "postgres")
# Options of the casino table only: given with another family they are an error, not ignored.
CASINO_DEFAULTS = {
    "decks": 6,
    "soft17": "stand",
    "payout": "3:2",
    "das": True,
    "surrender": False,
    "strategy": "basic",
}
MAX_PLAYERS = 7  # the rules' default max_players; the private games seat the dealer too
MAX_WORKERS = 64  # a typo of a few zeros must not start thousands of processes


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number, got {text!r}") from None


def add_parser(commands: Any) -> None:
    sim = commands.add_parser(
        "simulate",
        help="play many rounds through the ledger and print figures as JSON",
        description="Play many rounds through the real application and store; print ONE JSON "
        "object (figures and settings) on stdout.",
    )
    sim.set_defaults(subparser=sim)
    sim.add_argument(
        "--family", choices=FAMILIES, default="casino", help="rule family (default casino)"
    )
    sim.add_argument(
        "--rounds", type=_positive, default=1000, metavar="N", help="rounds to play (default 1000)"
    )
    sim.add_argument(
        "--seed",
        type=_seed,
        default=None,
        metavar="S",
        help="reproducible run: shoe seeds and cuts from random.Random(S), not secrets",
    )
    sim.add_argument(
        "--players", type=_positive, default=1, metavar="P", help="players at the table (default 1)"
    )
    sim.add_argument(
        "--store",
        choices=STORES,
        default="memory",
        help="where the events go (default memory); postgres reads POSTGRES_* variables",
    )
    sim.add_argument(
        "--sqlite-path",
        default=None,
        metavar="PATH",
        help="SQLite file for --store sqlite (default: a temporary file, deleted afterwards)",
    )
    sim.add_argument(
        "--workers",
        type=_positive,
        default=1,
        metavar="W",
        help=f"processes playing the rounds, each at a table of its own, 1 to {MAX_WORKERS} "
        "(default 1; a seeded run is reproducible for the same W)",
    )
    sim.add_argument(
        "--one-command-per-round",
        action="store_true",
        help="play each round as one command (app.play_round: the same events, one write)",
    )
    private = sim.add_argument_group("private games (vingt-un, hoyle-1913, ochko)")
    private.add_argument(
        "--holder-ends-turn",
        action="store_true",
        help="a hand that reaches 21 waits for its holder's stand (the table option "
        "holder_ends_turn; default: the turn ends by itself)",
    )
    casino = sim.add_argument_group("casino table (--family casino only)")
    casino.add_argument(
        "--decks",
        type=_positive,
        default=None,
        metavar="D",
        help="decks in the shoe, 1 to 8 (default 6)",
    )
    casino.add_argument(
        "--soft17", choices=("stand", "hit"), default=None, help="dealer on soft 17 (default stand)"
    )
    casino.add_argument(
        "--payout", choices=("3:2", "6:5"), default=None, help="blackjack pays (default 3:2)"
    )
    casino.add_argument(
        "--das",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="double after split (default yes)",
    )
    casino.add_argument(
        "--surrender",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="late surrender (default no)",
    )
    casino.add_argument(
        "--strategy",
        choices=("basic", "mimic"),
        default=None,
        help="player policy: basic strategy or mimic the dealer (default basic)",
    )


def settings_from(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Any:
    from ledger.simulate import CASINO_ONLY, Settings

    given = [name for name in CASINO_ONLY if getattr(args, name) is not None]
    if args.family != "casino" and given:
        flags = ", ".join("--" + name for name in given)
        parser.error(f"{flags}: casino table options; {args.family} takes none")
    if args.family == "casino" and args.holder_ends_turn:
        parser.error("--holder-ends-turn: an option of the private games; casino takes none")
    limit = MAX_PLAYERS if args.family == "casino" else MAX_PLAYERS - 1
    if args.players > limit:
        parser.error(f"--players: at most {limit} at a {args.family} table")
    if args.decks is not None and args.decks > 8:
        parser.error("--decks: a casino shoe holds 1 to 8 decks")
    if args.workers > MAX_WORKERS:
        parser.error(f"--workers: at most {MAX_WORKERS}")
    if args.sqlite_path is not None and args.store != "sqlite":
        parser.error("--sqlite-path goes with --store sqlite")
    casino = {
        name: CASINO_DEFAULTS[name] if getattr(args, name) is None else getattr(args, name)
        for name in CASINO_ONLY
    }
    return Settings(
        family=args.family,
        rounds=args.rounds,
        seed=args.seed,
        players=args.players,
        store=args.store,
        one_command=args.one_command_per_round,
        holder_ends_turn=args.holder_ends_turn,
        workers=min(args.workers, args.rounds),  # a process a round at most: the ones that run
        **casino,
    )


@contextmanager
def progress_reporter(total: int, stream: TextIO) -> Iterator[Callable[[int], None] | None]:
    """A progress bar of the rounds played on ``stream`` when it is a terminal; else None."""
    with terminal_bar(stream, "simulating") as bar:
        if bar is None:
            yield None
            return
        task = bar.add_task("rounds", total=total)
        yield lambda n: bar.update(task, completed=n)


def simulate(
    args: argparse.Namespace, parser: argparse.ArgumentParser, stdout: TextIO, stderr: TextIO
) -> int:
    from ledger.parallel import WorkerFailed
    from ledger.simulate import run
    from ledger.simulate_parallel import run_parallel

    settings = settings_from(args, parser)
    with tempfile.TemporaryDirectory(prefix="ledger-sim-") as scratch:
        path = args.sqlite_path or str(Path(scratch) / "simulation.sqlite3")

        def make_env() -> dict:
            return store_env(
                args.store,
                sqlite_path=path if args.store == "sqlite" else None,
                path_name="--sqlite-path",  # the flag names the file, never the variable
            )

        try:
            with open_ledger("simulate", stderr, make_env) as (app, env):
                with progress_reporter(settings.rounds, stderr) as progress:
                    if settings.workers > 1:
                        # The parent's application has made the store ready (its tables, its
                        # file); each worker opens its own, so it lets its connections go.
                        app.close()
                        result = run_parallel(settings, env, progress, store_ready=True)
                    else:
                        result = run(settings, app, progress)
        except Refused as refused:
            return refused.code
        except WorkerFailed as failed:  # a worker died (killed, out of memory)
            print(f"python -m ledger simulate: {failed}", file=stderr)
            return 1
    out = {
        **result,
        "seed": settings.seed,
        "settings": settings.applied(),
        "store_description": describe(env),
    }
    if args.store == "sqlite":
        out["sqlite_path"] = args.sqlite_path  # None: a temporary file, deleted
    stdout.write(json.dumps(out) + "\n")
    stdout.flush()
    return 0
