"""The ledger on a store, for one command of ``python -m ledger``: a bad setting, a store that
cannot be opened, or the ledger's refusal is said on stderr in one line naming the command,
and the command exits with its code (``Refused``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from ledger.config import describe, store_env, store_error_line
from ledger.errors import LedgerError


class Refused(Exception):
    """Already reported on stderr: the command exits with ``code``."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


@contextmanager
def open_ledger(command: str, stderr: TextIO, make_env: Callable[[], dict]) -> Iterator[tuple]:
    """The application on the store ``make_env`` names, and that environment; a bad setting,
    a store that cannot be opened or a refusal is reported and raised as ``Refused``."""
    from eventsourcing.persistence import PersistenceError

    from ledger.application import TwentyOneLedger

    name = f"python -m ledger {command}"
    try:
        env = make_env()
    except ValueError as error:  # a malformed POSTGRES_* or LEDGER_* variable
        print(f"{name}: {error}", file=stderr)
        raise Refused(2) from None
    try:
        app = TwentyOneLedger(env=env)
    except PersistenceError as error:
        print(f"{name}: {describe(env)}: {store_error_line(error)}", file=stderr)
        raise Refused(1) from None
    try:
        yield app, env
    except LedgerError as error:
        print(f"{name}: the ledger refused: {error}", file=stderr)
        raise Refused(1) from None
    except PersistenceError as error:
        print(f"{name}: {describe(env)}: {store_error_line(error)}", file=stderr)
        raise Refused(1) from None
    finally:
        app.close()


def open_existing(command: str, stderr: TextIO, environ: Any = None) -> Any:
    """``open_ledger`` on the store the environment names, which must be there already: a
    command that mends a ledger makes none (``store_env(create=False)``)."""
    return open_ledger(command, stderr, lambda: store_env(environ=environ, create=False))
