"""``python -m api`` and gunicorn on the memory store: gunicorn's workers could not share it,
so the server refuses it and says to use ``--dev``; ``--dev`` serves it from one process, in
which the admin key it prints works."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
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
def served(monkeypatch) -> list[Flask]:
    """The apps ``--dev`` would serve: Flask's run() records its app instead of serving."""
    apps: list[Flask] = []
    monkeypatch.setattr(Flask, "run", lambda self, **_: apps.append(self))
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
