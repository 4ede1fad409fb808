"""``python -m replay`` as a shell runs it (auditor review): its stdout redirected to a file
(an export refused on a damaged store leaves the file as it was, no NUL bytes and no error
line), read by a pipe that closes before the output is all written (no traceback, and an exit
status that does not claim a fault in the store) or after (``verify | head -1``: the report
was written whole, so verify's own verdict), and on a SQLite file that SQLite itself cannot
read (cut short, or bytes overwritten inside a page): one line naming the file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tampering import cut_short, delete_event, first_row, overwrite_pages

ROOT = Path(__file__).resolve().parents[2]
SIGPIPE_STATUS = 128 + signal.SIGPIPE


def replay(path: Path, *argv: str, **kwargs) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "LEDGER_STORE": "sqlite",
        "LEDGER_SQLITE_PATH": str(path),
    }
    return subprocess.run(
        [sys.executable, "-m", "replay", *argv], env=env, cwd=ROOT, timeout=120, **kwargs
    )


# -- export > file on a damaged store --------------------------------------------------------


@pytest.mark.parametrize("flags", [["--json"], []])
def test_a_refused_export_leaves_the_redirected_file_as_it_was(stored_round, tmp_path, flags):
    _, path, rid = stored_round
    delete_event(path, rid, 20)  # a gap in the middle of the round: export refuses
    target = tmp_path / "out.jsonl"
    before = b'{"kept": "an earlier line"}\n'
    target.write_bytes(before)

    with open(target, "ab") as out:  # ``>>``: what the file held must stay, and only that
        done = replay(path, *flags, "export", stdout=out, stderr=subprocess.PIPE)

    assert done.returncode == 1
    assert target.read_bytes() == before  # no NUL bytes, no error line in the data
    err = done.stderr.decode()
    assert "Traceback" not in err
    line = err.strip()
    assert "is missing" in (json.loads(line)["error"] if flags else line)


def test_a_refused_export_into_an_emptied_file_leaves_it_empty(stored_round, tmp_path):
    _, path, rid = stored_round
    delete_event(path, rid, 20)
    target = tmp_path / "out.jsonl"
    with open(target, "wb") as out:  # ``>``: the shell empties the file first
        done = replay(path, "--json", "export", stdout=out, stderr=subprocess.PIPE)
    assert done.returncode == 1
    assert target.read_bytes() == b""


# -- a reader that goes away ------------------------------------------------------------------


def _closed_pipe() -> int:
    """The write end of a pipe whose reader has already gone, as ``| true`` leaves it, or
    ``| head -c 10`` once head has its bytes and the export goes on."""
    read, write = os.pipe()
    os.close(read)
    return write


@pytest.mark.parametrize("command", ["verify", "export", "round", "--json round"])
def test_a_closed_pipe_ends_the_command_quietly(stored_round, command):
    _, path, rid = stored_round
    argv = command.split() + ([rid] if command.endswith("round") else [])
    write = _closed_pipe()
    try:
        done = replay(path, *argv, stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert done.stderr.decode() == ""
    # What a program SIGPIPE ends exits with: not 1, which would say the store is at fault.
    assert done.returncode == SIGPIPE_STATUS


@pytest.mark.parametrize("damaged", [False, True])
def test_a_reader_that_takes_one_line_of_a_written_report_still_gets_the_verdict(
    stored_round, damaged
):
    """``verify | head -1``: the report is written in one go once the log is checked, and the
    pipe's buffer takes it whole, so head's going away after its line is no SIGPIPE: verify
    exits 0, or 1 on a fault (README, "Exit codes")."""
    _, path, rid = stored_round
    if damaged:
        delete_event(path, rid, 5)
    read, write = os.pipe()
    try:
        done = replay(path, "verify", stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    with os.fdopen(read, "rb") as reader:
        first = reader.readline().decode()  # head's line, read once verify has exited
    assert done.stderr.decode() == ""
    assert done.returncode == (1 if damaged else 0)
    assert first.startswith("verify (all streams): " + ("FAILED" if damaged else "OK"))


def test_a_pipe_read_to_the_end_still_gives_the_verdict(stored_round):
    _, path, _ = stored_round
    done = replay(path, "verify", capture_output=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().startswith("verify (all streams): OK")


# -- a SQLite file SQLite cannot read ---------------------------------------------------------


COMMANDS = [
    ["verify"],
    ["export"],
    ["export", "-o", "{tmp}/x.jsonl"],
    ["round", "{rid}"],
    ["rederive", "{rid}"],
    ["table", "{table}", "--at", "2030-01-01T00:00:00Z"],
    ["projections"],
]
# A page overwritten in the middle of the events: the commands that read every event meet it
# (one round's reads may not reach that page).
READ_EVERYTHING = COMMANDS[:3]


@pytest.mark.parametrize(
    ("damage", "commands"),
    [("cut short", COMMANDS), ("a page overwritten", READ_EVERYTHING)],
)
@pytest.mark.parametrize("json_flag", [False, True])
def test_a_damaged_sqlite_file_is_one_line_naming_it(
    stored_round, tmp_path, damage, commands, json_flag
):
    _, path, rid = stored_round
    table = first_row(path, "Table.Opened").stream
    if damage == "cut short":
        cut_short(path, 4000)
    else:
        overwrite_pages(path, only_the_middle=True)
    names = {"rid": rid, "table": table, "tmp": str(tmp_path)}
    for command in commands:
        argv = [part.format(**names) for part in command]
        done = replay(path, *(["--json"] if json_flag else []), *argv, capture_output=True)
        out, err = done.stdout.decode(), done.stderr.decode()
        assert "Traceback" not in out + err, (argv, err)
        assert done.returncode == 1, (argv, out, err)
        # With --json the error is the JSON on stdout, but for an export to stdout, whose
        # stdout is the data (it goes to stderr there).
        to_stdout = json_flag and (argv[0] != "export" or "-o" in argv)
        reported = (out if to_stdout else err).strip()
        assert len(reported.splitlines()) == 1, (argv, reported)
        if json_flag:
            reported = json.loads(reported)["error"]
        assert f"the SQLite file {path} is damaged" in reported, (argv, reported)
        # SQLite's "malformed", or Python's "Could not decode to UTF-8" where the bytes fell
        # inside a row's text (which depends on where the rows lie in the file).
        assert "malformed" in reported or "Could not decode to UTF-8" in reported


def test_a_file_with_the_header_but_nothing_sqlite_after_it_is_bad_usage(stored_round):
    _, path, _ = stored_round
    data = path.read_bytes()
    # SQLite's header kept, its page size overwritten: SQLite says "file is not a database".
    path.write_bytes(data[:16] + b"\x00\x03" + data[18:])
    done = replay(path, "verify", capture_output=True)
    err = done.stderr.decode()
    assert "Traceback" not in err, err
    assert done.returncode == 2
    assert f"the SQLite file {path} is not a SQLite database" in err
