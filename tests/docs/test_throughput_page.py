"""docs/throughput.md: its Python examples run as written (the shell example is run by
tests/api/test_load_bench.py)."""

from __future__ import annotations

import pytest

from tests.docs.pages import blocks, shell_commands

PAGE = "throughput.md"


@pytest.mark.parametrize("code", blocks(PAGE, "python"))
def test_python_examples_run(code: str) -> None:
    exec(compile(code, f"docs/{PAGE}", "exec"), {"__name__": "docs_example"})


def test_the_page_has_its_examples() -> None:
    assert len(blocks(PAGE, "python")) == 3
    assert [argv[:3] for argv in shell_commands(PAGE)] == [["python", "-m", "benchmarks.load"]]
