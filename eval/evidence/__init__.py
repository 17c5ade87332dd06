"""Task suites built from community evidence: a posts export → benchmark suites and a report.

Example:
    >>> from eval.evidence import Options
    >>> Options(out=__import__("pathlib").Path("out")).max_samples is None
    True
"""

from eval.evidence.pipeline import Options, run_pipeline

__all__ = ["Options", "run_pipeline"]
