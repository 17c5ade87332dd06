"""The order of a test run: the slowest test files first (``tests/slow_first.txt``), so the
parallel workers of ``make test`` end together. Kept out of ``tests/conftest.py``, whose own
doctests would give the session's autouse fixtures a second instance.

Example:
    >>> slow_first("tests/test_readme.py::test_x", ["tests/x.py", "tests/test_readme"])
    1
    >>> slow_first("tests/judge/test_cli.py::test_help", ["tests/x.py"])
    1
"""

from __future__ import annotations

from pathlib import Path

SLOW_FIRST = Path(__file__).resolve().parent / "slow_first.txt"


def slow_prefixes(path: Path) -> list[str]:
    """The node id prefixes listed in ``path``, slowest first (``#`` starts a comment)."""
    lines = (line.split("#")[0].strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line]


def slow_first(nodeid: str, slow: list[str]) -> int:
    """The rank of a test among ``slow`` (its first matching prefix), or ``len(slow)`` for
    every other test."""
    return next((i for i, prefix in enumerate(slow) if nodeid.startswith(prefix)), len(slow))
