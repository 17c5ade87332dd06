"""The study report: cells with bootstrap CIs, per-primitive rates, ranking consistency across
backends, group comparisons, a Bradley–Terry leaderboard of prompters, exclusions, Markdown and
plots (``judge study report DIR``). Names load lazily, so ``judge`` starts without numpy.

Example (``report = build_report(load_study("runs/demo"), n_boot=1000, seed=0)``):
    >>> from eval.studies.report import build_report, load_study
    >>> build_report.__module__, load_study.__module__
    ('eval.studies.report.build', 'eval.studies.report.load')
"""

from __future__ import annotations

import importlib
from typing import Any

_NAMES = {
    "build_report": "eval.studies.report.build",
    "write_report": "eval.studies.report.build",
    "ReportError": "eval.studies.report.load",
    "load_study": "eval.studies.report.load",
}
__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_NAMES[name]), name)
