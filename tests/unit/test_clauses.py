"""The clause texts audits quote (replay/clauses.json) come from the committed rule digest
(docs/RULES.md); ``python -m replay.clauses`` regenerates them and checks them."""

from pathlib import Path

import pytest

from replay import clauses as clauses_mod
from replay.clauses import CLAUSES_JSON, RULES_MD, build, clauses, main

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"


def test_the_committed_clauses_are_what_docs_rules_md_gives():
    assert RULES_MD == REPO / "docs" / "RULES.md"
    assert build(RULES_MD.read_text(encoding="utf-8")) == clauses()


@pytest.mark.parametrize("name", ["RULES.md", "SHUFFLE.md"])
def test_the_docs_copies_match_the_shared_digest_beside_the_repository(name):
    if not (SHARED / name).is_file():
        pytest.skip(f"no {SHARED / name} beside this checkout to compare docs/{name} with")
    assert (REPO / "docs" / name).read_bytes() == (SHARED / name).read_bytes(), (
        f"docs/{name} differs from ../shared/{name}: copy it again (docs/README.md)"
    )


def test_check_passes_on_the_committed_files(capsys):
    assert main(["--check"]) == 0
    assert "agrees" in capsys.readouterr().out


def test_check_fails_naming_the_clause_that_changed(tmp_path, capsys):
    rules = tmp_path / "RULES.md"
    text = RULES_MD.read_text(encoding="utf-8")
    rules.write_text(text.replace("- VU-5 ", "- VU-5 Changed. ", 1), encoding="utf-8")

    assert main(["--check", str(rules)]) == 1
    assert "VU-5" in capsys.readouterr().out


def test_regenerating_writes_the_clauses_of_the_given_digest(tmp_path, monkeypatch, capsys):
    target = tmp_path / "clauses.json"
    monkeypatch.setattr(clauses_mod, "CLAUSES_JSON", target)
    rules = tmp_path / "RULES.md"
    rules.write_text("- VU-1 Only this.\n", encoding="utf-8")

    assert main([str(rules)]) == 0

    assert '"VU-1": "Only this."' in target.read_text(encoding="utf-8")
    assert CLAUSES_JSON.read_text(encoding="utf-8") != target.read_text(encoding="utf-8")


def test_a_missing_file_is_a_usage_error_not_a_traceback(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path / "RULES.md")])

    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "usage: python -m replay.clauses" in err


def test_help_is_help_not_a_path(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--help"])

    assert stopped.value.code == 0
    assert "docs/RULES.md" in capsys.readouterr().out
