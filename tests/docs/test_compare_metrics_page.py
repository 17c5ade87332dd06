"""docs/compare-metrics.md's worked example: the command and the Python block run as written
on the shipped example files, and the output, tables and options the page shows are what the
run gives (the page is also walked with the other evaluate pages by tests/test_readme.py)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from eval.metaeval import cli
from judge.cli.main import main
from tests.docs.pages import blocks, shell_commands

REPO = Path(__file__).resolve().parents[2]
PAGE = "compare-metrics.md"


@pytest.fixture
def in_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    for name in ("JUDGE_MODEL", "JUDGE_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_the_worked_example_prints_and_reports_what_the_page_shows(
    in_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head, run = shell_commands(PAGE)
    assert head[:3] == ["head", "-n", "3"]
    assert run[0] == ".venv/bin/judge"
    argv = [a.replace("${TMPDIR:-/tmp}", str(in_repo)) for a in run[1:]]
    assert main(argv) == 0
    shown = blocks(PAGE, "text")[0].splitlines()
    csv_head = (REPO / head[3]).read_text().splitlines()[:3]
    assert shown[:3] == csv_head
    out = capsys.readouterr().out.replace(str(in_repo), "/tmp")
    assert out.splitlines() == shown[3:]
    report = (in_repo / "compare-metrics" / "report.md").read_text()
    for block in blocks(PAGE, "text")[1:3]:
        for line in block.splitlines():
            assert line in report, line
    assert (in_repo / "compare-metrics" / "systems_faithfulness.png").is_file()


def test_the_python_block_prints_what_the_page_shows(in_repo: Path) -> None:
    (code,) = blocks(PAGE, "python")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"docs/{PAGE}", "exec"), {})
    assert out.getvalue().strip() == blocks(PAGE, "text")[3].strip()


def test_the_options_table_lists_every_flag_of_the_group() -> None:
    """Each flag of ``judge meta-eval``'s "compare metrics" group is in the page's options
    table, and each option the table names is a flag of the verb."""
    import argparse

    verbs = argparse.ArgumentParser().add_subparsers()
    cli.register(verbs)
    parser = verbs.choices["meta-eval"]
    (group,) = [g for g in parser._action_groups if g.title == "compare metrics"]
    flags = {s for a in group._group_actions for s in a.option_strings}
    text = (REPO / "docs" / PAGE).read_text()
    table = text[text.index("## Options") :]
    named = set(re.findall(r"`(--[a-z-]+)", table))
    assert flags <= named, flags - named
    every = {s for a in parser._actions for s in a.option_strings}
    assert named <= every, named - every
