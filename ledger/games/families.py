"""Where the families differ, the round asks its family's book (``ledger.games.<family>``),
which cites the clause that decides."""

from __future__ import annotations

from types import ModuleType

from ledger.games import casino, hoyle, ochko, vingt_un
from ledger.games.play import Play

BOOKS: dict[str, ModuleType] = {
    "vingt-un": vingt_un,
    "hoyle-1913": hoyle,
    "ochko": ochko,
    "casino": casino,
}


def book(play: Play) -> ModuleType:
    return BOOKS[play.family]
