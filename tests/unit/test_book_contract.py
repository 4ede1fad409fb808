"""Every family's book keeps the contract of ``ledger.games.book``: a hook renamed, dropped or
given other arguments fails here, not as a quiet rule refusal in play."""

from __future__ import annotations

import inspect
import re
import typing
from pathlib import Path

import pytest

from ledger.games import families
from ledger.games.book import CAPABILITIES, Book

LEDGER = Path(__file__).resolve().parents[2] / "ledger"
FAMILIES = sorted(families.BOOK_MODULES)


def own_constants(protocol: type) -> dict[str, type]:
    """The constants ``protocol`` itself declares (not those of the protocols it extends)."""
    hints = typing.get_type_hints(protocol)
    return {name: hints[name] for name in vars(protocol).get("__annotations__", {})}


def own_hooks(protocol: type) -> dict[str, typing.Callable]:
    return {
        name: member
        for name, member in vars(protocol).items()
        if inspect.isfunction(member) and not name.startswith("_")
    }


def arguments(function: typing.Callable) -> list[str]:
    return list(inspect.signature(function).parameters)


def contract_names() -> set[str]:
    names: set[str] = set()
    for protocol in (Book, *CAPABILITIES.values()):
        names |= set(own_constants(protocol)) | set(own_hooks(protocol))
    return names


def keeps(book: typing.Any, protocol: type) -> list[str]:
    """What ``book`` lacks or has of the wrong kind among ``protocol``'s own members."""
    faults = []
    for name, kind in own_constants(protocol).items():
        value = getattr(book, name, None)
        if not isinstance(value, kind) or callable(value):
            faults.append(f"{name} is {value!r}, not a constant of type {kind.__name__}")
    for name, hook in own_hooks(protocol).items():
        function = getattr(book, name, None)
        if not callable(function):
            faults.append(f"{name} is {function!r}, not a function")
        elif arguments(function) != arguments(hook)[1:]:  # a module's function has no self
            faults.append(f"{name} takes {arguments(function)}, not {arguments(hook)[1:]}")
    return faults


def has_any(book: typing.Any, protocol: type) -> list[str]:
    return [n for n in (*own_constants(protocol), *own_hooks(protocol)) if hasattr(book, n)]


def test_the_contract_lists_hooks_and_constants():
    assert "settle" in own_hooks(Book) and own_constants(Book)["STAKE_CLAUSE"] is str
    assert set(CAPABILITIES) <= set(own_constants(Book)), "each capability is a flag of Book"


@pytest.mark.parametrize("family", FAMILIES)
def test_every_book_supplies_every_hook_and_constant_of_the_contract(family):
    assert keeps(families.book_of(family), Book) == []


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("flag", sorted(CAPABILITIES))
def test_a_capability_flag_is_true_exactly_where_the_book_has_its_hooks(family, flag):
    book, protocol = families.book_of(family), CAPABILITIES[flag]
    if getattr(book, flag):
        assert keeps(book, protocol) == [], f"{family} sets {flag}"
    else:
        assert has_any(book, protocol) == [], f"{family} has these, yet {flag} is False"


def test_some_book_has_each_capability_and_some_book_lacks_it():
    for flag in CAPABILITIES:
        flags = {getattr(families.book_of(family), flag) for family in FAMILIES}
        assert flags == {True, False}, flag


def test_the_flow_asks_a_book_only_for_what_the_contract_names_and_for_all_of_it():
    asked_for = re.compile(r"(?:\bfam|families\.book\(\w+\)|book_of\([^()]*\))\.([A-Za-z_]\w*)")
    asked: set[str] = set()
    for source in LEDGER.rglob("*.py"):
        asked |= set(asked_for.findall(source.read_text(encoding="utf-8")))
    assert asked - contract_names() == set(), "asked of a book, yet not in ledger/games/book.py"
    assert contract_names() - asked == set(), "in ledger/games/book.py, yet never asked for"
