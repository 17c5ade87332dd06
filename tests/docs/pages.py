"""Code blocks of the documentation pages (docs/*.md), for the tests that run them."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.DOTALL | re.MULTILINE)


def blocks(page: str, language: str) -> list[str]:
    """The ``language`` code blocks of ``docs/<page>``, in order."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return [body for lang, body in _BLOCK.findall(text) if lang == language]


def shell_commands(page: str) -> list[list[str]]:
    """Each command of the page's ``sh`` blocks as an argv (backslash continuations joined)."""
    out = []
    for body in blocks(page, "sh"):
        for line in body.replace("\\\n", " ").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                out.append(shlex.split(line))
    return out
