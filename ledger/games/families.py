"""Where the families differ, the round asks its family's book (``ledger.games.<family>``),
which cites the clause that decides. What a book provides is written down in
``ledger.games.book``."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import cast

from ledger.games.book import Book
from ledger.games.play import Play

BOOK_MODULES = {
    "vingt-un": "vingt_un",
    "hoyle-1913": "hoyle",
    "ochko": "ochko",
    "casino": "casino",
}


@cache
def book_of(family: str) -> Book:
    # Imported on first use: the books import the modules of play that ask for them, so
    # loading them here at import time would make ``import ledger.games.private`` circular.
    return cast(Book, import_module(f"ledger.games.{BOOK_MODULES[family]}"))


def book(play: Play) -> Book:
    return book_of(play.family)
