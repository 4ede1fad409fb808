"""The domain stays free of adapters: ledger/ imports no web, validation or driver library,
except in ``ledger/adapters/``: the stores eventsourcing loads by name, which nothing else in
the ledger imports.

Checked on the source with ``ast`` so that an import inside a function, or one in a module no
test happens to load, is caught too; and by importing the application in a fresh interpreter.
"""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FORBIDDEN_IN_LEDGER = {
    "flask",
    "marshmallow",
    "psycopg",
    "psycopg_pool",
    "werkzeug",
    "gunicorn",
    "api",
    "replay",
}
# The store is chosen by environment; importing a driver-backed module would pull psycopg in.
FORBIDDEN_MODULES_IN_LEDGER = {"eventsourcing.postgres"}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
            found.extend((node.lineno, f"{node.module}.{a.name}") for a in node.names)
    return found


ADAPTERS = ROOT / "ledger" / "adapters"


def violations(package: str, forbidden: set[str], forbidden_modules: set[str] = frozenset()):
    for path in sorted((ROOT / package).rglob("*.py")):
        if ADAPTERS in path.parents:
            continue
        for lineno, module in imported_modules(path):
            top = module.split(".")[0]
            if top in forbidden or any(
                module == m or module.startswith(m + ".") for m in forbidden_modules
            ):
                yield f"{path.relative_to(ROOT)}:{lineno} imports {module}"


def test_the_ledger_imports_no_adapter():
    found = list(violations("ledger", FORBIDDEN_IN_LEDGER, FORBIDDEN_MODULES_IN_LEDGER))

    assert found == [], "ledger/ must stay free of adapters:\n" + "\n".join(found)


def test_nothing_in_the_ledger_imports_its_adapters():
    found = list(violations("ledger", set(), {"ledger.adapters"}))

    assert found == [], "only eventsourcing loads ledger/adapters/, by name:\n" + "\n".join(found)


def test_importing_the_application_loads_no_driver():
    code = (
        "import sys, ledger.application, ledger.config, ledger.simulate;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('psycopg', 'psycopg_pool', 'flask', 'marshmallow')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_ledger_package_is_checked_at_all():
    assert any((ROOT / "ledger").rglob("*.py"))


def test_replay_never_imports_the_api():
    assert any((ROOT / "replay").rglob("*.py")), "no replay/ package to check"

    found = list(violations("replay", {"api", "flask", "werkzeug", "gunicorn"}))

    assert found == [], "replay/ reads events and must not depend on the API:\n" + "\n".join(found)


def test_the_checker_sees_imports_inside_functions(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from flask import Flask\n    import psycopg.sql\n")

    assert {name for _, name in imported_modules(module)} >= {"flask", "psycopg.sql"}
