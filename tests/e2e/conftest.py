"""End-to-end fixtures: a real gunicorn process and real HTTP clients.

The server (``benchmarks.server``), the client and the round player (``benchmarks.client``) are
the HTTP load figure's, so its harness is exercised by every test run. Every wait is bounded:
the server's start (30 s), each request (10 s) and the server's stop (20 s, then SIGKILL).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from benchmarks.server import REPO, GunicornServer

_SECRET = re.compile(r"secret \(shown once\): (\S+)")


def _cli_key(environ: Mapping[str, str], role: str, player: str | None = None) -> str:
    argv = [sys.executable, "-m", "flask", "--app", "api", "keys", "create", "--role", role]
    if player:
        argv += ["--player", player]
    done = subprocess.run(
        argv,
        cwd=REPO,
        env={**os.environ, **environ},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = _SECRET.search(done.stdout)
    assert found, done.stdout
    return found.group(1)


@pytest.fixture
def cli_key() -> Callable[..., str]:
    """``cli_key(environ, role, player=None)``: ``flask --app api keys create`` run in its own
    process on the store ``environ`` names; the secret it prints."""
    return _cli_key


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., GunicornServer]]:
    """``serve(environ)`` starts gunicorn with ``environ``; every server is stopped at the end
    of the test (and its log printed when the test failed, by pytest's captured output)."""
    servers: list[GunicornServer] = []

    def start(environ: Mapping[str, str]) -> GunicornServer:
        server = GunicornServer(environ, tmp_path / f"gunicorn-{len(servers)}.log")
        servers.append(server)
        server.start()
        return server

    yield start
    for server in servers:
        server.stop()
        print(server.log()[-4000:])
