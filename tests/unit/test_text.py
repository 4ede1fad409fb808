"""Text a person typed (ledger/text.py): valid Unicode a UTF-8 encoder can write, one line,
and for a name something visible. The same rules, as patterns, are in the OpenAPI document."""

import re
import unicodedata

import pytest

from ledger.errors import InvalidCommand, InvalidRules
from ledger.rules import rules_for
from ledger.text import (
    INVISIBLE,
    TEXT_PATTERN,
    VISIBLE_TEXT_PATTERN,
    check_text,
    shown,
    text_problem,
)


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("\ud800", "lone surrogate"),
        ("Ann\udfff", "lone surrogate"),
        ("Ann\x00", "control character (U+0000)"),
        ("Ann\nBob", "control character (U+000A)"),
        ("\x9b", "control character (U+009B)"),
        ("Ann\u2028", "line or paragraph separator"),
        ("", "no visible character"),
        ("   ", "no visible character"),
        ("\u200b\u200b", "no visible character"),
        ("\u3164", "no visible character"),  # a Hangul filler
        ("\u00a0\ufeff", "no visible character"),
    ],
)
def test_a_name_that_is_not_one_line_of_visible_text_is_refused(value, says):
    assert says in text_problem(value)
    with pytest.raises(InvalidCommand, match="a player's name"):
        check_text(value, "a player's name", max_length=100)


@pytest.mark.parametrize("value", ["Ann", "Очко", "Zoë 🂡", "李 小龍", "👨‍👩‍👧", " Ann "])
def test_ordinary_names_in_any_script_pass(value):
    assert text_problem(value) is None
    assert check_text(value, "a name", max_length=100) == value


def test_a_seed_need_not_show_anything_but_must_still_be_text():
    assert text_problem("", visible=False) is None
    assert text_problem("  ", visible=False) is None
    assert "lone surrogate" in text_problem("\udc00", visible=False)


def test_check_text_refuses_other_types_and_long_text():
    with pytest.raises(InvalidCommand, match="must be text"):
        check_text(5, "a name", max_length=100)
    with pytest.raises(InvalidCommand, match="at most 3 characters"):
        check_text("Anne", "a name", max_length=3)


def test_the_patterns_agree_with_the_checks():
    """The OpenAPI patterns state exactly what is refused (lone surrogates aside: a JSON
    Schema pattern cannot name them portably, and no JSON text generator makes them)."""
    samples = ["Ann", "", " ", "\u200b", "a\x00", "a\n", "\u2029", "Zoë", "\u3164x", "\x7f"]
    for value in samples:
        assert bool(re.fullmatch(TEXT_PATTERN, value)) == (
            text_problem(value, visible=False) is None
        ), value
        # The visible pattern admits "" (a field's Length says whether "" is allowed).
        assert bool(re.fullmatch(VISIBLE_TEXT_PATTERN, value)) == (
            value == "" or text_problem(value) is None
        ), value


def test_the_invisible_characters_are_the_bmp_spaces_and_format_characters_and_fillers():
    invisible = re.compile(f"[{INVISIBLE}]")
    for code in range(0x10000):
        char = chr(code)
        if 0xD800 <= code <= 0xDFFF:
            continue
        fillers = "\u115f\u1160\u2800\u3164\uffa0"
        expected = unicodedata.category(char) in ("Zs", "Cf") or char in fillers
        assert bool(invisible.match(char)) == expected, f"U+{code:04X}"


def test_shown_writes_lone_surrogates_as_escapes():
    assert shown("Ann") == "Ann"
    assert shown("a\ud800") == "a\\ud800"
    shown("a\ud800").encode("utf-8")


@pytest.mark.parametrize("seed", ["\ud800", "seed\x00", "two\nlines"])
def test_a_client_seed_that_is_not_text_is_refused_naming_the_option(seed):
    with pytest.raises(InvalidRules, match="client_seed") as info:
        rules_for("casino", {"client_seed": seed})
    assert info.value.details["option"] == "client_seed"


def test_an_unknown_option_named_with_a_lone_surrogate_is_refused_printably():
    with pytest.raises(InvalidRules) as info:
        rules_for("casino", {"\ud800": 1})
    str(info.value).encode("utf-8")  # a Python caller can print the refusal
    assert "\\ud800" in str(info.value)
