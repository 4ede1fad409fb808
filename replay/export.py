"""The export: the ledger's public interchange format, one JSON object per line, in global
order (see README.md, section "Export and import: the interchange format"). Reads the
notification log only; never writes.

``python -m replay export [--table ID] > file.jsonl`` and ``python -m replay import FILE``
are added to the replay CLI by :func:`register`.
"""

from __future__ import annotations

import argparse
import io
import os
import stat
import sys
import tempfile
from collections.abc import Iterator, Mapping
from typing import IO, Any
from uuid import UUID

from ledger import accounts
from ledger.domain.chain import canonical
from replay.checked_reads import Versions
from replay.damage import decode
from replay.event_schemas import ENVELOPE_FIELDS, SCHEMA_VERSION, event_topics
from replay.json_option import json_parent, wants_json
from replay.store import not_a, notifications, stream_kind

ROUND_STARTED = event_topics()["Round.Started"]
SHOE_COMMITTED = event_topics()["Shoe.Committed"]
WALLET_TRANSFER = event_topics()["Player.FundsTransferred"]


def line_object(notification: Any, event: Any) -> dict[str, Any]:
    fields = vars(event)
    return {
        "stream": str(notification.originator_id),
        "version": notification.originator_version,
        "position": notification.id,
        "type": type(event).__qualname__,
        "topic": notification.topic,
        "schema_version": SCHEMA_VERSION,
        # Exactly the text the event's hash covers (chain.canonical encodes times so).
        "time": event.timestamp.isoformat(),
        "prev_hash": fields["prev_hash"],
        "hash": fields["hash"],
        "data": {k: v for k, v in fields.items() if k not in ENVELOPE_FIELDS},
    }


def encode_line(obj: dict[str, Any]) -> bytes:
    """Sorted keys, compact, UTF-8, UUIDs as text: the bytes chain.canonical writes."""
    return canonical(obj) + b"\n"


def table_members(app: Any, table_id: UUID) -> tuple[set[UUID], set[str]]:
    """The streams a table export includes whole (the table, its rounds, its shoes) and the
    accounts that make a wallet transfer part of it (its rounds' escrows, its pool, house,
    deal-sale and pool-payout accounts)."""
    streams = {table_id}
    round_ids: set[str] = set()
    for n in notifications(app, topics=(ROUND_STARTED, SHOE_COMMITTED)):
        event = decode(app, n)
        if event.table_id == table_id:
            streams.add(n.originator_id)
            if n.topic == ROUND_STARTED:
                round_ids.add(str(n.originator_id))
    return streams, round_ids


def export_lines(app: Any, table: str | UUID | None = None) -> Iterator[bytes]:
    """Every event (or one table's, see README.md § "What `export --table ID` contains") as
    export lines, in global order. Raises ``StoreDamaged`` at an event that cannot be decoded
    or that follows a gap in its stream (of any stream: the pass reads the whole log, and an
    export with a hole would import as a different history, or not at all)."""
    versions = Versions()
    if table is None:
        for n in notifications(app):
            versions.check(n)
            yield encode_line(line_object(n, decode(app, n)))
        return
    table_id = UUID(str(table))
    streams, round_ids = table_members(app, table_id)
    table_accounts = {accounts.pool(table_id), accounts.house(table_id)}
    table_accounts |= {accounts.deal_sale(table_id), accounts.pool_payout(table_id)}
    for n in notifications(app):
        versions.check(n)
        if n.originator_id in streams:
            yield encode_line(line_object(n, decode(app, n)))
        elif n.topic == WALLET_TRANSFER:
            event = decode(app, n)
            if (
                event.round_id in round_ids
                or event.from_account in table_accounts
                or event.to_account in table_accounts
            ):
                yield encode_line(line_object(n, event))


def export_to(app: Any, out: IO[bytes], table: str | UUID | None = None) -> int:
    count = 0
    for line in export_lines(app, table):
        out.write(line)
        count += 1
    return count


class BadTarget(ValueError):
    """An ``-o`` path an export cannot be written to: refused before the store is read."""


def check_target(path: str) -> None:
    """Raise :class:`BadTarget` unless ``path`` can become the export's file: not a
    directory, and in a directory that is there and can be written to."""
    target = os.path.abspath(path)
    if os.path.isdir(target):
        raise BadTarget(f"-o {path} is a directory; give the name of the .jsonl file to write")
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise BadTarget(f"-o {path}: the directory {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise BadTarget(f"-o {path}: the directory {folder} cannot be written to")


def export_file(app: Any, path: str, table: str | UUID | None = None) -> int:
    """Export into ``path`` whole or not at all: written beside it under a temporary name and
    moved into place once the last line is written, so a refused export leaves no file (and
    an older file of that name as it was)."""
    target = os.path.abspath(path)
    fd, part = tempfile.mkstemp(
        dir=os.path.dirname(target), prefix=f".{os.path.basename(target)}.", suffix=".part"
    )
    try:
        with os.fdopen(fd, "wb") as out:
            count = export_to(app, out, table)
        os.replace(part, target)
    except BaseException:
        os.unlink(part)
        raise
    return count


def export_stream(app: Any, out: IO[bytes], table: str | UUID | None = None) -> int:
    """Export to ``out`` (stdout); when it is a regular file (``export > ledger.jsonl``) an
    export that does not finish cuts it back to what it held before, so no partial export is
    left looking whole. A pipe cannot take back what it passed on: exit status 1 says so."""
    size = _regular_size(out)
    try:
        count = export_to(app, out, table)
        out.flush()
    except BaseException:
        if size is not None:
            out.flush()
            os.ftruncate(out.fileno(), size)
            # Back to the new end: left at the old offset, whatever is written next (an error
            # printed to stdout) would land past a hole of NUL bytes.
            out.seek(size)
        raise
    return count


def _regular_size(out: IO[bytes]) -> int | None:
    """The size of ``out`` when it is a regular file (not a pipe or terminal), else None. The
    size, not the offset: under ``>>`` the offset starts at 0 while writes go to the end."""
    try:
        info = os.fstat(out.fileno())
    except (AttributeError, OSError, io.UnsupportedOperation):
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None


# -- the CLI ----------------------------------------------------------------------------------


def _open_app(env: Mapping[str, str] | None) -> Any:
    from ledger.application import TwentyOneLedger
    from ledger.config import store_env

    return TwentyOneLedger(env=dict(env) if env is not None else store_env())


def _export_command(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    app = _open_app(env)
    try:
        if args.table is not None:
            try:
                table_id = UUID(args.table)
            except ValueError:
                print(f"export: {args.table!r} is not a table id", file=sys.stderr)
                return 1
            kind = stream_kind(app, table_id)
            if kind != "Table":
                print(f"export: {not_a(kind, table_id, 'table')}", file=sys.stderr)
                return 1
        if args.output is not None:
            export_file(app, args.output, args.table)
        else:
            export_stream(app, sys.stdout.buffer, args.table)
    finally:
        app.close()
    return 0


def _import_command(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> int:
    import json

    from replay.import_checks import ImportRefused
    from replay.importer import import_file

    app = _open_app(env)
    try:
        summary = import_file(app, args.file, renumber=args.renumber)
    except ImportRefused as refused:
        if wants_json(args):
            print(json.dumps({"ok": False, **refused.as_dict()}))
        else:
            print(f"import refused: {refused}", file=sys.stderr)
        return 1
    finally:
        app.close()
    if wants_json(args):
        print(json.dumps({"ok": True, **summary}))
    else:
        print(
            f"imported {summary['events']} events in {summary['streams']} streams "
            f"(positions {summary['first_position']}..{summary['last_position']})"
        )
    return 0


def register(subparsers: Any) -> None:
    """Add ``export`` and ``import`` to the replay CLI. Each sets ``func(args, env=None) ->
    exit code``; with no ``env`` it opens the store the environment names (LEDGER_STORE,
    LEDGER_SQLITE_PATH, POSTGRES_*)."""
    export = subparsers.add_parser(
        "export",
        parents=[json_parent("accepted like every command's; the export is JSON lines already")],
        help="write events as JSON lines to stdout",
        description="Every event (or one table's) as one JSON object per line, in global "
        'order (format: README.md, section "Export and import"; schemas: schemas/events/).',
    )
    export.add_argument("--table", metavar="ID", help="only this table's events")
    export.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write FILE (only once the export is whole) instead of stdout",
    )
    export.set_defaults(func=_export_command)

    imp = subparsers.add_parser(
        "import",
        parents=[json_parent("the summary as one JSON document")],
        help="load an export into an empty store",
        description="Validate every line of an export (JSON Schema, hashes, chains) and "
        "write its events into an EMPTY store, keeping streams, versions and order.",
    )
    imp.add_argument("file", help="the .jsonl file written by export ('-' for stdin)")
    imp.add_argument(
        "--renumber",
        action="store_true",
        help="accept new positions when the export's have gaps the store cannot keep "
        "(SQLite and memory number events 1, 2, 3 …; PostgreSQL keeps any gaps)",
    )
    imp.set_defaults(func=_import_command)
