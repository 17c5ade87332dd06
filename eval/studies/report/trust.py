"""The study report's trust section: the judge's results kept in ``results.jsonl`` (scored
with a confidence method) against people's ratings of the same images (``--human-ratings``,
a rating campaign's export), as the risk–coverage curve of :mod:`eval.trust.coverage`; with
``--trust-policy POLICY.json`` also the policy's operating point and held-out agreement.

The campaign names the study's images ``TASK:BACKEND`` (or ``TASK.PROMPTER:PROMPTER/BACKEND``,
see :mod:`eval.studies.report.human`); each result is looked up under both names, and a
campaign criterion names the result's image dimension (``visual_quality`` is
``image.visual_quality``).

Example::

    report["trust"] = study_trust(Path("runs/demo"), Path("ratings.jsonl"))
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval.studies.report.load import ReportError
from eval.trust.coverage import decisions, known_rows, trust_section
from eval.trust.human import read_human
from judge.trust import read_policy, trust_items
from judge.trust.errors import TrustError
from memory.io.jsonl import read_jsonl


def _results(folder: Path) -> list[dict[str, Any]]:
    """The study's judge results, once under each name a campaign may give its image."""
    out = []
    for _, line in read_jsonl(folder / "results.jsonl"):
        result = line.get("result") if isinstance(line, dict) else None
        if not isinstance(result, dict) or line.get("status") == "blocked":
            continue
        task, prompter, backend = line.get("task_id"), line.get("prompter"), line.get("backend")
        for name in (f"{task}:{backend}", f"{task}.{prompter}:{prompter}/{backend}"):
            out.append({**result, "submission_id": name})
    return out


def study_trust(
    folder: Path, human_ratings: Path, policy_path: Path | None = None
) -> dict[str, Any]:
    """The trust section (empty when no rated image's result carries a confidence)."""
    try:
        results = _results(folder)
        if not any(i.confidence is not None for r in results for i in trust_items(r)):
            return {}
        policy = read_policy(policy_path) if policy_path is not None else None
        rows = known_rows(read_human(human_ratings), results)
        if not rows:
            return {}
        within = policy.agree_within if policy is not None else 1.0
        return trust_section(decisions(results, rows, within), policy)
    except TrustError as exc:
        raise ReportError(str(exc)) from None
