"""The README is read in a clone: every link it makes into the repository must lead somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Markdown links and images, without the web ones and in-page anchors.
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def local_links(markdown: Path) -> list[str]:
    found = LINK.findall(markdown.read_text(encoding="utf-8"))
    return [link for link in found if not re.match(r"[a-z]+:", link)]


@pytest.mark.parametrize("markdown", ["README.md", "benchmarks/README.md", "docs/README.md"])
def test_every_link_into_the_repository_resolves(markdown):
    source = ROOT / markdown
    links = local_links(source)
    missing = [
        link
        for link in links
        if not (target := (source.parent / link).resolve()).is_relative_to(ROOT)
        or not target.exists()
    ]
    assert not missing, f"{markdown} links to files a clone does not have: {missing}"


def test_the_link_pattern_finds_links():
    sample = ROOT / "README.md"
    assert "docs/RULES.md" in local_links(sample)
