"""README, Configuration: "An empty value counts as unset", for every variable it lists.

Each variable is set empty and everything that reads it (the server's settings, the app's,
every store's environment, the read models' PostgreSQL connection, gunicorn.conf.py, the test
suite's own) must read what it reads when the variable is not set at all (reviewer's finding:
an empty HOST bound every interface, an empty ACCESS_LOG turned the log off, an empty
POSTGRES_PORT failed every read-model read)."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path
from typing import Any

import pytest
from environment import chromium, under_ci
from flask.helpers import get_debug_flag
from postgres_schemas import postgres_settings

from api import app_settings
from api.serving import VARIABLES, server_settings, unset_blank
from ledger.config import store_env
from ledger.settings import SettingError, env_bool, env_str
from replay.projections.postgres_views import connect_settings

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "gunicorn.conf.py"


def readme_variables() -> list[str]:
    """The variables of README.md's Configuration table, in its order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Configuration", 1)[1]
    table = next(block for block in section.split("\n\n") if block.startswith("| variable"))
    names: list[str] = []
    for row in table.splitlines()[2:]:
        first_cell = row.split("|")[1]
        names.extend(re.findall(r"`([A-Z_]+)`", first_cell))
    return names


def test_the_variables_are_those_the_readme_lists():
    assert list(VARIABLES) == readme_variables()


def _gunicorn_conf() -> dict[str, Any]:
    spec = importlib.util.spec_from_file_location("gunicorn_conf", CONF)
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    names = ("bind", "workers", "threads", "timeout", "accesslog", "loglevel")
    return {
        **{name: getattr(conf, name) for name in names},
        "forwarded_allow_ips": conf.forwarded_allow_ips,
        "POSTGRES_POOL_SIZE": os.environ["POSTGRES_POOL_SIZE"],  # set for the workers
    }


def everything_read(environ: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """What every reader of the variables reads from ``environ`` (given explicitly where the
    reader takes it, else as the process's environment)."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    stores = {kind: store_env(kind, environ=environ) for kind in ("memory", "sqlite", "postgres")}
    return {
        "server": server_settings(environ),
        "app": app_settings({}, environ),
        "stores": stores,
        "chosen store": store_env(environ=environ),
        "read models": connect_settings(stores["postgres"]),
        "read models, a hand-written env": connect_settings(environ),
        "gunicorn.conf.py": _gunicorn_conf(),
        "flask": get_debug_flag(),
        "tests": (postgres_settings(), under_ci(), chromium()),
    }


@pytest.fixture
def unset(tmp_path, monkeypatch) -> dict[str, Any]:
    monkeypatch.chdir(tmp_path)  # the SQLite default makes ./var
    return everything_read({}, monkeypatch)


@pytest.mark.parametrize("name", readme_variables())
def test_an_empty_variable_reads_as_unset_everywhere(name, unset, monkeypatch):
    assert everything_read({name: ""}, monkeypatch) == unset


@pytest.mark.parametrize("name", ["HOST", "ACCESS_LOG", "POSTGRES_PORT", "POSTGRES_DBNAME"])
def test_spaces_alone_read_as_unset_too(name, unset, monkeypatch):
    assert everything_read({name: "  "}, monkeypatch) == unset


def test_the_defaults_an_empty_value_falls_back_to(unset):
    """The cases the review found, against the README's defaults."""
    assert unset["server"].host == "127.0.0.1"  # not every interface
    assert unset["server"].access_log == "-"  # stdout, not off
    postgres = unset["stores"]["postgres"]
    assert (postgres["POSTGRES_HOST"], postgres["POSTGRES_PORT"]) == ("127.0.0.1", "5432")
    assert postgres["POSTGRES_DBNAME"] == "test"
    assert unset["read models, a hand-written env"]["port"] == 5432
    assert unset["gunicorn.conf.py"]["forwarded_allow_ips"] == "127.0.0.1,::1"


def test_a_password_is_taken_as_it_is():
    env = store_env("postgres", environ={"POSTGRES_PASSWORD": " pass phrase "})
    assert env["POSTGRES_PASSWORD"] == " pass phrase "
    assert connect_settings(env)["password"] == " pass phrase "


def test_the_helpers_read_a_blank_value_as_the_default():
    assert env_str("X", "d", {"X": ""}) == "d"
    assert env_str("X", "d", {"X": " "}) == "d"
    assert env_str("X", "d", {"X": "v"}) == "v"
    assert env_bool("X", True, {"X": ""}) is True  # an empty value is not a "no"
    assert env_bool("X", False, {"X": ""}) is False


@pytest.mark.parametrize(
    ("spelling", "value"),
    [
        *[(word, True) for word in ("1", "true", "yes", "on", "y", "t", "TRUE", " Yes ")],
        *[(word, False) for word in ("0", "false", "no", "off", "n", "f", "Off")],
    ],
)
def test_a_yes_no_variable_takes_each_spelling_the_readme_lists(spelling, value):
    environ = {"LEDGER_ALLOW_FIXED_SHOES": spelling}
    assert env_bool("LEDGER_ALLOW_FIXED_SHOES", not value, environ) is value


def test_blank_variables_are_unset_for_what_the_server_runs():
    """python -m api runs gunicorn with its environment: gunicorn reads WEB_CONCURRENCY with
    int() as it is imported, and took an empty one for a traceback."""
    environ = {"WEB_CONCURRENCY": "", "FORWARDED_ALLOW_IPS": " ", "PORT": "0", "PATH": ""}

    unset_blank(environ)

    assert environ == {"PORT": "0", "PATH": ""}  # only the ledger's own variables


def test_a_password_of_spaces_is_kept_for_what_the_server_runs():
    # store_env takes it as written: the start-up check and the workers must see the same one.
    environ = {"LEDGER_STORE": "postgres", "POSTGRES_PASSWORD": "   "}
    before = store_env(environ=dict(environ))["POSTGRES_PASSWORD"]

    unset_blank(environ)

    assert environ["POSTGRES_PASSWORD"] == "   "
    assert store_env(environ=environ)["POSTGRES_PASSWORD"] == before == "   "


# -- ACCESS_LOG ------------------------------------------------------------------------------


@pytest.mark.parametrize("word", ["off", "OFF", "none", " None "])
def test_access_log_off_or_none_turns_it_off(word):
    assert server_settings({"ACCESS_LOG": word}).access_log is None


def test_access_log_to_a_new_file_in_an_existing_directory(tmp_path):
    path = str(tmp_path / "access.log")
    assert server_settings({"ACCESS_LOG": path}).access_log == path
    assert not (tmp_path / "access.log").exists()  # gunicorn makes it


def test_access_log_in_a_missing_directory_is_refused_naming_it(tmp_path):
    path = str(tmp_path / "no" / "such" / "access.log")
    with pytest.raises(SettingError) as refused:
        server_settings({"ACCESS_LOG": path})
    assert str(refused.value) == (
        f"ACCESS_LOG {path!r}: its directory {str(tmp_path / 'no' / 'such')!r} does not exist "
        "(the server makes none for the log)"
    )
    assert not (tmp_path / "no").exists()


def test_access_log_that_is_a_directory_is_refused(tmp_path):
    with pytest.raises(SettingError, match="is a directory, not a file"):
        server_settings({"ACCESS_LOG": str(tmp_path)})
