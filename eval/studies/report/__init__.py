"""The study report: cells with bootstrap CIs, per-primitive rates, ranking consistency across
backends, group comparisons, a Bradley–Terry leaderboard of prompters, exclusions, Markdown and
plots (``judge study report DIR``). Names load lazily, so ``judge`` starts without numpy.

Example (``report = build_report(load_study("runs/demo"), n_boot=1000, seed=0)``):
    >>> from eval.studies.report import build_report, load_study
    >>> build_report.__module__, load_study.__module__
    ('eval.studies.report.build', 'eval.studies.report.load')
"""

from __future__ import annotations

from judge.lazy_exports import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "eval.studies.report.build": ("build_report", "write_report"),
        "eval.studies.report.load": ("ReportError", "load_study"),
    },
)
