"""Text a person typed (a player's or a table's name, a payout's reason, a shuffle's client
seed): what the ledger accepts, checked before anything is recorded.

Events are hashed and stored as UTF-8 JSON, so text must be Unicode a UTF-8 encoder can write.
A Python string may hold a lone surrogate (``"\\ud800"``, which JSON's ``\\u`` escapes can
spell) that no encoder accepts: it is refused here with a ``LedgerError`` naming the field,
rather than failing deep inside the hash chain. C0 and C1 control characters (NUL, tab,
newline, escape …) and the line and paragraph separators have no place in a one-line text
either. And a name must show something: at least one character besides spaces and invisible
ones (a name of zero-width spaces is as empty as ``""``).

The rules are two regular expressions, so the API's OpenAPI document states them as they are
checked (``TEXT_PATTERN``, ``VISIBLE_TEXT_PATTERN``; ECMA-262 and Python read them alike).
"""

from __future__ import annotations

import re
from typing import Any

from ledger.errors import InvalidCommand

# What no text may hold: C0 and C1 controls, and the line and paragraph separators.
CONTROL = "\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029"
# What shows nothing on its own: the spaces (Unicode category Zs) and format characters (Cf)
# of the Basic Multilingual Plane, the Hangul fillers and the blank Braille pattern.
INVISIBLE = (
    "\\x20\\xa0\\xad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2\\u115f\\u1160"
    "\\u1680\\u180e\\u2000-\\u200f\\u202a-\\u202f\\u205f-\\u2064\\u2066-\\u206f\\u2800\\u3000"
    "\\u3164\\ufeff\\uffa0\\ufff9-\\ufffb"
)
_SURROGATE = "\\ud800-\\udfff"  # never text; JSON Schema patterns cannot name them portably
TEXT_PATTERN = f"^[^{CONTROL}]*$"
VISIBLE_TEXT_PATTERN = f"^(?:[^{CONTROL}]*[^{CONTROL}{INVISIBLE}][^{CONTROL}]*)?$"

_REFUSED = re.compile(f"[{CONTROL}{_SURROGATE}]")
_VISIBLE = re.compile(f"[^{CONTROL}{_SURROGATE}{INVISIBLE}]")


def text_problem(value: str, *, visible: bool = True) -> str | None:
    """Why ``value`` is not acceptable text (a phrase to follow "the name …"), or None.
    ``visible``: it must also show at least one visible character (a name, not a seed)."""
    refused = _REFUSED.search(value)
    if refused is not None:
        char = refused.group()
        if "\ud800" <= char <= "\udfff":
            what = "a lone surrogate, which is not a character"
        elif char in "\u2028\u2029":
            what = "a line or paragraph separator"
        else:
            what = "a control character"
        return f"contains {what} (U+{ord(char):04X})"
    if visible and _VISIBLE.search(value) is None:
        return "shows no visible character"
    return None


def check_text(value: Any, what: str, *, max_length: int, visible: bool = True) -> str:
    """``value`` if it is acceptable text of at most ``max_length`` characters, else an
    ``InvalidCommand`` naming ``what`` (e.g. "a player's name")."""
    if not isinstance(value, str):
        raise InvalidCommand(f"{what} must be text, got {type(value).__name__}")
    if len(value) > max_length:
        raise InvalidCommand(f"{what} is at most {max_length} characters, got {len(value)}")
    problem = text_problem(value, visible=visible)
    if problem is not None:
        raise InvalidCommand(f"{what} {problem}")
    return value


def shown(value: str) -> str:
    """``value`` with any lone surrogate written as ``\\udXXX``: safe to print or encode."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value
