"""Code cites the design page by its anchors, and every cited anchor is a heading of the page."""

from __future__ import annotations

import re
from pathlib import Path

from markdown.extensions.toc import slugify

REPO = Path(__file__).resolve().parents[2]
DESIGN = REPO / "docs" / "design.md"
CITED = re.compile(r"docs/design\.md#([a-z0-9-]+)")
CODE = ["judge", "skills", "memory", "api", "eval", "benchmarks", "tests"]


def design_anchors() -> set[str]:
    """The anchors the site gives the headings of docs/design.md (as mkdocs' toc does)."""
    headings = re.findall(r"^#{1,6} (.+)$", DESIGN.read_text(encoding="utf-8"), re.MULTILINE)
    return {slugify(h.replace("`", ""), "-") for h in headings}


def python_files() -> list[Path]:
    return [p for package in CODE for p in sorted((REPO / package).rglob("*.py"))]


def test_every_cited_design_anchor_exists() -> None:
    anchors = design_anchors()
    assert {"submission-and-result-mode-score", "skills-and-cards", "modes"} <= anchors
    broken = [
        f"{p.relative_to(REPO)}: #{anchor}"
        for p in python_files()
        for anchor in CITED.findall(p.read_text(encoding="utf-8"))
        if anchor not in anchors
    ]
    assert not broken, f"anchors missing from docs/design.md: {broken}"


STALE = re.compile(r"DESIGN\.md|DESIGN §")
"""A citation of the design file users do not have (``DESIGN.md``, ``DESIGN §10``)."""


def shipped_files() -> list[Path]:
    """The code, and the data files shipped beside it (cards, catalogs, conditions)."""
    return python_files() + [
        p
        for package in CODE
        for ext in ("toml", "md", "txt", "json", "yaml")
        for p in sorted((REPO / package).rglob(f"*.{ext}"))
    ]


def test_no_code_cites_a_design_file_users_do_not_have() -> None:
    found = [
        str(p.relative_to(REPO))
        for p in shipped_files()
        if p != Path(__file__) and STALE.search(p.read_text(encoding="utf-8", errors="replace"))
    ]
    assert not found, f"cite docs/design.md#<section> instead of DESIGN.md in {found}"
    assert STALE.search("the contract (DESIGN §13)") and STALE.search("see DESIGN.md")
