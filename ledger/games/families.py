"""Where the families differ, the round asks its family's book (``ledger.games.<family>``),
which cites the clause that decides."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from types import ModuleType

from ledger.games.play import Play

BOOK_MODULES = {
    "vingt-un": "vingt_un",
    "hoyle-1913": "hoyle",
    "ochko": "ochko",
    "casino": "casino",
}


@cache
def book_of(family: str) -> ModuleType:
    # Imported on first use: the books import the modules of play that ask for them, so
    # loading them here at import time would make ``import ledger.games.private`` circular.
    return import_module(f"ledger.games.{BOOK_MODULES[family]}")


def book(play: Play) -> ModuleType:
    return book_of(play.family)
