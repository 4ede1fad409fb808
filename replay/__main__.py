"""``python -m replay <command>``: replay and verification tools over the stored events.

    python -m replay verify [--table ID | --all] [--expect-head POSITION:DIGEST] [--json]
    python -m replay round ID [--at N] [--json]
    python -m replay table ID --at 2025-01-31T12:00:00Z [--json]
    python -m replay rederive ID [--json]

``--json`` may come before the command as well (``python -m replay --json verify``), for every
command, ``export``/``import`` and the projection commands included.

The store is the ledger's own (``LEDGER_STORE``, ``LEDGER_SQLITE_PATH``, ``POSTGRES_*``; see
``ledger.config``). Nothing here writes to the ledger, and a SQLite path that is not there is
refused (only ``import`` may make a new store). Exit status: 0 all well, 1 a fault or a
difference was found (verify, rederive), the thing asked for does not exist, or the stored
events it needs are damaged (one line naming the event) or the SQLite file is (one line naming
the file), 2 bad usage (a bad store setting included, a file that is not SQLite too), 141 the
reader of stdout went away (as a program SIGPIPE ends: nothing said about the store).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import json
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from eventsourcing.persistence import PersistenceError

from ledger.config import describe, store_env, store_error_line
from replay import rederive as rederive_mod
from replay import timetravel
from replay import verify as verify_mod
from replay.damage import LIBRARY_ERRORS, StoreDamaged, explain
from replay.json_option import add_top_level, json_parent, wants_json
from replay.store import ledger
from replay.store_file import DATABASE_ERRORS, unreadable_file
from replay.verify_head import parse_head

# Commands other modules of replay/ contribute, each through ``register(subparsers)``; they are
# registered only when the module exists. ``register`` adds its subparser(s) and sets
# ``func=callable(args, env) -> int`` on them with ``parser.set_defaults``.
OPTIONAL_COMMANDS = ("replay.export", "replay.projections.cli")  # export, import; project, …


def _emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    if wants_json(args):
        print(json.dumps(data, indent=2, sort_keys=True, default=str))
    else:
        print(text)


def _fail(args: argparse.Namespace, message: str, code: int = 1) -> int:
    if wants_json(args):
        print(json.dumps({"error": message}))
    else:
        print(f"error: {message}", file=sys.stderr)
    return code


def cmd_verify(args: argparse.Namespace, env: Mapping[str, str] | None) -> int:
    try:
        expect = None if args.expect_head is None else parse_head(args.expect_head)
    except ValueError as error:
        return _fail(args, f"--expect-head: {error}", 2)
    with ledger(env) as app:
        try:
            report = verify_mod.verify(app, table=args.table, expect_head=expect)
        except verify_mod.NotATable as error:
            return _fail(args, str(error))
    _emit(args, report.to_dict(), report.text())
    return 0 if report.ok else 1


def cmd_round(args: argparse.Namespace, env: Mapping[str, str] | None) -> int:
    with ledger(env) as app:
        try:
            state = timetravel.round_at(app, args.id, args.at)
        except timetravel.BadRequest as error:
            return _fail(args, str(error), 2)
        except timetravel.NotFound as error:
            return _fail(args, str(error))
    _emit(args, state, timetravel.round_text(state))
    # A shoe committed or cut after the round's first card from it is a FAULT, as verify's.
    late = any(s["committed_before_deal"]["ok"] is False for s in state.get("shoes", []))
    return 1 if late else 0


def cmd_table(args: argparse.Namespace, env: Mapping[str, str] | None) -> int:
    try:
        moment = timetravel.parse_time(args.at)
    except ValueError as error:  # no time, or one UTC cannot hold (the year 10000)
        return _fail(args, f"--at {error}", 2)
    with ledger(env) as app:
        try:
            state = timetravel.table_at(app, args.id, moment)
        except timetravel.NotFound as error:
            return _fail(args, str(error))
    _emit(args, state, timetravel.table_text(state))
    return 0


def cmd_audit(args: argparse.Namespace, env: Mapping[str, str] | None) -> int:
    """The audit of a disputed round as the HTTP API gives it to an auditor, read only, with
    no server and no key: JSON always (it is a document, not a report); exit 1 when one of
    its checks fails."""
    from ledger.errors import UnknownRound
    from replay.audit import audit_round

    with ledger(env) as app:
        try:
            audit = audit_round(app, args.id)
        except UnknownRound as error:
            return _fail(args, str(error))
    print(json.dumps(audit, indent=2, sort_keys=True, default=str))
    checks = [audit["chain"], audit["money_reconciles"], audit["committed_before_deal"]]
    checks.append(audit["table_record"])  # the round's end as its table recorded it
    checks.append(audit["divided_settlements"])  # ok null (no division) is no failure
    checks.append(audit["rederived"])  # ok null (a round in play) is no failure
    checks += [shoe["check"] for shoe in audit["shoes"]]
    return 1 if any(check.get("ok") is False for check in checks) else 0


def cmd_rederive(args: argparse.Namespace, env: Mapping[str, str] | None) -> int:
    with ledger(env) as app:
        try:
            result = rederive_mod.rederive_round(app, args.id)
        except rederive_mod.NotARound as error:
            return _fail(args, str(error))
    _emit(args, result.to_dict(), result.text())
    return 0 if result.matches else 1


def build_parser() -> argparse.ArgumentParser:
    common = json_parent()
    parser = argparse.ArgumentParser(
        prog="python -m replay", description="Replay and verify the ledger's stored events."
    )
    add_top_level(parser)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = subparsers.add_parser(
        "verify",
        parents=[common],
        help="check hash chains, shoes, every card and the money; exit 1 naming the first fault",
    )
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--table", metavar="ID", help="report on one table's streams only")
    scope.add_argument("--all", action="store_true", help="every stream (the default)")
    p.add_argument(
        "--expect-head",
        metavar="POSITION:DIGEST",
        help="a checkpoint kept from an earlier run (its 'log head'): fail unless the log "
        "still reaches that position and every event up to it is unchanged",
    )
    p.set_defaults(func=cmd_verify)

    p = subparsers.add_parser(
        "round", parents=[common], help="a round's state after its N-th event (default: now)"
    )
    p.add_argument("id", metavar="ID")
    p.add_argument("--at", type=int, metavar="N", help="the event number (version)")
    p.set_defaults(func=cmd_round)

    p = subparsers.add_parser("table", parents=[common], help="a table as it stood at a moment")
    p.add_argument("id", metavar="ID")
    p.add_argument("--at", required=True, metavar="TIME", help="ISO 8601, UTC")
    p.set_defaults(func=cmd_table)

    p = subparsers.add_parser(
        "audit",
        parents=[common],
        help="the audit of a disputed round, as JSON (as GET /v1/rounds/{id}/audit gives it)",
    )
    p.add_argument("id", metavar="ID")
    p.set_defaults(func=cmd_audit)

    p = subparsers.add_parser(
        "rederive",
        parents=[common],
        help="replay a round through today's rules and diff the settlement",
    )
    p.add_argument("id", metavar="ID")
    p.set_defaults(func=cmd_rederive)

    # --- export / import: registered by replay/export.py when it exists ---------------------
    for name in OPTIONAL_COMMANDS:
        if importlib.util.find_spec(name) is not None:
            module = importlib.import_module(name)
            register: Callable[[Any], None] | None = getattr(module, "register", None)
            if register is not None:
                register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """Run a command; ``env`` (an eventsourcing environment) overrides the process's."""
    args = build_parser().parse_args(argv)
    func = args.func
    try:
        takes_env = len(inspect.signature(func).parameters) >= 2
    except (TypeError, ValueError):
        takes_env = True
    from replay.importer import BadSource, check_source
    from replay.projections import ProjectionSuperseded

    if args.command == "import":
        try:  # before the store is opened (and, for a new one, made)
            check_source(args.file)
        except BadSource as error:
            return _fail(args, str(error), 2)
    if args.command == "export" and args.output is not None:
        from replay.export import BadTarget, check_target

        try:  # before a line is read, and before anything is written beside it
            check_target(args.output)
        except BadTarget as error:
            return _fail(args, str(error), 2)
    if env is None:
        try:  # every command reads an existing store; only import may make a new one
            env = store_env(create=args.command == "import")
        except ValueError as error:  # LEDGER_STORE, LEDGER_SQLITE_PATH, POSTGRES_* …
            return _fail(args, str(error), 2)
    try:
        code = func(args, env) if takes_env else func(args)
        sys.stdout.flush()  # here, not at exit, so that a reader gone is met below
    except BrokenPipeError:
        return _reader_gone()
    except ProjectionSuperseded as error:
        print(f"replay {args.command}: {error}", file=sys.stderr)
        return 3
    except BadSource as error:
        return _fail(args, str(error), 2)
    except (StoreDamaged, *LIBRARY_ERRORS) as error:
        damaged = explain(error)
        return _damaged(args, damaged.as_dict(), f"replay {args.command}: {damaged}", 1)
    except DATABASE_ERRORS as error:
        unreadable = unreadable_file(error, env)
        if unreadable is None:
            if not isinstance(error, PersistenceError):
                raise
            # The store cannot be reached or refused the read (a server down, a schema not
            # there): one line naming it, as the ledger's commands say it.
            where = f"{describe(env)}: {store_error_line(error)}"
            return _damaged(args, {"error": where}, f"replay {args.command}: {where}", 1)
        text = f"replay {args.command}: {unreadable}"
        return _damaged(args, unreadable.as_dict(), text, unreadable.exit_code)
    return int(code or 0)


def _damaged(args: argparse.Namespace, data: dict[str, Any], text: str, code: int) -> int:
    """Report a damaged store in one line: JSON on stdout with ``--json``, but on stderr when
    stdout carries the command's own data (``export`` without ``-o``, which cuts a file it
    was redirected to back to what it held before: the error must not land in it)."""
    try:
        if not wants_json(args):
            print(text, file=sys.stderr)
        elif args.command == "export" and getattr(args, "output", None) is None:
            print(json.dumps(data), file=sys.stderr)
        else:
            print(json.dumps(data))
            sys.stdout.flush()
    except BrokenPipeError:
        return _reader_gone()
    return code


def _reader_gone() -> int:
    """The reader of stdout went away before it was all written (``export | head -c 10``;
    not ``verify | head -1``, whose report the pipe takes whole): end quietly, as a program that
    SIGPIPE ends does, with its exit status, 128 + SIGPIPE (141), which says nothing about the
    store. stdout is pointed at /dev/null so that the interpreter's flush at exit cannot meet
    the closed pipe again and print a traceback."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # not a real file descriptor (a test's captured stdout)
        pass
    finally:
        os.close(devnull)
    return 128 + signal.SIGPIPE


if __name__ == "__main__":
    sys.exit(main())
