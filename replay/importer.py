"""Import an export into an EMPTY store: the one place replay/ writes events.

Two passes over the file. The first checks every line before anything is written
(``replay.import_checks``): valid JSON, valid against its type's JSON Schema, its hash
recomputed from its content, its ``prev_hash`` the hash of its stream's previous line, versions
1, 2, 3 … per stream and positions strictly increasing; and it rebuilds each line's domain
event and stored record as the second pass will, so that nothing in the file can fail once
writing has begun. The second rebuilds each event from its topic and ``data`` and writes it
with the application's own mapper and recorder, in the export's order, in one transaction
(``replay.import_store``), so streams, versions, hashes and (where the store allows) positions
are kept, and a failure leaves the store empty. It takes only the lines the first pass
checked: a file changed in between is refused.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import orjson

from replay.event_schemas import data_fields, event_classes, event_topics, is_created
from replay.import_checks import ImportRefused, check_order, parse_line
from replay.import_store import appender, is_postgres

BATCH = 500


def _revive(value: Any, hint: Any) -> Any:
    if hint is UUID:
        return UUID(value)
    if hint is datetime:
        return datetime.fromisoformat(value)
    return value


def domain_event(obj: dict[str, Any]) -> Any:
    """The event object the ledger stored, rebuilt from a checked line (fields in the order
    the ledger's own events hold them). A field ``data`` lacks is left out when its class
    gives it a default, as eventsourcing's mapper leaves it out when it loads an event stored
    before the field existed: the class's default answers for it, and the event is stored
    again as it was, so its hash (which never covered the field) still fits."""
    cls = event_classes()[obj["type"]]
    state: dict[str, Any] = {"timestamp": datetime.fromisoformat(obj["time"])}
    data = obj["data"]
    if is_created(cls):
        state["originator_topic"] = data["originator_topic"]
    state["prev_hash"], state["hash"] = obj["prev_hash"], obj["hash"]
    for name, hint in data_fields(cls).items():
        if name == "originator_topic":
            continue
        if name in data:
            try:
                state[name] = _revive(data[name], hint)
            except ValueError as error:
                raise ImportRefused(str(error), field=f"data.{name}") from None
        elif not hasattr(cls, name):  # the schema requires it: said again for other callers
            raise ImportRefused(f"missing (schema {obj['type']})", field=f"data.{name}")
    state["originator_id"] = UUID(obj["stream"])
    state["originator_version"] = obj["version"]
    event = object.__new__(cls)
    object.__setattr__(event, "__dict__", state)
    return event


def stored_event(app: Any, obj: dict[str, Any], number: int) -> Any:
    """The record the store is given for a checked line; a refusal names the line."""
    try:
        return app.mapper.to_stored_event(domain_event(obj))
    except ImportRefused as refused:
        raise ImportRefused(refused.reason, number, refused.field) from None
    except (TypeError, ValueError) as error:  # what the transcoder cannot encode
        raise ImportRefused(f"cannot be stored: {error}", number) from None


DIGEST = 16  # bytes of a line's digest: the write's proof that it reads what was checked


def _digest(raw: bytes | str) -> bytes:
    data = raw.encode() if isinstance(raw, str) else raw
    return hashlib.blake2b(data, digest_size=DIGEST).digest()


def store_is_empty(app: Any) -> bool:
    return not app.recorder.max_notification_id()


def _lines(source: Callable[[], Iterable[bytes | str]]) -> Iterator[tuple[int, bytes | str]]:
    for number, raw in enumerate(source(), start=1):
        if raw.strip():
            yield number, raw


def check(
    source: Callable[[], Iterable[bytes | str]], app: Any = None, seen: bytearray | None = None
) -> dict[str, Any]:
    """The first pass: every line checked, nothing written. Returns what the file holds.
    With ``app``, each line's event is also rebuilt and mapped as the write will; ``seen``
    collects a digest of each line, for the write to take only what was checked."""
    chains: dict[str, tuple[int, str]] = {}
    last, first, count, contiguous = 0, None, 0, True
    for number, raw in _lines(source):
        obj = parse_line(raw, number)
        if obj["topic"] != event_topics()[obj["type"]]:  # the schema's const, said plainly
            raise ImportRefused("topic does not match type", number, "topic")
        check_order(obj, number, chains, last)
        if app is not None:
            stored_event(app, obj, number)
        if seen is not None:
            seen += _digest(raw)
        contiguous = contiguous and obj["position"] == last + 1
        first = obj["position"] if first is None else first
        last, count = obj["position"], count + 1
    return {
        "events": count,
        "streams": len(chains),
        "first_position": first or 0,
        "last_position": last,
        "contiguous": contiguous,
    }


def write(
    app: Any,
    source: Callable[[], Iterable[bytes | str]],
    checked: bytes | bytearray,
    *,
    keep_positions: bool,
    batch: int = BATCH,
) -> tuple[int, int]:
    """The second pass: rebuild and insert the checked events (``checked``: the first pass's
    digests of the lines, end to end) in order, in one transaction. Returns the first and
    last positions the store gave them (0, 0 for none)."""
    pending: list[tuple[int, Any]] = []  # (exported position, stored event)
    given = [0, 0]  # the first and the last position the store gave
    # The position the store gives the next event it records; on PostgreSQL set before the
    # first one (its sequence may have moved on without a row to show for it).
    next_id = 0 if keep_positions and is_postgres(app) else 1

    def flush() -> None:
        nonlocal next_id
        if not pending:
            return
        ids = out.insert([stored for _, stored in pending])
        if ids:
            given[:] = [given[0] or ids[0], ids[-1]]
        wanted = [position for position, _ in pending]
        if keep_positions and ids and ids != wanted:
            raise ImportRefused(
                f"the store numbered events {ids[0]}..{ids[-1]}, not {wanted[0]}..{wanted[-1]} "
                "(nothing written: import into a new store, or pass --renumber)"
            )
        next_id = (ids[-1] if ids else next_id + len(pending) - 1) + 1
        pending.clear()

    with appender(app) as out:
        count, lines = 0, len(checked) // DIGEST
        for number, raw in _lines(source):
            if count >= lines or _digest(raw) != checked[count * DIGEST : (count + 1) * DIGEST]:
                raise ImportRefused("the file changed since it was checked", number)
            count += 1
            obj = orjson.loads(raw)
            if keep_positions and obj["position"] != next_id + len(pending):
                flush()
                out.next_position(obj["position"])  # only PostgreSQL (import_from checks)
                next_id = obj["position"]
            pending.append((obj["position"], stored_event(app, obj, number)))
            if len(pending) >= batch and not out.whole:
                flush()
        if count != lines:
            raise ImportRefused(
                f"the file changed since it was checked: it holds {count} events, not {lines}"
            )
        flush()
    return given[0], given[1]


def import_from(
    app: Any,
    source: Callable[[], Iterable[bytes | str]],
    *,
    renumber: bool = False,
    batch: int = BATCH,
) -> dict[str, Any]:
    if not store_is_empty(app):
        raise ImportRefused(
            "the store is not empty: import writes only into an empty store "
            f"(it holds events up to position {app.recorder.max_notification_id()})"
        )
    checked = bytearray()
    summary = check(source, app, checked)
    keep = not renumber
    if keep and not summary["contiguous"] and not is_postgres(app):
        raise ImportRefused(
            "the export's positions have gaps and this store numbers events 1, 2, 3 …: "
            "import into PostgreSQL to keep them, or pass --renumber to accept new positions"
        )
    first, last = write(app, source, checked, keep_positions=keep, batch=batch)
    if renumber and first:  # the positions the store gave, not the file's
        contiguous = last - first + 1 == summary["events"]
        summary |= {"first_position": first, "last_position": last, "contiguous": contiguous}
    return summary


def import_lines(app: Any, lines: Sequence[bytes | str], **kwargs: Any) -> dict[str, Any]:
    return import_from(app, lambda: lines, **kwargs)


class BadSource(ImportRefused):
    """The file to import cannot be read at all (not there, a directory, not permitted):
    bad usage (exit 2 from ``python -m replay import``, which looks before it opens the
    store, so nothing is made)."""


def check_source(path: str | Path) -> None:
    """Raise :class:`BadSource` unless ``path`` is ``-`` (stdin) or a file that can be read."""
    if str(path) == "-":
        return
    where = Path(path)
    if where.is_dir():
        raise BadSource(f"{path} is a directory; give the .jsonl file that export wrote")
    if not where.exists():
        raise BadSource(f"no such file {path}")
    try:
        with where.open("rb"):
            pass
    except OSError as error:
        raise BadSource(f"{path} cannot be read: {error.strerror}") from None


def import_file(app: Any, path: str | Path, **kwargs: Any) -> dict[str, Any]:
    if str(path) == "-":
        return import_lines(app, sys.stdin.buffer.readlines(), **kwargs)
    check_source(path)

    def source() -> Iterator[bytes]:
        with open(path, "rb") as handle:
            yield from handle

    try:
        return import_from(app, source, **kwargs)
    except FileNotFoundError:
        raise ImportRefused(f"no such file {path}") from None
