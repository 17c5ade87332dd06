"""The campaign report's trust section: the judge's results of the campaign's items (with a
confidence; ``--trust-results``) against the campaign's own labels, as the risk–coverage curve
of :mod:`eval.trust.coverage`; with ``--trust-policy`` also the policy's operating point and
the agreement on labelled items that did not calibrate it.

The labels are the campaign's votes (pairwise) or ratings export, read as ``judge trust``
reads them (:mod:`eval.trust.human`); labels of items the results do not have are left out.

Example::

    report["trust"] = campaign_trust(record, rows, Path("compare.jsonl"))
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval.trust.coverage import decisions, known_rows, trust_section
from eval.trust.human import parse_rows
from eval.trust.results_io import read_results
from judge.trust import read_policy, unwrap


def export_of(kind: str) -> str:
    """Which export holds a campaign's labels (``votes`` or ``ratings``)."""
    return "votes" if kind == "pairwise" else "ratings"


def campaign_trust(
    record: dict[str, Any],
    rows: list[dict[str, Any]],
    results_path: Path,
    policy_path: Path | None = None,
) -> dict[str, Any]:
    """The section (empty when no labelled decision carries a confidence)."""
    policy = read_policy(policy_path) if policy_path is not None else None
    results = [unwrap(x) for x in read_results(results_path)]
    labels = parse_rows(rows, f"campaign {record['id']}", criterion=record.get("criterion"))
    labels = known_rows(labels, results)
    within = policy.agree_within if policy is not None else 1.0
    return trust_section(decisions(results, labels, within), policy) if labels else {}
