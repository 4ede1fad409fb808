"""A real server for the end-to-end and browser tests and the HTTP load figure: gunicorn with
the repository's ``gunicorn.conf.py``, as shipped, started as a process on a free loopback
port and stopped gracefully (``GunicornServer``)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from benchmarks.client import Client

REPO = Path(__file__).resolve().parent.parent
CONFIG = REPO / "gunicorn.conf.py"
_LISTENING = re.compile(r"Listening at: (http://\S+)")


class ServerError(RuntimeError):
    pass


class GunicornServer:
    """gunicorn with the repository's config on a free loopback port (``PORT=0``; the port is
    read back from gunicorn's log). ``environ`` is layered over this process's environment;
    ``argv`` may start it another way (``python -m api``), ``cwd`` elsewhere."""

    def __init__(
        self,
        environ: Mapping[str, str],
        log_path: Path,
        *,
        argv: list[str] | None = None,
        cwd: Path = REPO,
        start_timeout: float = 30.0,
    ):
        self.environ = {**os.environ, "HOST": "127.0.0.1", "PORT": "0", **environ}
        self.argv = argv or [sys.executable, "-m", "gunicorn", "--config", str(CONFIG)]
        self.cwd = cwd
        self.log_path = Path(log_path)
        self.start_timeout = start_timeout
        self.process: subprocess.Popen | None = None
        self.url = ""
        self.clients: list[Client] = []

    def client(self, key: str | None = None) -> Client:
        """A client of this server, closed when the server stops."""
        made = Client(self.url, key)
        self.clients.append(made)
        return made

    def __enter__(self) -> GunicornServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def start(self) -> str:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                env=self.environ,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + self.start_timeout
        try:
            while not self.url:
                self._alive_before(deadline)
                found = _LISTENING.search(self.log())
                self.url = found.group(1) if found else ""
                time.sleep(0.05)
            while not self._healthy():
                self._alive_before(deadline)
                time.sleep(0.1)
        except BaseException:
            self.stop()
            raise
        return self.url

    def _alive_before(self, deadline: float) -> None:
        assert self.process is not None
        if self.process.poll() is not None:
            raise ServerError(f"gunicorn exited ({self.process.returncode}):\n{self.log()[-3000:]}")
        if time.monotonic() > deadline:
            raise ServerError(
                f"gunicorn not ready in {self.start_timeout} s:\n{self.log()[-3000:]}"
            )

    def _healthy(self) -> bool:
        probe = Client(self.url, timeout=2)
        try:
            return probe.call("GET", "/health")[0] == 200
        except OSError:
            return False
        finally:
            probe.close()

    def stop(self, timeout: float = 20.0) -> int | None:
        """SIGTERM (gunicorn's graceful stop), then SIGKILL if it overstays; the exit code."""
        for client in self.clients:
            client.close()
        process = self.process
        if process is None:
            return None
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        return process.returncode
