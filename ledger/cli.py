"""``python -m ledger``: command-line tools.

``simulate`` plays many rounds through the real application and store and prints ONE JSON
object on stdout (the figures of ``ledger.simulate.run`` and the settings used), with a
progress bar on stderr when stderr is a terminal.

    python -m ledger simulate --family casino --rounds 10000 --seed 1 --store memory
    python -m ledger simulate --rounds 200000 --seed 1 --workers 2   # both cores

``open-pools`` opens, on the configured store, the pool of every Vingt-un table recorded
before tables kept their pools in their own stream, and prints ONE JSON object.

``reveal-retired`` reveals, on the configured store, every shoe a table retired without a
reveal (a cut for the deal before 7ce9108), and prints ONE JSON object.

``--seed`` makes a run reproducible: the shoes' server seeds and cuts then come from
``random.Random(seed)`` instead of ``secrets`` (simulation only; see ``ShoeService.rng``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from ledger.config import describe, store_env, store_error_line
from ledger.errors import LedgerError

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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ledger", description="Twenty-One Ledger tools."
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    sim = commands.add_parser(
        "simulate",
        help="play many rounds through the ledger and print figures as JSON",
        description="Play many rounds through the real application and store; print ONE JSON "
        "object (figures and settings) on stdout.",
    )
    sim.set_defaults(subparser=sim)
    commands.add_parser(
        "open-pools",
        help="open the pools of Vingt-un tables recorded before tables kept their pools",
        description="On the store LEDGER_STORE names: open the pool of every Vingt-un table "
        "recorded before tables kept their pools in their own stream, with one fold of the "
        "log's transfers for all of them; print ONE JSON object. Run it once after upgrading, "
        "in a quiet hour (it reads every transfer event), instead of leaving each table's "
        "first command that moves pool money to fold the log.",
    )
    commands.add_parser(
        "reveal-retired",
        help="reveal the shoes tables retired without a reveal (before 7ce9108)",
        description="On the store LEDGER_STORE names: reveal, from the shoe vault, every shoe "
        "a table retired (another shoe replaced it, or the table closed) that has no "
        "Shoe.Revealed; print ONE JSON object. Run it once after upgrading: a cut for the "
        "deal used to replace the shoe in use without revealing it, which replay verify "
        "now reports. Running it again reveals nothing.",
    )
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
    return parser


def settings_from(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Any:
    from ledger.simulate import CASINO_ONLY, Settings

    given = [name for name in CASINO_ONLY if getattr(args, name) is not None]
    if args.family != "casino" and given:
        flags = ", ".join("--" + name for name in given)
        parser.error(f"{flags}: casino table options; {args.family} takes none")
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
        workers=min(args.workers, args.rounds),  # a process a round at most: the ones that run
        **casino,
    )


@contextmanager
def progress_reporter(total: int, stream: TextIO) -> Iterator[Callable[[int], None] | None]:
    """A rich progress bar on ``stream`` when it is a terminal; otherwise nothing at all."""
    if not stream.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(file=stream), transient=True) as bar:
        task = bar.add_task("rounds", total=total)
        yield lambda n: bar.update(task, completed=n)


class _Refused(Exception):
    """Already reported on stderr: the command exits with ``code``."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


@contextmanager
def _ledger(command: str, stderr: TextIO, make_env: Callable[[], dict]) -> Iterator[tuple]:
    """The application on the store ``make_env`` names, and that environment; a bad setting,
    a store that cannot be opened or a refusal is reported and raised as ``_Refused``."""
    from eventsourcing.persistence import PersistenceError

    from ledger.application import TwentyOneLedger

    name = f"python -m ledger {command}"
    try:
        env = make_env()
    except ValueError as error:  # a malformed POSTGRES_* or LEDGER_* variable
        print(f"{name}: {error}", file=stderr)
        raise _Refused(2) from None
    try:
        app = TwentyOneLedger(env=env)
    except PersistenceError as error:
        print(f"{name}: {describe(env)}: {store_error_line(error)}", file=stderr)
        raise _Refused(1) from None
    try:
        yield app, env
    except LedgerError as error:
        print(f"{name}: the ledger refused: {error}", file=stderr)
        raise _Refused(1) from None
    except PersistenceError as error:
        print(f"{name}: {describe(env)}: {store_error_line(error)}", file=stderr)
        raise _Refused(1) from None
    finally:
        app.close()


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
            with _ledger("simulate", stderr, make_env) as (app, env):
                with progress_reporter(settings.rounds, stderr) as progress:
                    if settings.workers > 1:
                        # The parent's application has made the store ready (its tables, its
                        # file); each worker opens its own, so it lets its connections go.
                        app.close()
                        result = run_parallel(settings, env, progress, store_ready=True)
                    else:
                        result = run(settings, app, progress)
        except _Refused as refused:
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


def open_pools(stdout: TextIO, stderr: TextIO, environ: Any = None) -> int:
    try:
        with _ledger("open-pools", stderr, lambda: store_env(environ=environ, create=False)) as (
            app,
            env,
        ):
            opened = app.open_pools()
    except _Refused as refused:
        return refused.code
    stdout.write(json.dumps({"opened": opened, "store_description": describe(env)}) + "\n")
    return 0


def reveal_retired(stdout: TextIO, stderr: TextIO, environ: Any = None) -> int:
    command = "reveal-retired"
    try:
        with _ledger(command, stderr, lambda: store_env(environ=environ, create=False)) as (
            app,
            env,
        ):
            done = app.reveal_retired()
    except _Refused as refused:
        return refused.code
    for shoe_id in done["seed_missing"]:
        print(
            f"python -m ledger {command}: shoe {shoe_id} was retired without a reveal, and the "
            "shoe vault does not hold its seed: it cannot be revealed",
            file=stderr,
        )
    out = {"count": len(done["revealed"]), **done, "store_description": describe(env)}
    stdout.write(json.dumps(out) + "\n")
    return 1 if done["seed_missing"] else 0


def main(
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    if args.command == "simulate":
        return simulate(args, args.subparser, stdout, stderr)
    if args.command == "open-pools":
        return open_pools(stdout, stderr)
    if args.command == "reveal-retired":
        return reveal_retired(stdout, stderr)
    parser.print_help(stderr)
    return 2
