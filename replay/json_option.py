"""``--json`` for every ``python -m replay`` command, before or after its name.

``python -m replay --json verify`` and ``python -m replay verify --json`` mean the same. The
top-level parser owns the option (default off); each subcommand takes it again through
:func:`json_parent`, whose default is *suppressed*: argparse copies every attribute a
subparser sets over the top-level namespace, so a subcommand that set ``json=False`` by
default would undo a ``--json`` given before its name.
"""

from __future__ import annotations

import argparse
from typing import Any

HELP = "machine-readable output: one JSON document on stdout"


def json_parent(help: str = HELP) -> argparse.ArgumentParser:
    """A parent parser (``parents=[json_parent()]``) adding ``--json`` to a subcommand."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help=help)
    return parent


def add_top_level(parser: argparse.ArgumentParser) -> None:
    """``--json`` before the command's name."""
    parser.add_argument("--json", action="store_true", help=HELP + " (also after the command)")


def wants_json(args: Any) -> bool:
    """Whether ``--json`` was given, in either place (False when neither parser defined it)."""
    return bool(getattr(args, "json", False))
