"""The typed readers of an environment variable (ledger/settings.py): a blank value is the
default, and a value that cannot work is a SettingError naming the variable."""

import pytest

from ledger.settings import SettingError, env_bool, env_choice, env_int


def test_typed_helpers_read_defaults_and_values():
    assert env_bool("X", True, {}) is True
    assert env_bool("X", True, {"X": "no"}) is False
    assert env_int("PORT", 8000, {}) == 8000
    assert env_int("PORT", 8000, {"PORT": ""}) == 8000
    assert env_int("PORT", 8000, {"PORT": " 9000 "}) == 9000
    with pytest.raises(ValueError, match="PORT"):
        env_int("PORT", 8000, {"PORT": "eighty"})


def test_every_bad_setting_is_a_setting_error_naming_it_and_what_it_may_be():
    with pytest.raises(SettingError, match=r"^N must be an integer from 1 to 9, got '0'$"):
        env_int("N", 5, {"N": "0"}, minimum=1, maximum=9)
    with pytest.raises(SettingError, match=r"^N must be an integer, 0 or more, got '-1'$"):
        env_int("N", 5, {"N": "-1"}, minimum=0)
    with pytest.raises(SettingError, match=r"^B must be true or false, got 'ture'$"):
        env_bool("B", False, {"B": "ture"})
    with pytest.raises(SettingError, match=r"^C must be one of a, b; got 'z'$"):
        env_choice("C", "a", ("a", "b"), {"C": "z"})
    assert env_int("N", 5, {"N": "9"}, minimum=1, maximum=9) == 9
    assert env_choice("C", "a", ("a", "b"), {"C": " B "}) == "b"
    assert env_choice("C", "a", ("a", "b"), {"C": ""}) == "a"
