"""Ablations as one flag each: every variant is a full scoring run with one setting changed.

- ``retrieval``: none, fixed, random, similarity (the paper's table 11);
- ``k``: 1, 2, 3, 4 exemplars (table 12);
- ``encoder``: the memory rebuilt with each encoder of ``--encoders`` (table 13).

Example:
    >>> [v.name for v in variants("k")]
    ['k=1', 'k=2', 'k=3', 'k=4']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ABLATIONS = ("retrieval", "k", "encoder")


@dataclass(frozen=True)
class Variant:
    """One configuration of an ablation."""

    name: str
    overrides: dict[str, Any] = field(default_factory=dict)
    encoder: str | None = None


def variants(kind: str, encoders: list[str] | None = None) -> list[Variant]:
    """The variants of one ablation kind."""
    if kind == "retrieval":
        return [Variant(s, {"retrieval": s}) for s in ("none", "fixed", "random", "similarity")]
    if kind == "k":
        return [Variant(f"k={k}", {"retrieval_k": k}) for k in (1, 2, 3, 4)]
    if kind == "encoder":
        if not encoders:
            raise ValueError("--ablation encoder needs --encoders SPEC,SPEC (e.g. minilm,nomic:/m)")
        return [Variant(f"encoder={e}", {}, encoder=e) for e in encoders]
    raise ValueError(f"unknown ablation {kind!r}; use one of {ABLATIONS}")


def summary_row(report: dict) -> dict[str, float | None]:
    """MAE, within-1 and Spearman macro-averaged over every target (a table row)."""
    targets = report.get("targets", {})
    cols: dict[str, float | None] = {}
    for metric in ("mae", "within1", "spearman"):
        vals = [m[metric] for m in targets.values() if m.get(metric) is not None]
        cols[metric] = round(sum(vals) / len(vals), 4) if vals else None
    return cols
