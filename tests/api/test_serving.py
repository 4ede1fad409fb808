"""``python -m api`` and gunicorn on the memory store: gunicorn's workers could not share it,
so the server refuses it and says to use ``--dev``; ``--dev`` serves it from one process, in
which the admin key it prints works."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from flask import Flask

import api.__main__ as api_main

REPO = Path(__file__).resolve().parents[2]
NOWHERE = "/v1/tables/00000000-0000-0000-0000-000000000000"


@pytest.fixture(autouse=True)
def _memory_store(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # python -m api makes ./var
    monkeypatch.setenv("LEDGER_STORE", "memory")
    monkeypatch.delenv("FLASK_DEBUG", raising=False)
    monkeypatch.delenv("WERKZEUG_RUN_MAIN", raising=False)

    def no_exec(*_args):
        raise AssertionError("gunicorn must not be started")

    monkeypatch.setattr(api_main.os, "execv", no_exec)


@pytest.fixture
def served(monkeypatch, closes_apps) -> list[Flask]:
    """The apps ``--dev`` would serve: Flask's run() records its app instead of serving (and
    it is closed when the test ends)."""
    apps: list[Flask] = []

    def run(self: Flask, **_: object) -> None:
        apps.append(self)
        closes_apps(self)

    monkeypatch.setattr(Flask, "run", run)
    return apps


def test_python_m_api_refuses_the_memory_store_and_says_to_use_dev(capsys):
    with pytest.raises(SystemExit) as stopped:
        api_main.main([])

    assert stopped.value.code == 2
    out, err = capsys.readouterr()
    assert "LEDGER_STORE=memory" in err and "python -m api --dev" in err
    assert "keep it" not in out  # no key was made that no worker would know


def test_dev_serves_the_memory_store_with_the_admin_key_it_printed(served, capsys):
    api_main.main(["--dev"])

    (app,) = served
    secret = re.search(r"keep it:\n\s+(\S+)", capsys.readouterr().out).group(1)
    response = app.test_client().get(NOWHERE, headers={"Authorization": f"Bearer {secret}"})
    assert response.status_code == 404  # known key, unknown table (not 401)


def test_under_the_reloader_only_the_serving_child_prints_the_key(served, monkeypatch, capsys):
    monkeypatch.setenv("FLASK_DEBUG", "1")

    api_main.main(["--dev"])  # the parent, which only watches the files
    assert "keep it" not in capsys.readouterr().out

    monkeypatch.setenv("WERKZEUG_RUN_MAIN", "true")
    api_main.main(["--dev"])  # the child that serves
    secret = re.search(r"keep it:\n\s+(\S+)", capsys.readouterr().out).group(1)
    response = served[-1].test_client().get(NOWHERE, headers={"Authorization": f"Bearer {secret}"})
    assert response.status_code == 404


def test_gunicorn_with_the_repository_config_refuses_the_memory_store(monkeypatch):
    for name in ("POSTGRES_POOL_SIZE", "CREATE_TABLE"):  # the config sets them: put them back
        monkeypatch.delenv(name, raising=False)
    spec = importlib.util.spec_from_file_location("gunicorn_conf", REPO / "gunicorn.conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)

    with pytest.raises(SystemExit, match=r"python -m api --dev"):
        conf.on_starting(None)


# -- settings: every bad one is one line naming it, exit 2, before anything starts -----------

BAD_SETTINGS = [
    ({"AUDIT_COOKIE_SECURE": "maybe"}, "AUDIT_COOKIE_SECURE must be one of auto, true, false"),
    ({"API_KEY_CACHE_SECONDS": "-1"}, "API_KEY_CACHE_SECONDS must be a number of seconds, 0 or"),
    ({"LEDGER_PROJECTIONS": "bogus"}, "LEDGER_PROJECTIONS must be one of inline, external"),
    ({"LEDGER_PROJECTION_WAIT_MS": "-5"}, "LEDGER_PROJECTION_WAIT_MS must be an integer, 0 or"),
    ({"LEDGER_STORE": "bogus"}, "LEDGER_STORE must be one of memory, sqlite, postgres"),
    ({"LEDGER_SQLITE_PATH": "."}, "LEDGER_SQLITE_PATH '.' is a directory"),
    ({"LEDGER_ALLOW_FIXED_SHOES": "perhaps"}, "LEDGER_ALLOW_FIXED_SHOES must be true or false"),
    ({"PORT": "abc"}, "PORT must be an integer from 0 to 65535"),
    ({"PORT": "70000"}, "PORT must be an integer from 0 to 65535"),
    ({"WEB_CONCURRENCY": "abc"}, "WEB_CONCURRENCY must be an integer, 1 or more"),
    ({"GUNICORN_THREADS": "0"}, "GUNICORN_THREADS must be an integer, 1 or more"),
    ({"GUNICORN_TIMEOUT": "-1"}, "GUNICORN_TIMEOUT must be an integer, 0 or more"),
    ({"GUNICORN_LOG_LEVEL": "loud"}, "GUNICORN_LOG_LEVEL must be one of debug, info, warning"),
    (
        {"LEDGER_STORE": "postgres", "POSTGRES_PORT": "x"},
        "POSTGRES_PORT must be an integer from 1 to 65535",
    ),
]


@pytest.mark.parametrize("dev", [False, True], ids=["gunicorn", "dev"])
@pytest.mark.parametrize(("settings", "says"), BAD_SETTINGS, ids=lambda v: str(v)[:40])
def test_a_bad_setting_is_refused_in_one_line_naming_it(
    served, monkeypatch, tmp_path, capsys, settings, says, dev
):
    monkeypatch.setenv("LEDGER_STORE", "sqlite")
    monkeypatch.setenv("LEDGER_SQLITE_PATH", str(tmp_path / "db" / "ledger.sqlite3"))
    for name, value in settings.items():
        monkeypatch.setenv(name, value)

    with pytest.raises(SystemExit) as stopped:
        api_main.main(["--dev"] if dev else [])

    out, err = capsys.readouterr()
    assert stopped.value.code == 2
    assert err.startswith(f"python -m api: {says}") and err.count("\n") == 1, err
    assert out == "" and served == []  # no banner, no key, nothing served


@pytest.mark.parametrize(
    "store",
    [
        {"LEDGER_STORE": "sqlite", "LEDGER_SQLITE_PATH": "elsewhere/ledger.sqlite3"},
        {"LEDGER_STORE": "memory"},  # refused without --dev: nothing made either
        {"LEDGER_STORE": "postgres", "POSTGRES_PORT": "x"},  # refused before connecting
    ],
    ids=["sqlite-elsewhere", "memory", "postgres"],
)
def test_python_m_api_makes_only_the_directory_its_sqlite_file_needs(monkeypatch, tmp_path, store):
    for name, value in store.items():
        monkeypatch.setenv(name, value)
    started = []
    monkeypatch.setattr(api_main.os, "execv", lambda *argv: started.append(argv))

    try:
        api_main.main([])
    except SystemExit as stopped:
        assert stopped.code == 2

    assert not (tmp_path / "var").exists()
    made = sorted(p.name for p in tmp_path.iterdir())
    assert made == (["elsewhere"] if store["LEDGER_STORE"] == "sqlite" else [])
    assert bool(started) == (store["LEDGER_STORE"] == "sqlite")


def test_gunicorn_with_the_repository_config_refuses_a_bad_setting_naming_it(monkeypatch):
    for name in ("POSTGRES_POOL_SIZE", "CREATE_TABLE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LEDGER_STORE", "bogus")
    spec = importlib.util.spec_from_file_location("gunicorn_conf", REPO / "gunicorn.conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)

    with pytest.raises(SystemExit, match=r"^gunicorn: LEDGER_STORE must be one of memory"):
        conf.on_starting(None)


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("PORT", "abc", "PORT must be an integer from 0 to 65535"),
        ("GUNICORN_LOG_LEVEL", "loud", "GUNICORN_LOG_LEVEL must be one of debug, info"),
    ],
)
def test_gunicorn_with_the_repository_config_refuses_a_bad_server_setting_in_one_line(
    monkeypatch, name, value, says
):
    """The settings gunicorn.conf.py reads as gunicorn loads it: gunicorn prints any other
    error of a config file as a traceback under "Failed to read config file" (exit 1); a
    SystemExit passes through it, as on_starting's does, as one line naming the variable."""
    for unset in ("POSTGRES_POOL_SIZE", "CREATE_TABLE"):
        monkeypatch.delenv(unset, raising=False)
    monkeypatch.setenv(name, value)
    spec = importlib.util.spec_from_file_location("gunicorn_conf", REPO / "gunicorn.conf.py")
    conf = importlib.util.module_from_spec(spec)

    with pytest.raises(SystemExit) as stopped:
        spec.loader.exec_module(conf)
    assert str(stopped.value.code).startswith(f"gunicorn: {says}")
    assert "\n" not in str(stopped.value.code)


APP_SETTINGS = [
    ({"LEDGER_STORE": "bogus"}, "LEDGER_STORE must be one of memory, sqlite, postgres"),
    ({"API_KEY_CACHE_SECONDS": "x"}, "API_KEY_CACHE_SECONDS must be a number of seconds"),
    ({"AUDIT_COOKIE_SECURE": "maybe"}, "AUDIT_COOKIE_SECURE must be one of auto, true, false"),
    ({"LEDGER_PROJECTIONS": "sometimes"}, "LEDGER_PROJECTIONS must be one of inline, external"),
    ({"LEDGER_PROJECTION_WAIT_MS": "-1"}, "LEDGER_PROJECTION_WAIT_MS must be an integer"),
]


@pytest.mark.parametrize(("settings", "says"), APP_SETTINGS, ids=lambda v: str(v)[:40])
def test_flask_keys_commands_refuse_a_bad_setting_in_one_line_and_make_nothing(
    monkeypatch, tmp_path, settings, says
):
    """``flask --app api keys …`` builds the app through Flask's own command line: a bad
    setting is its one ``Error:`` line and exit 2, not a traceback, and no store is made."""
    from flask.cli import FlaskGroup

    monkeypatch.setenv("LEDGER_STORE", "sqlite")
    monkeypatch.setenv("LEDGER_SQLITE_PATH", str(tmp_path / "db" / "ledger.sqlite3"))
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("FLASK_APP", "api")
    cli = FlaskGroup()

    result = CliRunner().invoke(cli, ["keys", "list"])

    assert result.exit_code == 2, result.output
    assert result.output == f"Error: {result.output[7:]}" and says in result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert not (tmp_path / "db").exists()


def test_python_m_api_reports_a_postgresql_server_it_cannot_reach_in_one_line(monkeypatch, capsys):
    """One connection timeout, one line, exit 1: not minutes of silence and a traceback."""
    import socket
    import time

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("LEDGER_STORE", "postgres")
    monkeypatch.setenv("POSTGRES_HOST", "127.0.0.1")
    monkeypatch.setenv("POSTGRES_PORT", str(port))
    monkeypatch.setenv("POSTGRES_CONNECT_TIMEOUT", "1")
    started = time.monotonic()

    with pytest.raises(SystemExit) as stopped:
        api_main.main([])

    assert stopped.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("python -m api: PostgreSQL ") and f"@127.0.0.1:{port}/" in err
    assert "couldn't get a connection" in err and err.count("\n") == 1, err
    assert time.monotonic() - started < 8  # one timeout per store opened, not ten


@pytest.mark.parametrize(("port", "shown"), [("0", "<port>"), ("8123", "8123")])
def test_the_banner_never_points_at_port_0(served, monkeypatch, capsys, port, shown):
    monkeypatch.setenv("PORT", port)

    api_main.main(["--dev"])

    out = capsys.readouterr().out
    assert f"http://127.0.0.1:{shown}/health" in out
    assert ":0/" not in out
    assert ("the server picks a free port" in out) == (port == "0")
