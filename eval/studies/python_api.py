"""``judge.study.run(...)`` and ``judge.study.report(...)``: studies from Python.

Both run exactly what ``judge study run`` and ``judge study report`` run (same checks, same
files, same resume rules) and return what they wrote, as dicts. A run or report that fails
raises :class:`StudyFailed` carrying the command's message.

Example::

    from judge import study
    summary = study.run("examples/study/study.toml", "runs/demo")
    report = study.report("runs/demo")
    report["consistency"]["subjective_image"]["w"]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any


class StudyFailed(RuntimeError):
    """A study run or report that ended with a non-zero exit; ``code`` is that exit code."""

    def __init__(self, code: int, message: str):
        super().__init__(message.strip() or f"exit code {code}")
        self.code = code


def _call(argv: list[str]) -> None:
    """Parse ``judge study ARGV`` and run its handler; raise on a non-zero exit."""
    from eval.studies.cli import register

    parser = argparse.ArgumentParser(prog="judge")
    register(parser.add_subparsers(dest="verb"))
    args = parser.parse_args(["study", *argv])
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = args.handler(args)
    sys.stderr.write(err.getvalue())
    if code:
        raise StudyFailed(code, err.getvalue())


def run(
    study: str | Path,
    out: str | Path,
    *,
    concurrency: int | None = None,
    max_cost: float | None = None,
    url: str | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Run (or resume) a study; returns ``run.json``: ``{"out", "items", "statuses",
    "usage", "stopped"}``."""
    argv = ["run", str(study), "--out", str(out)]
    argv += ["--concurrency", str(concurrency)] if concurrency else []
    argv += ["--max-cost", str(max_cost)] if max_cost is not None else []
    argv += ["--url", url] if url else []
    argv += [] if progress else ["--no-progress"]
    with contextlib.redirect_stdout(io.StringIO()):
        _call(argv)
    return json.loads((Path(out) / "run.json").read_text(encoding="utf-8"))


def report(
    folder: str | Path,
    *,
    bootstrap: int = 1000,
    permutations: int = 10_000,
    seed: int = 0,
    plots: bool = True,
) -> dict[str, Any]:
    """Write ``report.json``, ``report.md`` and ``plots/`` for a study's folder; returns
    the report (cells, per-primitive rates, Kendall's W, group comparisons, leaderboards)."""
    argv = ["report", str(folder), "--bootstrap", str(bootstrap), "--permutations",
            str(permutations), "--seed", str(seed)]
    argv += [] if plots else ["--no-plots"]
    with contextlib.redirect_stdout(io.StringIO()):
        _call(argv)
    return json.loads((Path(folder) / "report.json").read_text(encoding="utf-8"))
