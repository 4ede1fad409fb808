import sqlite3

import pytest

from ledger.config import StoreSettingError, describe, store_env, store_kind
from ledger.settings import SettingError


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    """The SQLite default creates ./var: keep it out of the work tree."""
    monkeypatch.chdir(tmp_path)


def test_sqlite_is_the_default_store_under_var(tmp_path):
    env = store_env(environ={})

    assert env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite"
    assert env["SQLITE_DBNAME"] == "./var/ledger.sqlite3"
    assert (tmp_path / "var").is_dir()


def test_sqlite_path_comes_from_ledger_sqlite_path_and_its_directory_is_made(tmp_path):
    path = tmp_path / "a" / "b" / "ledger.sqlite3"

    env = store_env(environ={"LEDGER_SQLITE_PATH": str(path)})

    assert env["SQLITE_DBNAME"] == str(path)
    assert path.parent.is_dir()


def test_explicit_sqlite_path_beats_the_variable(tmp_path):
    env = store_env(
        "sqlite",
        sqlite_path=str(tmp_path / "x.db"),
        environ={
            "LEDGER_SQLITE_PATH": str(tmp_path / "ignored.db"),
        },
    )

    assert env["SQLITE_DBNAME"] == str(tmp_path / "x.db")


def test_sqlite_in_memory_makes_no_directory(tmp_path):
    env = store_env("sqlite", sqlite_path=":memory:", environ={})

    assert env["SQLITE_DBNAME"] == ":memory:"
    assert list(tmp_path.iterdir()) == []


def test_memory_store_uses_plain_python_objects():
    env = store_env(environ={"LEDGER_STORE": "memory"})

    assert env == {
        "PERSISTENCE_MODULE": "ledger.memory_store",
        "AGGREGATE_CACHE_MAXSIZE": "2000",
        "LEDGER_ALLOW_FIXED_SHOES": "false",
    }


def test_store_names_ignore_case_and_surrounding_space():
    assert store_env(environ={"LEDGER_STORE": " Memory "})["PERSISTENCE_MODULE"] == (
        "ledger.memory_store"
    )


def test_kind_argument_beats_ledger_store():
    env = store_env("memory", environ={"LEDGER_STORE": "postgres"})

    assert env["PERSISTENCE_MODULE"] == "ledger.memory_store"


def test_postgres_defaults_match_the_local_test_server():
    env = store_env("postgres", environ={})

    assert env == {
        "PERSISTENCE_MODULE": "ledger.adapters.postgres_store",
        "AGGREGATE_CACHE_MAXSIZE": "2000",
        "POSTGRES_DBNAME": "test",
        "POSTGRES_HOST": "127.0.0.1",
        "POSTGRES_PORT": "5432",
        "POSTGRES_USER": "postgres",
        "POSTGRES_PASSWORD": "",
        "LEDGER_ALLOW_FIXED_SHOES": "false",
    }


def test_postgres_passes_through_schema_and_pool_settings_only_when_set():
    environ = {
        "LEDGER_STORE": "postgres",
        "POSTGRES_DBNAME": "ledger",
        "POSTGRES_HOST": "db.local",
        "POSTGRES_PORT": "6543",
        "POSTGRES_USER": "dealer",
        "POSTGRES_PASSWORD": "s3cret",
        "POSTGRES_SCHEMA": "casino",
        "POSTGRES_POOL_SIZE": "3",
        "POSTGRES_MAX_OVERFLOW": "0",
    }

    env = store_env(environ=environ)

    for name, value in environ.items():
        if name != "LEDGER_STORE":
            assert env[name] == value
    assert "POSTGRES_SCHEMA" not in store_env("postgres", environ={"POSTGRES_SCHEMA": ""})


def test_postgres_settings_do_not_leak_into_other_stores():
    env = store_env("memory", environ={"POSTGRES_SCHEMA": "casino", "POSTGRES_HOST": "x"})

    assert not any(name.startswith("POSTGRES_") for name in env)


@pytest.mark.parametrize("name", ["POSTGRES_PORT", "POSTGRES_POOL_SIZE", "POSTGRES_MAX_OVERFLOW"])
def test_a_non_integer_postgres_number_is_refused_by_name(name):
    with pytest.raises(ValueError, match=name):
        store_env("postgres", environ={name: "five"})


def test_unknown_store_is_refused_naming_the_variable_and_the_choices():
    with pytest.raises(ValueError) as raised:
        store_env(environ={"LEDGER_STORE": "mongodb"})

    message = str(raised.value)
    assert "LEDGER_STORE" in message
    assert "'mongodb'" in message
    for kind in ("memory", "sqlite", "postgres"):
        assert kind in message


def test_fixed_shoes_are_off_unless_allowed():
    assert store_env("memory", environ={})["LEDGER_ALLOW_FIXED_SHOES"] == "false"
    allowed = store_env("memory", environ={"LEDGER_ALLOW_FIXED_SHOES": "TRUE"})
    assert allowed["LEDGER_ALLOW_FIXED_SHOES"] == "true"


def test_a_misspelt_boolean_is_an_error_not_a_silent_no():
    with pytest.raises(ValueError, match="LEDGER_ALLOW_FIXED_SHOES"):
        store_env("memory", environ={"LEDGER_ALLOW_FIXED_SHOES": "ture"})


def test_a_store_setting_error_is_a_setting_error():
    assert issubclass(StoreSettingError, SettingError)


def test_store_env_reads_os_environ_by_default(monkeypatch):
    monkeypatch.setenv("LEDGER_STORE", "memory")

    assert store_env()["PERSISTENCE_MODULE"] == "ledger.memory_store"


def test_describe_names_each_store_in_one_line():
    assert describe(store_env(environ={})) == "SQLite ./var/ledger.sqlite3"
    assert describe(store_env("postgres", environ={"POSTGRES_PASSWORD": "pw"})) == (
        "PostgreSQL postgres@127.0.0.1:5432/test"
    )
    assert describe(store_env("memory", environ={})) == "memory"
    assert describe(store_env("postgres", environ={"POSTGRES_SCHEMA": "s1"})).endswith(
        "(schema s1)"
    )


def test_store_kind_reads_the_persistence_module_back():
    for kind in ("memory", "sqlite", "postgres"):
        assert store_kind(store_env(kind, environ={})) == kind


# -- store paths a command must refuse at once (auditor review, store-path mistakes) --------


def test_a_reading_tool_refuses_a_sqlite_path_that_is_not_there_and_makes_nothing(tmp_path):
    path = tmp_path / "typo" / "ledger.sqlite3"

    with pytest.raises(StoreSettingError, match="does not exist"):
        store_env("sqlite", environ={"LEDGER_SQLITE_PATH": str(path)}, create=False)

    assert not (tmp_path / "typo").exists()


def test_a_reading_tool_accepts_an_existing_database(tmp_path):
    path = tmp_path / "ledger.sqlite3"
    sqlite3.connect(path).execute("create table t (x)").connection.close()

    env = store_env("sqlite", environ={"LEDGER_SQLITE_PATH": str(path)}, create=False)

    assert env["SQLITE_DBNAME"] == str(path)


@pytest.mark.parametrize("create", [True, False])
def test_a_sqlite_path_that_is_a_directory_is_refused_at_once(tmp_path, create):
    with pytest.raises(StoreSettingError, match="is a directory"):
        store_env("sqlite", environ={"LEDGER_SQLITE_PATH": str(tmp_path)}, create=create)


@pytest.mark.parametrize("create", [True, False])
def test_a_file_that_is_not_sqlite_is_refused(tmp_path, create):
    path = tmp_path / "notes.txt"
    path.write_text("these are not the events you are looking for\n")

    with pytest.raises(StoreSettingError, match="not a SQLite database"):
        store_env("sqlite", environ={"LEDGER_SQLITE_PATH": str(path)}, create=create)


def test_an_unknown_store_is_a_store_setting_error():
    with pytest.raises(StoreSettingError, match="LEDGER_STORE must be one of"):
        store_env(environ={"LEDGER_STORE": "bogus"})


# -- eventsourcing's own variables: checked here, an empty one is its default ----------------


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("AGGREGATE_CACHE_MAXSIZE", "abc", "AGGREGATE_CACHE_MAXSIZE must be an integer, 1 or more"),
        ("AGGREGATE_CACHE_MAXSIZE", "0", "AGGREGATE_CACHE_MAXSIZE must be an integer, 1 or more"),
        ("AGGREGATE_CACHE_MAXSIZE", "-5", "AGGREGATE_CACHE_MAXSIZE must be an integer, 1 or more"),
        ("CREATE_TABLE", "maybe", "CREATE_TABLE must be true or false"),
        ("TRANSCODER_TOPIC", "nope:Nope", "TRANSCODER_TOPIC must name a class as module:Class"),
        ("TRANSCODER_TOPIC", "os:path", "TRANSCODER_TOPIC must name a class as module:Class"),
        ("TRANSCODER_TOPIC", "json", "TRANSCODER_TOPIC must name a class as module:Class"),
    ],
)
def test_a_bad_library_setting_is_refused_naming_it_before_anything_is_made(
    tmp_path, variable, value, says
):
    path = tmp_path / "db" / "ledger.sqlite3"
    with pytest.raises(SettingError, match=says):
        store_env("sqlite", sqlite_path=str(path), environ={variable: value})
    assert not (tmp_path / "db").exists()


def test_postgres_lock_timeout_is_checked_and_passed_through():
    env = store_env("postgres", environ={"POSTGRES_LOCK_TIMEOUT": "3"})
    assert env["POSTGRES_LOCK_TIMEOUT"] == "3"
    with pytest.raises(SettingError, match="POSTGRES_LOCK_TIMEOUT must be an integer, 0 or more"):
        store_env("postgres", environ={"POSTGRES_LOCK_TIMEOUT": "abc"})


@pytest.mark.parametrize(("value", "size"), [("", 2000), ("  ", 2000), ("10", 10), (None, 2000)])
def test_an_empty_cache_size_is_the_default_not_no_cache(monkeypatch, value, size):
    """eventsourcing read an empty AGGREGATE_CACHE_MAXSIZE (a blank line of a sourced .env)
    as no cache at all, though the process environment it reads itself."""
    from ledger.application import TwentyOneLedger

    if value is None:
        monkeypatch.delenv("AGGREGATE_CACHE_MAXSIZE", raising=False)
    else:
        monkeypatch.setenv("AGGREGATE_CACHE_MAXSIZE", value)
    app = TwentyOneLedger(env=store_env("memory"))
    try:
        assert app.repository.cache is not None and app.repository.cache.maxsize == size
    finally:
        app.close()


def test_create_table_and_a_real_transcoder_topic_are_passed_on():
    env = store_env(
        "memory",
        environ={
            "CREATE_TABLE": "no",
            "TRANSCODER_TOPIC": "eventsourcing.persistence:JSONTranscoder",
        },
    )
    assert env["CREATE_TABLE"] == "false"
    assert env["TRANSCODER_TOPIC"] == "eventsourcing.persistence:JSONTranscoder"


def test_a_store_error_is_said_in_one_line():
    """PostgreSQL's errors come in several lines (HINT, CONTEXT, "Is the server running"): the
    commands that name a store say its error in one, the message with its detail and hint."""
    from types import SimpleNamespace

    from ledger.config import store_error_line

    plain = RuntimeError('connection failed: refused\n\tIs the server running on "127.0.0.1"?\n')
    assert store_error_line(plain) == (
        'connection failed: refused Is the server running on "127.0.0.1"?'
    )

    cause = RuntimeError("could not extend file\nHINT:  Check free disk space.\nCONTEXT: x")
    cause.diag = SimpleNamespace(  # as a psycopg error carries the server's fields
        message_primary="could not extend file",
        message_detail=None,
        message_hint="Check free disk space.",
    )
    wrapped = RuntimeError(str(cause))
    wrapped.__cause__ = cause
    assert store_error_line(wrapped) == "could not extend file (HINT: Check free disk space.)"
    cause.diag.message_detail = "Key (id)=(1) exists."
    assert store_error_line(wrapped) == (
        "could not extend file (DETAIL: Key (id)=(1) exists.; HINT: Check free disk space.)"
    )
