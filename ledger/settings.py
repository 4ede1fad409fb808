"""Settings read from the environment, typed: a string, a yes/no, an integer within bounds, one
of a few words (``env_str``, ``env_bool``, ``env_int``, ``env_choice``). Every variable the
ledger, the API, the tools and the test suite read goes through these, so they all agree
that a blank value counts as unset (``blank``) and that a value that cannot work is a
``SettingError`` naming the variable, not a silent default.

The choice of the store the ledger keeps its events in is ``ledger.config``'s.

Standard library only: this module sits inside ``ledger/`` and imports no Flask or psycopg.
"""

import os
from collections.abc import Mapping

_TRUE = frozenset({"1", "true", "yes", "on", "y", "t"})
_FALSE = frozenset({"0", "false", "no", "off", "n", "f"})


class SettingError(ValueError):
    """A setting (an environment variable, or the app config key of the same name) that
    cannot work. Its message is one line naming the variable and what it may be: a command
    (``python -m api``, the CLIs) prints it and exits 2, where a traceback would bury it."""


def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def blank(value: str | None) -> bool:
    """Whether a variable's value counts as unset: it is not there, empty, or only spaces
    (``set -a; . ./.env`` exports a line left blank as an empty value)."""
    return value is None or not value.strip()


def env_str(name: str, default: str = "", environ: Mapping[str, str] | None = None) -> str:
    """The variable's value, or ``default`` when it is unset or blank (:func:`blank`)."""
    value = _environ(environ).get(name)
    return default if blank(value) else value  # type: ignore[return-value]


def env_bool(name: str, default: bool = False, environ: Mapping[str, str] | None = None) -> bool:
    """A yes/no variable (``true``/``false``, ``1``/``0``, ``yes``/``no``, ``on``/``off``,
    ``y``/``n``, ``t``/``f``, in any case); unset or blank: ``default``. Anything else is an
    error, not a silent no."""
    value = _environ(environ).get(name)
    if blank(value):
        return default
    word = value.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise SettingError(f"{name} must be true or false, got {value!r}")


def env_int(
    name: str,
    default: int,
    environ: Mapping[str, str] | None = None,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
) -> int:
    """An integer variable, within ``minimum``..``maximum`` when given; an empty value means
    the default."""
    value = _environ(environ).get(name)
    if blank(value):
        return default
    try:
        number = int(value.strip())
    except ValueError:
        number = None
    too_low = number is not None and minimum is not None and number < minimum
    too_high = number is not None and maximum is not None and number > maximum
    if number is None or too_low or too_high:
        raise SettingError(f"{name} must be {_integer_range(minimum, maximum)}, got {value!r}")
    return number


def _integer_range(minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f"an integer from {minimum} to {maximum}"
    if minimum is not None:
        return f"an integer, {minimum} or more"
    return "an integer" if maximum is None else f"an integer, {maximum} or less"


def env_choice(
    name: str, default: str, choices: tuple[str, ...], environ: Mapping[str, str] | None = None
) -> str:
    """One of ``choices`` (case and surrounding space ignored); unset or empty: ``default``."""
    value = _environ(environ).get(name)
    word = (value or "").strip().lower() or default
    if word not in choices:
        raise SettingError(f"{name} must be one of {', '.join(choices)}; got {value!r}")
    return word
