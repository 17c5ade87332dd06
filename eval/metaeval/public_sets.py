"""The report section of a public set: the judge's figures as the set's paper reports them,
overall and per slice, with the paper's published baselines beside them (quoted).

Ratings sets (``kind = "ratings"``, e.g. GenAI-Bench) get, per target, Spearman ρ, Kendall τ-b
and Pearson r with bootstrap intervals (:func:`eval.metaeval.stats.regression_metrics`) and
the tie-calibrated pairwise accuracy (:mod:`eval.kit.stats.pairwise`) with a bootstrap
interval over items at the chosen tie threshold; then the same per slice group (a skill tag).
Preference sets (``kind = "preferences"``) get the accuracy their ``extra_report`` names
(``metric``: HPD v2's ranking accuracy, Pick-a-Pic's accuracy with ties).

Example::

    section = public_set_section(dataset, items, predictions, n_boot=1000, seed=0)
    section["figures"]["alignment"]["pairwise_accuracy"]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from eval.datasets.base import Dataset, EvalItem
from eval.kit.stats import bootstrap_ci, pairwise_accuracy, tie_calibrated_accuracy
from eval.metaeval.stats import classification_metrics, regression_metrics

MAX_BOOT_PAIRS = 400
"""Above this many items, a metric with many distinct values (each resample then visits every
pair: n² work) gets a tenth of the resamples for its pairwise accuracy's interval; a judge's
few score values are counted by groups, fast at any size."""
MANY_VALUES = 64


def rating_figures(
    pred: list[float | None], human: list[float], *, n_boot: int, seed: int
) -> dict[str, Any]:
    """Correlations with intervals and the tie-calibrated pairwise accuracy with its own."""
    m = regression_metrics(pred, human, n_boot=n_boot, seed=seed)
    keep = [(p, h) for p, h in zip(pred, human, strict=True) if p is not None]
    ps = np.array([p for p, _ in keep], dtype=float)
    hs = np.array([h for _, h in keep], dtype=float)
    acc, eps = tie_calibrated_accuracy(ps, hs)
    ci: list[float | None] = [None, None]
    if acc is not None and n_boot > 0:
        slow = len(ps) > MAX_BOOT_PAIRS and len(np.unique(ps)) > MANY_VALUES
        boots = max(50, n_boot // 10) if slow else n_boot
        lo, hi = bootstrap_ci(
            lambda a, b: pairwise_accuracy(a, b, eps) or float("nan"),
            ps,
            hs,
            n_boot=boots,
            seed=seed,
        )
        ci = [lo if np.isfinite(lo) else None, hi if np.isfinite(hi) else None]
    m["pairwise_accuracy"] = acc
    m["tie_epsilon"] = eps
    m["ci95"]["pairwise_accuracy"] = ci
    return m


def recomputed(
    dataset: Dataset, data: Path, items: list[EvalItem], preds: dict[str, dict], seed: int
) -> dict[str, dict[str, Any]]:
    """Every published metric whose per-item scores ship with the set, against the humans on
    the items the judge scored (no interval: a comparison on the same items, not a claim)."""
    scores = dataset.published_scores(data) if hasattr(dataset, "published_scores") else {}
    if not scores or not dataset.targets:
        return {}
    t = dataset.targets[0].name
    scored = [
        i
        for i in items
        if t in i.labels and ((preds.get(i.id) or {}).get("scores") or {}).get(t) is not None
    ]
    out: dict[str, dict[str, Any]] = {}
    for metric, by_item in sorted(scores.items()):
        rows = [(by_item[i.id], i.labels[t]) for i in scored if i.id in by_item]
        fig = rating_figures([m for m, _ in rows], [h for _, h in rows], n_boot=0, seed=seed)
        out[metric] = {
            k: fig[k] for k in ("spearman", "kendall", "pearson", "pairwise_accuracy", "n")
        }
    return out


def checklist_section(
    dataset: Dataset, items: list[EvalItem], preds: dict[str, dict], *, n_boot: int, seed: int
) -> dict[str, Any]:
    """The judge's checklist verdicts against the set's element labels: accuracy and F1 over
    every element, then per element type."""
    if not hasattr(dataset, "checkpoint_types"):
        return {}
    types = dataset.checkpoint_types()
    groups: dict[str, tuple[list, list]] = {}
    for item in items:
        said = ((preds.get(item.id) or {}).get("objective") or {}).get("image") or {}
        for cid, gold in (item.objective.get("image") or {}).items():
            for key in ("all", f"type: {types.get(item.id, {}).get(cid, 'other')}"):
                p, g = groups.setdefault(key, ([], []))
                p.append(said.get(cid))
                g.append(gold)
    return {
        key: classification_metrics(p, g, n_boot=n_boot if key == "all" else 0, seed=seed)
        for key, (p, g) in sorted(groups.items(), key=lambda kv: kv[0] != "all")
    }


def public_set_section(
    dataset: Dataset,
    items: list[EvalItem],
    predictions: list[dict],
    *,
    n_boot: int,
    seed: int,
    data: Path | None = None,
) -> dict[str, Any]:
    """``{"name", "title", "kind", "figures", "slices", "baselines", "baselines_checked",
    "recomputed", "checklist"}`` for the report."""
    preds = {p["id"]: p for p in predictions}
    kind = getattr(dataset, "kind", "ratings")
    figures: dict[str, dict[str, Any]] = {}
    slices: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
    if kind == "ratings":
        by_id = {i.id: i for i in items}
        sets = dataset.slice_sets(items) if hasattr(dataset, "slice_sets") else {}
        for t in dataset.targets:
            labelled = [i for i in items if t.name in i.labels]
            pred = [((preds.get(i.id) or {}).get("scores") or {}).get(t.name) for i in labelled]
            human = [i.labels[t.name] for i in labelled]
            figures[t.name] = rating_figures(pred, human, n_boot=n_boot, seed=seed)
            for key, groups in sets.items():
                per = slices.setdefault(key, {}).setdefault(t.name, {})
                for group, ids in groups.items():
                    its = [by_id[i] for i in ids if t.name in by_id[i].labels]
                    p = [((preds.get(i.id) or {}).get("scores") or {}).get(t.name) for i in its]
                    per[group] = rating_figures(
                        p, [i.labels[t.name] for i in its], n_boot=n_boot, seed=seed
                    )
    baselines = [b.as_dict() for b in dataset.baselines()]  # type: ignore[attr-defined]  # checked with hasattr by the caller
    return {
        "name": dataset.name,
        "title": getattr(dataset, "title", dataset.name),
        "kind": kind,
        "figures": figures,
        "slices": slices,
        "baselines": baselines,
        "baselines_checked": dataset.baselines_checked(),  # type: ignore[attr-defined]  # checked with hasattr by the caller
        "recomputed": recomputed(dataset, data, items, preds, seed) if data else {},
        "checklist": checklist_section(dataset, items, preds, n_boot=n_boot, seed=seed),
    }


def judge_figure(report: dict[str, Any], metric: str, target: str | None) -> dict[str, Any]:
    """The judge's value, interval and n for a baseline's metric and target.

    A quote on a ratings set without a target is on other items than the judge's (its note
    says why): nothing is printed beside it. A preference set's accuracy has no target.
    """
    section = report.get("public_set") or {}
    figures = section.get("figures") or {}
    fig = figures.get(target or "", {})
    if metric in fig:
        lo, hi = (fig.get("ci95") or {}).get(metric, [None, None])
        return {"value": fig[metric], "ci95": [lo, hi], "n": fig.get("n")}
    pref = report.get("preferences") or {}
    if metric in pref:
        return {"value": pref[metric], "ci95": pref.get("ci95", [None, None]), "n": pref.get("n")}
    return {"value": None, "ci95": [None, None], "n": None}


def _f(v: Any) -> str:
    return "–" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))


def _with_ci(value: Any, ci: list[Any] | None) -> str:
    lo, hi = ci or [None, None]
    return _f(value) + (f" [{lo:.2f}, {hi:.2f}]" if lo is not None and hi is not None else "")


def markdown_lines(report: dict[str, Any]) -> list[str]:
    """The section as Markdown: the judge's figures, per slice, the checklist and the
    published metrics recomputed on the judge's items (the quoted baselines are
    :func:`eval.metaeval.quoted.baseline_lines`)."""
    section = report.get("public_set")
    if not section:
        return []
    out = ["", f"## {section['title']}", ""]
    cols = ("spearman", "kendall", "pearson", "pairwise_accuracy")
    if section["figures"]:
        out += [
            "The judge against the mean human rating (95% bootstrap CI; pairwise accuracy with "
            "the tie threshold that maximises it, as the set's paper computes it).",
            "",
            "| target | slice | " + " | ".join(cols) + " | n |",
            "|---" * (len(cols) + 3) + "|",
        ]
        for t, fig in section["figures"].items():
            cells = [_with_ci(fig.get(c), (fig.get("ci95") or {}).get(c)) for c in cols]
            out.append(f"| {t} | all | " + " | ".join(cells) + f" | {_f(fig.get('n'))} |")
            for key, per_target in section["slices"].items():
                for group, g in (per_target.get(t) or {}).items():
                    cells = [_f(g.get(c)) for c in cols]
                    out.append(
                        f"| {t} | {key}: {group} | " + " | ".join(cells) + f" | {_f(g.get('n'))} |"
                    )
    pref = report.get("preferences")
    if pref and pref.get("metric", "ranking_accuracy") != "ranking_accuracy":
        out += [
            f"{pref['rule']}: {_with_ci(pref[pref['metric']], pref['ci95'])} over {pref['n']} "
            f"of {pref['n_total']} pairs; judge tie rate {_f(pref['judge_tie_rate'])}, users' "
            f"tie rate {_f(pref.get('human_tie_rate'))}.",
        ]
    elif pref:
        out += [
            f"Ranking accuracy (image pairs the judge does not invert, mean over prompts; a "
            f"pair the humans tie counts as agreement, a judge tie as half): "
            f"{_with_ci(pref['ranking_accuracy'], pref['ci95'])} over {pref['n']} of "
            f"{pref['n_total']} pairs in {pref['prompts']} prompts; judge tie rate "
            f"{_f(pref['judge_tie_rate'])}.",
        ]
    checks = section.get("checklist") or {}
    if checks:
        out += [
            "",
            "### Checklist verdicts against the element labels",
            "",
            "| elements | accuracy | f1 | n | unscored |",
            "|---|---|---|---|---|",
        ]
        for key, m in checks.items():
            out.append(
                f"| {key} | {_with_ci(m.get('accuracy'), (m.get('ci95') or {}).get('accuracy'))} "
                f"| {_f(m.get('f1'))} | {m['n']} | {m['unscored']} |"
            )
    again = section.get("recomputed") or {}
    if again and not report.get("comparison"):  # else the comparison shows them, and more
        judge: dict[str, Any] = next(iter(section["figures"].values()), {})
        out += [
            "",
            "### Published metrics on the same items (recomputed from their per-image scores)",
            "",
            "| system | spearman | kendall | pearson | pairwise_accuracy | n |",
            "|---|---|---|---|---|---|",
            "| **judge** | "
            + " | ".join(_f(judge.get(c)) for c in cols)
            + f" | {_f(judge.get('n'))} |",
        ]
        for metric, fig in again.items():
            out.append(
                f"| {metric} | " + " | ".join(_f(fig.get(c)) for c in cols) + f" | {_f(fig['n'])} |"
            )
    return out
