"""Where the ledger keeps its events, chosen from the environment.

The ledger has its own small set of variables (``LEDGER_STORE``, ``LEDGER_SQLITE_PATH``,
``LEDGER_ALLOW_FIXED_SHOES``) and passes PostgreSQL's through; :func:`store_env` turns them
into the environment ``eventsourcing`` reads (``PERSISTENCE_MODULE``, ``SQLITE_DBNAME``,
``POSTGRES_*``). The result is a plain dict meant for ``Application(env=...)``, so tests and
the API never have to touch ``os.environ``. Each variable is read through the typed helpers
of ``ledger.settings``.

Standard library only: this module sits inside ``ledger/`` and imports no Flask or psycopg.
"""

import importlib
import os
from collections.abc import Mapping
from pathlib import Path

from ledger.settings import SettingError, blank, env_bool, env_int, env_str

STORES: dict[str, str] = {
    "memory": "ledger.memory_store",
    "sqlite": "eventsourcing.sqlite",
    "postgres": "ledger.adapters.postgres_store",
}
# Modules an env may name for the same stores (eventsourcing's own, as a hand-written env has).
_ALIASES = {"eventsourcing.postgres": "postgres", "eventsourcing.popo": "memory"}
DEFAULT_STORE = "sqlite"
DEFAULT_SQLITE_PATH = "./var/ledger.sqlite3"

POSTGRES_DEFAULTS: dict[str, str] = {
    "POSTGRES_DBNAME": "test",
    "POSTGRES_HOST": "127.0.0.1",
    "POSTGRES_PORT": "5432",
    "POSTGRES_USER": "postgres",
    "POSTGRES_PASSWORD": "",
}
# Passed through only when set, so eventsourcing's own defaults apply otherwise.
POSTGRES_OPTIONAL = (
    "POSTGRES_SCHEMA",
    "POSTGRES_POOL_SIZE",
    "POSTGRES_MAX_OVERFLOW",
    "POSTGRES_CONNECT_TIMEOUT",
    "POSTGRES_LOCK_TIMEOUT",
)
# The numbers among them, with their bounds (a port; connections; seconds).
_POSTGRES_NUMBERS: dict[str, tuple[int, int | None]] = {
    "POSTGRES_PORT": (1, 65535),
    "POSTGRES_POOL_SIZE": (0, None),
    "POSTGRES_MAX_OVERFLOW": (0, None),
    "POSTGRES_CONNECT_TIMEOUT": (0, None),
    "POSTGRES_LOCK_TIMEOUT": (0, None),
}
DEFAULT_CACHE_SIZE = 2000

SQLITE_HEADER = b"SQLite format 3\x00"


class StoreSettingError(SettingError):
    """A store setting that cannot work (an unknown ``LEDGER_STORE``, a SQLite path that is
    a directory, not a database, or, for a tool that only reads, not there): the command
    says so in one line and exits 2 instead of failing deep inside the store."""


def _store_kind(kind: str | None, environ: Mapping[str, str]) -> str:
    chosen = kind if kind is not None else env_str("LEDGER_STORE", DEFAULT_STORE, environ)
    normalised = chosen.strip().lower() or DEFAULT_STORE
    if normalised not in STORES:
        allowed = ", ".join(STORES)
        raise StoreSettingError(f"LEDGER_STORE must be one of {allowed}; got {chosen!r}")
    return normalised


def _is_sqlite_memory(path: str) -> bool:
    return path == ":memory:" or path.startswith("file:")


def check_sqlite_path(path: str, *, create: bool = True, name: str = "LEDGER_SQLITE_PATH") -> None:
    """Refuse, with :class:`StoreSettingError`, a SQLite path that cannot be the ledger's
    database: a directory (SQLite would retry it for most of a minute), a file that is not a
    SQLite database, or, when ``create`` is false (the replay tools, which only read), a file
    that is not there: a mistyped path must not silently become a new, empty ledger."""
    if _is_sqlite_memory(path):
        return
    where = Path(path)
    if where.is_dir():
        raise StoreSettingError(f"{name} {path!r} is a directory, not a database")
    if where.exists():
        try:
            with where.open("rb") as file:
                header = file.read(len(SQLITE_HEADER))
        except OSError as error:
            raise StoreSettingError(f"{name} {path!r} cannot be read: {error.strerror}") from None
        if header and header != SQLITE_HEADER:  # an empty file is an empty database
            raise StoreSettingError(f"{name} {path!r} is not a SQLite database")
    elif not create:
        raise StoreSettingError(
            f"{name} {path!r} does not exist (this command works on an existing ledger and "
            "makes none; check the path)"
        )


def store_env(
    kind: str | None = None,
    *,
    sqlite_path: str | None = None,
    environ: Mapping[str, str] | None = None,
    create: bool = True,
    path_name: str = "LEDGER_SQLITE_PATH",
) -> dict[str, str]:
    """The eventsourcing environment for a store.

    ``kind`` overrides ``LEDGER_STORE``; ``environ`` defaults to ``os.environ``. For SQLite the
    database file's directory is created, so a fresh checkout runs without a setup step;
    with ``create=False`` (tools that only read) a missing database is refused instead;
    ``path_name`` is what a refusal calls the path (a command's flag, when it came from one). A bad
    setting raises :class:`StoreSettingError` (see :func:`check_sqlite_path`).
    """
    source = os.environ if environ is None else environ
    store = _store_kind(kind, source)
    env = {"PERSISTENCE_MODULE": STORES[store]}
    _library_settings(source, env)  # checked before anything is made

    if store == "sqlite":
        path = sqlite_path or env_str("LEDGER_SQLITE_PATH", "", source) or DEFAULT_SQLITE_PATH
        check_sqlite_path(path, create=create, name=path_name)
        if create and not _is_sqlite_memory(path):
            try:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise StoreSettingError(
                    f"{path_name} {path!r}: its directory cannot be made ({error.strerror})"
                ) from None
        env["SQLITE_DBNAME"] = path
    elif store == "postgres":
        for name, default in POSTGRES_DEFAULTS.items():
            env[name] = env_str(name, default, source)
        # Taken as it is (spaces may be part of a password); its default is empty anyway.
        env["POSTGRES_PASSWORD"] = source.get("POSTGRES_PASSWORD") or ""
        for name in POSTGRES_OPTIONAL:
            value = source.get(name)
            if not blank(value):
                env[name] = value.strip()  # type: ignore[union-attr]
        for name, (low, high) in _POSTGRES_NUMBERS.items():
            if name in env:  # fail here, naming the variable, not deep in a pool
                env_int(name, 0, env, minimum=low, maximum=high)

    allow = env_bool("LEDGER_ALLOW_FIXED_SHOES", False, source)
    env["LEDGER_ALLOW_FIXED_SHOES"] = "true" if allow else "false"
    return env


def _library_settings(source: Mapping[str, str], env: dict[str, str]) -> None:
    """eventsourcing's own variables, which the library reads from the environment itself:
    checked here, so that a bad one is one line naming it rather than a traceback from deep
    in the library, and written into ``env``, so that an empty one means its default there
    too (the library took an empty cache size for "no cache")."""
    size = env_int("AGGREGATE_CACHE_MAXSIZE", DEFAULT_CACHE_SIZE, source, minimum=1)
    env["AGGREGATE_CACHE_MAXSIZE"] = str(size)
    if not blank(source.get("CREATE_TABLE")):
        env["CREATE_TABLE"] = "true" if env_bool("CREATE_TABLE", True, source) else "false"
    topic = (source.get("TRANSCODER_TOPIC") or "").strip()
    if topic:
        _importable("TRANSCODER_TOPIC", topic)
        env["TRANSCODER_TOPIC"] = topic


def _importable(name: str, topic: str) -> None:
    """Refuse a ``module:Class`` topic that names nothing importable."""
    module, _, attribute = topic.partition(":")
    try:
        found: object = importlib.import_module(module)
        for part in filter(None, attribute.split(".")):
            found = getattr(found, part)
    except (ImportError, AttributeError, ValueError) as error:
        raise SettingError(
            f"{name} must name a class as module:Class; {topic!r} names nothing ({error})"
        ) from None
    if not attribute or not isinstance(found, type):
        raise SettingError(f"{name} must name a class as module:Class; got {topic!r}")


def store_kind(env: Mapping[str, str]) -> str:
    """Which store (``memory``, ``sqlite``, ``postgres``) an eventsourcing env selects."""
    module = env.get("PERSISTENCE_MODULE", STORES["memory"])
    for kind, candidate in STORES.items():
        if candidate == module:
            return kind
    return _ALIASES.get(module, module)


def store_error_line(error: BaseException) -> str:
    """A store's error in one line, to follow ``describe``. PostgreSQL's words come in several
    (a full disk's "HINT:  Check free disk space.", the server code's "CONTEXT: …", a refused
    connection's "Is the server running …?"): its message is kept with its detail and hint,
    and any other text's lines are joined."""
    diag = getattr(error.__cause__, "diag", None)  # the psycopg error eventsourcing wraps
    text = getattr(diag, "message_primary", None)
    if text:
        notes = [
            f"{label}: {note}"
            for label, note in (("DETAIL", diag.message_detail), ("HINT", diag.message_hint))
            if note
        ]
        text += f" ({'; '.join(notes)})" if notes else ""
    else:
        text = str(error)
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def describe(env: Mapping[str, str]) -> str:
    """One line naming the store, for start-up banners and logs (never the password)."""
    kind = store_kind(env)
    if kind == "sqlite":
        return f"SQLite {env.get('SQLITE_DBNAME', '?')}"
    if kind == "postgres":
        where = (
            f"{env.get('POSTGRES_USER', '?')}@{env.get('POSTGRES_HOST', '?')}:"
            f"{env.get('POSTGRES_PORT', '5432')}/{env.get('POSTGRES_DBNAME', '?')}"
        )
        schema = env.get("POSTGRES_SCHEMA")
        return f"PostgreSQL {where}" + (f" (schema {schema})" if schema else "")
    return kind


def sibling_store_env(env: Mapping[str, str], name: str) -> dict[str, str]:
    """The store of an application that lives beside the ledger (the shoe vault, the API's
    keys): the same settings, but never the ledger's SQLite table. The SQLite recorder names
    no table after its application, so on SQLite the sibling gets a file of its own
    (``<path>.<name>``, or its own shared-memory database); PostgreSQL prefixes tables with
    the application's name already."""
    import secrets

    out = {k: v for k, v in env.items() if isinstance(v, str)}
    dbname = env.get("SQLITE_DBNAME")
    if dbname and "sqlite" in env.get("PERSISTENCE_MODULE", ""):
        if dbname.startswith(":memory:") or "mode=memory" in dbname:
            out["SQLITE_DBNAME"] = f"file:{name}-{secrets.token_hex(8)}?mode=memory&cache=shared"
        else:
            out["SQLITE_DBNAME"] = f"{dbname}.{name}"
    return out
