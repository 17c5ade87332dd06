"""``report.md``: the study report as readable Markdown tables.

Example:
    >>> md = render_markdown({"study": {"name": "demo", "n_items": 0, "n_lines": 0,
    ...     "prompters": [], "backends": [], "categories": [], "tasks": 0},
    ...     "options": {"bootstrap": 0, "permutations": 0, "seed": 0}, "notes": [],
    ...     "cells": [], "per_primitive": [], "consistency": {}, "groups": [],
    ...     "leaderboard": {}, "excluded": {"total": 0, "aggregated": 0, "by_status": {},
    ...     "by_reason": {}}})
    >>> md.splitlines()[0]
    '# Study report: demo'
"""

from __future__ import annotations

from collections.abc import Sequence

from eval.kit.stats import ci_text
from eval.trust.report import trust_lines
from judge.judged_by import markdown_lines as judge_lines

LABELS = {
    "subjective_prompt": "subj. prompt (1–5)",
    "subjective_image": "subj. image (1–5)",
    "objective_prompt_rate": "obj. prompt (%)",
    "objective_image_rate": "obj. image (%)",
}


def _fmt(x: float | None, nd: int = 2) -> str:
    return "–" if x is None else f"{x:.{nd}f}"


def _est(m: dict, key: str) -> str:
    if m.get("mean") is None:
        return "–"
    nd = 2 if key.startswith("subjective") else 1
    ci = m.get("ci95")
    return f"{m['mean']:.{nd}f}" + (f" {ci_text(ci, nd)}" if ci else "")


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return [*out, ""]


def _cells(report: dict) -> list[str]:
    out = []
    for cat in report["study"]["categories"]:
        rows = [
            [c["prompter"], c["backend"], c["n_tasks"], *(_est(c[k], k) for k in LABELS)]
            for c in report["cells"]
            if c["category"] == cat
        ]
        out += [f"### Category {cat}", ""]
        out += _table(["prompter", "backend", "tasks", *LABELS.values()], rows)
    return out


def _consistency(report: dict) -> list[str]:
    rows, pairs = [], []
    for measure, c in report["consistency"].items():
        w = _fmt(c["w"], 3) if c["w"] is not None else f"– ({c['reason']})"
        rows.append([LABELS[measure], w, _fmt(c["p_value"], 4), c["n_prompters"], c["n_backends"]])
        for s in c["spearman"]:
            rho = _fmt(s["rho"], 3) if s["rho"] is not None else f"– ({s['reason']})"
            pairs.append([LABELS[measure], f"{s['a']} / {s['b']}", rho])
    out = _table(["measure", "Kendall's W", "p (χ²)", "prompters", "backends"], rows)
    if pairs:
        out += _table(["measure", "backends", "Spearman ρ"], pairs)
    by_cat = [
        [LABELS[measure], cat, _fmt(w["w"], 3) if w["w"] is not None else f"– ({w['reason']})",
         _fmt(w["p_value"], 4), w["n_prompters"]]
        for measure, c in report["consistency"].items()
        for cat, w in (c.get("by_category") or {}).items()
    ]  # fmt: skip
    if by_cat:
        out += ["Within each category:", ""]
        out += _table(["measure", "category", "Kendall's W", "p (χ²)", "prompters"], by_cat)
    return out


def _groups(report: dict) -> list[str]:
    rows = [
        [
            g["comparison"],
            g["backend"],
            LABELS[g["measure"]],
            _fmt(g["difference"], 3),
            _fmt(g["p_value"], 4),
            g["n_pairs"],
        ]
        for g in report["groups"]
    ]
    if not rows:
        return ["No comparison applies: each needs prompters on both sides.", ""]
    head = ["comparison", "backend", "measure", "difference (1st − 2nd)", "p", "pairs"]
    return _table(head, rows)


def _leaderboards(report: dict) -> list[str]:
    out = []
    for measure, board in report["leaderboard"].items():
        out += [f"### {LABELS[measure]}", ""]
        if not board.get("models"):
            out += [f"No leaderboard: {board.get('reason', 'no votes')}.", ""]
            continue
        rows = [
            [
                m["rank"],
                m["model"],
                _fmt(m["score"]),
                ci_text(m["ci95"]) or "–",
                f"{m['wins']}-{m['losses']}-{m['ties']}",
            ]
            for m in board["models"]
        ]
        out += _table(["rank", "prompter", "BT score", "95% CI", "W-L-T"], rows)
    return out


def _primitives(report: dict) -> list[str]:
    rows = [
        [
            r["prompter"],
            r["backend"],
            r["primitive"],
            _fmt(r["prompt_rate"], 1),
            _fmt(r["image_rate"], 1),
            f"{r['n_prompt']}/{r['n_image']}",
        ]
        for r in report["per_primitive"]
    ]
    head = ["prompter", "backend", "primitive", "prompt %", "image %", "checks (p/i)"]
    return _table(head, rows) if rows else ["No checks were recorded.", ""]


def _excluded(report: dict) -> list[str]:
    ex = report["excluded"]
    out = [f"{ex['aggregated']} items aggregated, {ex['total']} left out.", ""]
    rows = [[s, r, n] for s, reasons in ex["by_reason"].items() for r, n in reasons.items()]
    return out + (_table(["status", "reason", "items"], rows) if rows else [])


def render_markdown(report: dict) -> str:
    """The whole report as Markdown."""
    st, opt = report["study"], report["options"]
    out = [
        f"# Study report: {st.get('name') or 'unnamed study'}",
        "",
        f"{st['n_items']} items ({st['tasks']} tasks, {len(st['prompters'])} prompters, "
        f"{len(st['backends'])} backends). Intervals: 95% bootstrap over tasks "
        f"({opt['bootstrap']} resamples); permutation tests with {opt['permutations']} "
        f"sign flips at most; seed {opt['seed']}.",
        *judge_lines(report.get("judge")),
        "",
    ]
    out += [f"> note: {n}" for n in report["notes"]] + ([""] if report["notes"] else [])
    out += ["## Means per prompter, backend and category", "", *_cells(report)]
    out += ["## Do backends rank prompters alike?", "", *_consistency(report)]
    out += ["## Group comparisons (paired over tasks)", "", *_groups(report)]
    out += ["## Bradley–Terry leaderboards (pseudo-pairwise per task and backend)", ""]
    out += _leaderboards(report)
    out += ["## Satisfaction per primitive", "", *_primitives(report)]
    out += ["## Left out of the aggregates", "", *_excluded(report)]
    out += [*trust_lines(report.get("trust") or {})[1:], ""] if report.get("trust") else []
    if report.get("plots"):
        out += ["## Plots", ""] + [f"![{p}]({p})" for p in report["plots"]] + [""]
    return "\n".join(out)
