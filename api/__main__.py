"""``python -m api`` (``make run``): serve the ledger over HTTP with gunicorn.

gunicorn is configured by ``gunicorn.conf.py`` (worker processes, threads, timeouts, access log).

HOST (default 127.0.0.1) and PORT (default 8000) say where to listen; the LEDGER_* variables
say where the events go (SQLite ``./var/ledger.sqlite3`` unless told otherwise);
WEB_CONCURRENCY sets the number of worker processes (default 2). ``python -m api --dev`` runs
Flask's own development server instead (one process, reloader and debugger per FLASK_DEBUG).

The store is opened and the first admin key created HERE, once, before gunicorn starts: the
workers then find the tables and the key in place instead of racing to create them. That needs
a store the workers share, so the memory store is refused here (exit 2, saying to use
``--dev``; see ``api.serving``). With ``--dev`` the key is made in the process that serves
(under FLASK_DEBUG's reloader: the child that serves, not the parent that watches the files).

Every setting is read before anything starts; a bad one (``ledger.settings.SettingError``) is
refused in one line naming the variable, with exit status 2.
"""

from __future__ import annotations

import argparse
import os
import socket
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from eventsourcing.persistence import PersistenceError
from werkzeug.serving import is_running_from_reloader

from api import check_app_settings, create_app
from api.keys_cli import ensure_admin_key
from api.serving import ServerSettings, multiprocess_refusal, server_settings, unset_blank
from ledger.config import describe, store_env, store_error_line
from ledger.settings import SettingError
from replay.store_file import unreadable_file

CONFIG = Path(__file__).resolve().parent.parent / "gunicorn.conf.py"


def banner(app, host: str, port: int) -> None:
    # A wildcard address is where the server listens, not where a client can connect.
    client_host = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
    # Port 0 is chosen by the server when it binds, after this is printed: a made-up address
    # would send the user nowhere, so the addresses say where to read it.
    url = f"http://{client_host}:{port if port else '<port>'}"
    print(
        f"Twenty-One Ledger on {describe(app.config['STORE_ENV'])} — point your client at "
        f"{url}  (try: curl {url}/health)\n"
        f"API docs: {url}/docs   audit pages (sign in with a key): {url}/audit/login",
        flush=True,
    )
    if not port:
        print(
            "PORT=0: the server picks a free port as it starts; <port> is the one its "
            "'Listening at' (gunicorn) or 'Running on' (--dev) line below names.",
            flush=True,
        )
    secret = ensure_admin_key(app)
    if secret is not None:
        print(
            f"First start: an admin API key was created. It is shown once; keep it:\n"
            f"  {secret}\n"
            f"Open a table: curl -X POST {url}/v1/tables -H 'Authorization: Bearer {secret}' "
            "-H 'Content-Type: application/json' -d '{\"family\": \"casino\"}'",
            flush=True,
        )


def port_taken(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be listened on (another server holds it, the host does not
    resolve or is not this machine's), or None. Bound and let go at once, with SO_REUSEADDR
    as gunicorn and Flask bind it; port 0 binds any free port, which checks the host."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as error:
        return error.strerror or str(error)
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            return error.strerror or str(error)
    return None


def gunicorn_argv(server: ServerSettings) -> list[str]:
    """The command that replaces this process: gunicorn with the repository's config, or,
    when the package was installed without it, the same essentials as options."""
    argv = [sys.executable, "-m", "gunicorn"]
    if CONFIG.is_file():
        return [*argv, "--config", str(CONFIG)]
    return [
        *argv,
        "--bind",
        server.bind,
        "--workers",
        str(server.workers),
        "--worker-class",
        "gthread",
        "--threads",
        str(server.threads),
        "--access-logfile",
        "-",
        "api.wsgi:app",
    ]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m api", description="Serve the ledger over HTTP with gunicorn."
    )
    parser.add_argument(
        "--dev", action="store_true", help="Flask's development server instead of gunicorn"
    )
    args = parser.parse_args(argv)
    try:
        # Every setting is read here, before anything starts: a bad one (SettingError names
        # it and what it may be) is one line and exit 2, whichever part of the server reads it.
        server = server_settings()
        taken = port_taken(server.host, server.port)
        if taken is not None:
            # Before any key is made or printed, and before the store is touched: a banner
            # naming a port another server holds would send clients to that server.
            parser.exit(
                1, f"python -m api: cannot listen on {server.host}:{server.port}: {taken}\n"
            )
        check_app_settings(os.environ)  # before store_env, which makes the SQLite directory
        env = store_env()  # makes the SQLite file's directory, when the store is one
        refusal = None if args.dev else multiprocess_refusal(env)
        if refusal is not None:
            parser.exit(2, f"python -m api: {refusal}\n")
        app = create_app({"STORE_ENV": env})
    except SettingError as error:
        parser.exit(2, f"python -m api: {error}\n")
    except (PersistenceError, sqlite3.DatabaseError) as error:
        # A server that cannot be reached, a schema not there, a SQLite file SQLite cannot
        # read (the ledger's or one beside it, named).
        unreadable = unreadable_file(error, env)
        said = (
            str(unreadable)
            if unreadable is not None
            else f"{describe(env)}: {store_error_line(error)}"
        )
        parser.exit(1, f"python -m api: {said}\n")
    host, port = server.host, server.port
    if args.dev:
        # Flask reads FLASK_DEBUG itself; with it, a reloader process watches the files and
        # runs the server in a child: only the child serves, so only it prints the key.
        watcher = app.debug and not is_running_from_reloader()
        if not watcher:
            banner(app, host, port)
        app.run(host=host, port=port)
        return
    banner(app, host, port)
    # Close the store before exec: the workers open their own connections after the fork.
    app.extensions["ledger"].close()
    app.extensions["api_store"].close()
    command = gunicorn_argv(server)
    unset_blank(os.environ)  # read as unset above; gunicorn must not read them otherwise
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
