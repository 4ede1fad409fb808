"""Every module of play can be imported first, as a newcomer's REPL or a single test does."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import ledger.games

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(m.name for m in pkgutil.iter_modules(ledger.games.__path__))


def test_the_games_package_has_its_modules():
    assert {"private", "hoyle", "ochko", "vingt_un", "casino", "families"} <= set(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_each_module_of_play_imports_on_its_own(module):
    done = subprocess.run(
        [sys.executable, "-c", f"import ledger.games.{module}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
