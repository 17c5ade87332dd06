"""The study report: cells with bootstrap CIs, per-primitive rates, ranking consistency across
backends, group comparisons, a Bradley–Terry leaderboard of prompters, exclusions, Markdown and
plots (``judge study report DIR``).

Example:
    >>> from eval.studies.report import build_report, load_study   # doctest: +SKIP
    >>> report = build_report(load_study("runs/demo"), n_boot=1000, seed=0)  # doctest: +SKIP
"""

from eval.studies.report.build import build_report, write_report
from eval.studies.report.load import ReportError, load_study

__all__ = ["ReportError", "build_report", "load_study", "write_report"]
