"""The test lanes (``docs/testing.md``): the tests marked ``slow`` are exactly the ones the page
lists, ``make test-fast``'s selection leaves every one of them out (and nothing more of their
files), markers are strict, and the progress plugin reports tests done of the total under
pytest-xdist."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "testing.md"
LISTED = re.compile(r"^\| `(tests/[^`]+)` \|", re.M)


def listed_slow() -> set[str]:
    """The slow tests the docs page lists: a file, or ``file::test`` for one test of a file."""
    return set(LISTED.findall(PAGE.read_text(encoding="utf-8")))


def _is_slow(node: ast.expr) -> bool:
    """``pytest.mark.slow`` (or a call of it), or a list or tuple holding it."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(_is_slow(n) for n in node.elts)
    if isinstance(node, ast.Call):
        node = node.func
    return ast.unparse(node) == "pytest.mark.slow"


def marked_slow() -> set[str]:
    """The files whose ``pytestmark`` is slow, and the tests (``file::name``) decorated slow."""
    found = set()
    for path in sorted((REPO / "tests").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            if any(getattr(t, "id", "") == "pytestmark" for t in targets) and _is_slow(node.value):
                found.add(rel)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                _is_slow(d) for d in node.decorator_list
            ):
                found.add(f"{rel}::{node.name}")
    return found


def fast_lane_expression() -> str:
    """The ``-m`` expression of ``make test-fast`` (the Makefile's ``FAST_LANE``)."""
    make = (REPO / "Makefile").read_text(encoding="utf-8")
    (expression,) = re.findall(r'^FAST_LANE := -m "([^"]+)"$', make, re.M)
    assert re.search(r"^test-fast:.*\n(\t.*\n)*\t.*\$\(FAST_LANE\)", make, re.M), make
    return expression


def test_every_slow_test_is_listed_and_every_listed_one_is_marked() -> None:
    listed = listed_slow()
    assert listed, f"{PAGE} lists no slow test"
    marked = marked_slow()
    assert not marked - listed, f"marked slow but not listed in docs/testing.md: {marked - listed}"
    assert not listed - marked, f"listed in docs/testing.md but not marked slow: {listed - marked}"


@pytest.mark.slow  # imports every slow file: a minute or two on a busy machine
def test_the_fast_lane_leaves_out_every_slow_test_and_no_other() -> None:
    listed = listed_slow()
    files = sorted({entry.split("::")[0] for entry in listed})
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-n", "0", "-p", "no:cacheprovider",
         "-m", fast_lane_expression(), *files],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode in (0, 5), proc.stdout[-3000:] + proc.stderr[-3000:]
    selected = [line for line in proc.stdout.splitlines() if "::" in line]
    for entry in listed:
        leaked = [i for i in selected if i == entry or i.startswith((f"{entry}::", f"{entry}["))]
        assert not leaked, f"make test-fast runs the slow {entry}: {leaked}"
    for entry in (e for e in listed if "::" in e):  # one slow test: the rest of its file stays
        file = entry.split("::")[0]
        if _test_functions(REPO / file) <= {e.split("::")[1] for e in listed if e.startswith(file)}:
            continue  # every test of the file is listed: nothing of it is left to stay
        assert any(i.startswith(f"{file}::") for i in selected), f"{file} left the fast lane"


def _pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest on ``folder`` with the project's pytest settings, plugins from the checkout."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(REPO / "pyproject.toml"), "--rootdir",
         str(folder), "-p", "no:cacheprovider", *args, str(folder)],
        cwd=folder, capture_output=True, text=True, timeout=300,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip


@pytest.mark.slow
def test_a_misspelt_marker_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "test_marks.py").write_text(
        "import pytest\n\n@pytest.mark.slwo\ndef test_x():\n    pass\n", encoding="utf-8"
    )
    proc = _pytest_in(tmp_path, "-n", "0", "--collect-only")
    assert proc.returncode != 0
    assert "'slwo' not found in `markers`" in proc.stdout, proc.stdout[-2000:]
    (tmp_path / "test_marks.py").write_text(
        "import pytest\n\n@pytest.mark.slow\ndef test_x():\n    pass\n", encoding="utf-8"
    )
    assert _pytest_in(tmp_path, "-n", "0", "--collect-only").returncode == 0


TESTS = """
import time


def test_a():
    time.sleep(1.5)  # work that takes a while, so the progress lines come meanwhile


def test_b():
    time.sleep(1.5)


def test_c():
    assert {fails} == 0
"""


@pytest.mark.slow
def test_progress_lines_count_tests_done_of_the_total_under_xdist(tmp_path: Path) -> None:
    (tmp_path / "test_work.py").write_text(TESTS.format(fails=1), encoding="utf-8")
    proc = _pytest_in(tmp_path, "-p", "tests.progress", "-n", "2", "--progress-every", "0.4")
    out = proc.stdout
    assert proc.returncode == 1, out[-3000:] + proc.stderr[-3000:]  # test_c fails
    lines = re.findall(r"^\[progress \d+:\d\d\] .*$", out, re.M)
    counts = [re.search(r"(\d+) of (\d+) tests done", line) for line in lines]
    done = [(int(m[1]), int(m[2])) for m in counts if m]
    assert done and {total for _, total in done} == {3}, lines
    assert [d for d, _ in done] == sorted(d for d, _ in done), lines
    assert any("longest running: test_work.py::test_" in line for line in lines), lines
    assert lines[-1].split("] ", 1)[1].startswith("3 of 3 tests done (100%), 1 failed"), lines
    summary = r"slowest 1 files =+\n +\d+\.\ds  test_work\.py\nwall time \d+:\d\d; the tests' own"
    assert re.search(summary, out), out


@pytest.mark.slow
def test_progress_every_must_be_positive(tmp_path: Path) -> None:
    (tmp_path / "test_work.py").write_text(TESTS.format(fails=0), encoding="utf-8")
    proc = _pytest_in(tmp_path, "-p", "tests.progress", "-n", "0", "--progress-every", "0")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "--progress-every: 0.0 is not a positive number of seconds" in proc.stderr


def _test_functions(path: Path) -> set[str]:
    """The names of a file's test functions (``test_*`` at any depth)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.name.startswith("test")
    }


@pytest.mark.slow
def test_cpu_json_records_each_tests_cpu_seconds_per_worker(tmp_path: Path) -> None:
    (tmp_path / "test_work.py").write_text(
        "import subprocess, sys\n\n"
        "def test_spin():\n    sum(i * i for i in range(3_000_000))\n\n"
        "def test_child():\n"
        "    code = 'sum(i for i in range(3_000_000))'\n"
        "    subprocess.run([sys.executable, '-c', code], check=True)\n"
        "\ndef test_idle():\n    pass\n",
        encoding="utf-8",
    )
    record = tmp_path / "times.json"
    proc = _pytest_in(tmp_path, "-p", "tests.cputime", "--cpu-json", str(record), "-n", "2")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    workers = sorted(tmp_path.glob("times.gw*.json"))
    names = ["times.gw0.json", "times.gw1.json"]
    assert [p.name for p in workers] == names  # one per worker, none by the controller
    tests: dict[str, dict[str, float]] = {}
    for path in workers:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["collection"]["items"] == 3 and data["collection"]["cpu"] > 0, data
        tests |= data["tests"]
    assert set(tests) == {f"test_work.py::test_{n}" for n in ("spin", "child", "idle")}
    spin, child, idle = (tests[f"test_work.py::test_{n}"] for n in ("spin", "child", "idle"))
    assert spin["cpu"] > 10 * idle["cpu"] and spin["cpu"] > 0.05, tests  # its own CPU
    assert child["children"] > 0.05 and child["children"] > child["cpu"] / 10, tests  # its child's
    assert all(t["wall"] >= 0 and t["start"] >= 0 for t in tests.values()), tests
