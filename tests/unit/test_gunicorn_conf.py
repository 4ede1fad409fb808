"""gunicorn.conf.py's settings from the environment (read as gunicorn reads the file)."""

import importlib.util
import os
from pathlib import Path

import pytest

CONF = Path(__file__).resolve().parents[2] / "gunicorn.conf.py"


def load_conf():
    spec = importlib.util.spec_from_file_location("gunicorn_conf", CONF)
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    return conf


@pytest.fixture(autouse=True)
def _restore_pool_size(monkeypatch):
    """The config writes POSTGRES_POOL_SIZE into os.environ: undo it after each test."""
    monkeypatch.delenv("POSTGRES_POOL_SIZE", raising=False)
    monkeypatch.setenv("GUNICORN_THREADS", "3")


@pytest.mark.parametrize("value", [None, "", "  "])
def test_an_unset_or_empty_pool_size_follows_the_threads(monkeypatch, value):
    if value is not None:
        monkeypatch.setenv("POSTGRES_POOL_SIZE", value)  # `. ./.env` exports a blank line so

    conf = load_conf()

    assert conf.threads == 3
    assert os.environ["POSTGRES_POOL_SIZE"] == "3"


def test_a_pool_size_that_is_set_is_kept(monkeypatch):
    monkeypatch.setenv("POSTGRES_POOL_SIZE", "7")

    load_conf()

    assert os.environ["POSTGRES_POOL_SIZE"] == "7"


def test_access_log_dash_is_gunicorns_stdout_and_off_is_none(monkeypatch):
    monkeypatch.setenv("ACCESS_LOG", "-")
    assert load_conf().accesslog == "-"  # gunicorn writes "-" to stdout (its errorlog: stderr)
    monkeypatch.setenv("ACCESS_LOG", "off")
    assert load_conf().accesslog is None
