"""The meta-eval report's trust section: where the judge's predictions carry a confidence
(``judge meta-eval --confidence METHOD``) and the dataset has people's labels, the
risk–coverage curve per kind, and with a policy (``--trust POLICY.json``) its operating point
and the agreement on labelled items that did not calibrate it (:mod:`eval.trust.coverage`).

A prediction line carries ``confidence`` (and with a policy ``trusted``) by the item's path in
the result: ``subjective.<side>.<dim>``, ``objective.<side>.<checkpoint>``,
``criteria.<name>``.

Example::

    made.append(add_trust(report, items, predictions, dataset, out))
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eval.datasets.base import Dataset, EvalItem
from eval.trust.calibrate import AGREE_WITHIN
from eval.trust.coverage import Decision, trust_section
from eval.trust.report import trust_plot
from judge.trust import read_policy


def trust_marks(data: dict[str, Any]) -> dict[str, Any]:
    """``{"trusted": {path: bool}}`` of a result judged under a policy (paths as
    ``confidence``'s); empty otherwise."""
    marks: dict[str, bool] = {}
    for side, dims in (data.get("subjective") or {}).items():
        marks.update({f"subjective.{side}.{d}": v["trusted"] for d, v in dims.items()
                      if isinstance(v.get("trusted"), bool)})  # fmt: skip
    for side, part in (data.get("objective") or {}).items():
        marks.update({f"objective.{side}.{i['id']}": i["trusted"] for i in part.get("items") or []
                      if isinstance(i.get("trusted"), bool)})  # fmt: skip
    marks.update({f"criteria.{n}": v["trusted"] for n, v in (data.get("criteria") or {}).items()
                  if isinstance(v.get("trusted"), bool)})  # fmt: skip
    return {"trusted": marks} if marks else {}


def _target_decision(t: Any, item: EvalItem, pred: dict, within: float) -> Decision:
    if t.modality in ("compare", "edit"):
        path = f"criteria.{t.dimension}"
        kind = f"winner.{t.dimension}" if t.modality == "compare" else f"rating.edit.{t.dimension}"
    else:
        path, kind = f"subjective.{t.modality}.{t.dimension}", f"rating.{t.modality}.{t.dimension}"
    value, label = (pred.get("scores") or {}).get(t.name), item.labels[t.name]
    if value is None:
        agrees = False
    elif t.modality == "compare":
        agrees = value == label
    else:
        agrees = abs(value - label) <= within + 1e-9
    return _decision(kind, item.id, pred, path, agrees)


def _decision(kind: str, item_id: str, pred: dict, path: str, agrees: bool) -> Decision:
    conf = (pred.get("confidence") or {}).get(path)
    flag = (pred.get("trusted") or {}).get(path)
    return Decision(kind, item_id, conf if isinstance(conf, int | float) else None, agrees,
                    flag if isinstance(flag, bool) else None)  # fmt: skip


def meta_eval_decisions(
    dataset: Dataset, items: list[EvalItem], predictions: list[dict], within: float
) -> list[Decision]:
    """Every labelled decision of the run (targets and checkpoint verdicts)."""
    preds = {p["id"]: p for p in predictions}
    out = []
    for item in items:
        pred = preds.get(item.id) or {}
        if "error" in pred or not pred.get("confidence"):
            continue
        out += [_target_decision(t, item, pred, within) for t in dataset.targets
                if t.name in item.labels]  # fmt: skip
        for side, labels in item.objective.items():
            given = (pred.get("objective") or {}).get(side) or {}
            out += [_decision("verdict", item.id, pred, f"objective.{side}.{cid}",
                              given.get(cid) is not None and given.get(cid) == gold)
                    for cid, gold in labels.items()]  # fmt: skip
    return out


def add_trust(
    report: dict, items: list[EvalItem], predictions: list[dict], dataset: Dataset, out: Path
) -> Path | None:
    """Put ``report["trust"]`` and draw ``trust.png`` when the run has confidences; the policy
    is the run's ``--trust`` (``report["config"]["trust"]``)."""
    path = (report.get("config") or {}).get("trust")
    policy = read_policy(path) if path else None
    within = policy.agree_within if policy is not None else AGREE_WITHIN
    section = trust_section(meta_eval_decisions(dataset, items, predictions, within), policy)
    if not section:
        return None
    report["trust"] = section
    return trust_plot(section, out / "trust.png")
