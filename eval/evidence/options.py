"""How ``judge tasks from-posts`` runs: output folder, keyword file, caps and the concurrency
limit of each stage.

Its own module so the pipeline (:mod:`eval.evidence.pipeline`) and the writer of its outputs
(:mod:`eval.evidence.suite_out`) both read it without importing each other.

Example:
    >>> from pathlib import Path
    >>> Options(out=Path("bench")).limits["extract"]
    8
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_LIMITS = {
    "relevance": 16,
    "extract": 8,
    "image_role": 8,
    "template_fill": 4,
    "screenshot": 4,
    "feedback": 8,
}
"""Concurrent calls per stage unless :attr:`Options.limits` says otherwise."""


@dataclass
class Options:
    """How to run: output folder, keyword file, caps and concurrency limits per stage."""

    out: Path
    keywords: Path | None = None
    max_samples: int | None = None
    allow_urls: bool = False
    threshold: int | None = None
    limits: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_LIMITS))
    progress: bool = True
    shift: bool = True
