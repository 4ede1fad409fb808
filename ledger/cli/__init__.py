"""``python -m ledger``: command-line tools, one module a command.

- ``simulate`` (``ledger.cli.simulate``) plays many rounds through the real application and
  store and prints ONE JSON object on stdout: the figures and the settings used.
- ``open-pools`` (``ledger.cli.open_pools``) opens, on the configured store, the pool of every
  Vingt-un table recorded before tables kept their pools in their own stream.
- ``reveal-retired`` (``ledger.cli.reveal_retired``) reveals, on the configured store, every
  shoe a table retired without a reveal (a cut for the deal before 7ce9108).

``ledger.cli.store`` opens the ledger on the store for a command, and says in one line why it
cannot.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from ledger.cli import open_pools, reveal_retired, simulate


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ledger", description="Twenty-One Ledger tools."
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    simulate.add_parser(commands)
    # The commands that take no arguments: their help here, their work in their modules.
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
    return parser


def main(
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    if args.command == "simulate":
        return simulate.simulate(args, args.subparser, stdout, stderr)
    if args.command == "open-pools":
        return open_pools.open_pools(stdout, stderr)
    if args.command == "reveal-retired":
        return reveal_retired.reveal_retired(stdout, stderr)
    parser.print_help(stderr)
    return 2
