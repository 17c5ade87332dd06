"""``report.md``: the study report as readable Markdown tables, from a page model
(:class:`StudyPage`, every figure as text) laid out by the template
``eval/studies/report/templates/report.md.j2``.

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
from typing import Any

from pydantic import BaseModel

from eval.kit.render import Table, render
from eval.kit.stats import ci_text
from eval.trust.report import trust_lines
from judge.judged_by import markdown_lines as judge_lines

LABELS = {
    "subjective_prompt": "subj. prompt (1–5)",
    "subjective_image": "subj. image (1–5)",
    "objective_prompt_rate": "obj. prompt (%)",
    "objective_image_rate": "obj. image (%)",
}


class Category(BaseModel):
    """The means of one task category: a row per prompter and backend."""

    name: str
    table: Table


class Consistency(BaseModel):
    """Whether backends rank prompters alike: Kendall's W overall, pairwise Spearman ρ
    between backends, and W within each category."""

    overall: Table
    pairs: Table | None = None
    by_category: Table | None = None


class Board(BaseModel):
    """One measure's Bradley–Terry leaderboard, or why there is none."""

    label: str
    table: Table | None = None
    reason: str = ""


class Excluded(BaseModel):
    """What the aggregates left out, by status and reason."""

    aggregated: Any
    total: Any
    table: Table | None = None


class StudyPage(BaseModel):
    """Everything ``report.md`` shows, as text (:func:`page` builds it)."""

    name: str
    n_items: Any
    tasks: Any
    n_prompters: int
    n_backends: int
    bootstrap: Any
    permutations: Any
    seed: Any
    judge: list[str]
    notes: list[str]
    categories: list[Category]
    consistency: Consistency
    groups: Table | None
    leaderboards: list[Board]
    primitives: Table | None
    excluded: Excluded
    trust: list[str] | None
    plots: list[str]


def _fmt(x: float | None, nd: int = 2) -> str:
    return "–" if x is None else f"{x:.{nd}f}"


def _est(m: dict, key: str) -> str:
    if m.get("mean") is None:
        return "–"
    nd = 2 if key.startswith("subjective") else 1
    ci = m.get("ci95")
    return f"{m['mean']:.{nd}f}" + (f" {ci_text(ci, nd)}" if ci else "")


def _rows(rows: Sequence[Sequence[object]]) -> list[list[str]]:
    return [[str(c) for c in r] for r in rows]


def _cells(report: dict) -> list[Category]:
    out = []
    for cat in report["study"]["categories"]:
        rows = [
            [c["prompter"], c["backend"], c["n_tasks"], *(_est(c[k], k) for k in LABELS)]
            for c in report["cells"]
            if c["category"] == cat
        ]
        head = ["prompter", "backend", "tasks", *LABELS.values()]
        out.append(Category(name=str(cat), table=Table(head=head, rows=_rows(rows))))
    return out


def _consistency(report: dict) -> Consistency:
    rows, pairs = [], []
    for measure, c in report["consistency"].items():
        w = _fmt(c["w"], 3) if c["w"] is not None else f"– ({c['reason']})"
        rows.append([LABELS[measure], w, _fmt(c["p_value"], 4), c["n_prompters"], c["n_backends"]])
        for s in c["spearman"]:
            rho = _fmt(s["rho"], 3) if s["rho"] is not None else f"– ({s['reason']})"
            pairs.append([LABELS[measure], f"{s['a']} / {s['b']}", rho])
    by_cat = [
        [LABELS[measure], cat, _fmt(w["w"], 3) if w["w"] is not None else f"– ({w['reason']})",
         _fmt(w["p_value"], 4), w["n_prompters"]]
        for measure, c in report["consistency"].items()
        for cat, w in (c.get("by_category") or {}).items()
    ]  # fmt: skip
    head = ["measure", "Kendall's W", "p (χ²)", "prompters", "backends"]
    pair_head = ["measure", "backends", "Spearman ρ"]
    cat_head = ["measure", "category", "Kendall's W", "p (χ²)", "prompters"]
    return Consistency(
        overall=Table(head=head, rows=_rows(rows)),
        pairs=Table(head=pair_head, rows=_rows(pairs)) if pairs else None,
        by_category=Table(head=cat_head, rows=_rows(by_cat)) if by_cat else None,
    )


def _groups(report: dict) -> Table | None:
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
    head = ["comparison", "backend", "measure", "difference (1st − 2nd)", "p", "pairs"]
    return Table(head=head, rows=_rows(rows)) if rows else None


def _leaderboards(report: dict) -> list[Board]:
    out = []
    for measure, board in report["leaderboard"].items():
        if not board.get("models"):
            out.append(Board(label=LABELS[measure], reason=board.get("reason", "no votes")))
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
        head = ["rank", "prompter", "BT score", "95% CI", "W-L-T"]
        out.append(Board(label=LABELS[measure], table=Table(head=head, rows=_rows(rows))))
    return out


def _primitives(report: dict) -> Table | None:
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
    return Table(head=head, rows=_rows(rows)) if rows else None


def _excluded(report: dict) -> Excluded:
    ex = report["excluded"]
    rows = [[s, r, n] for s, reasons in ex["by_reason"].items() for r, n in reasons.items()]
    table = Table(head=["status", "reason", "items"], rows=_rows(rows)) if rows else None
    return Excluded(aggregated=ex["aggregated"], total=ex["total"], table=table)


def page(report: dict) -> StudyPage:
    """The page of a study's ``report.json`` dict."""
    st, opt = report["study"], report["options"]
    return StudyPage(
        name=st.get("name") or "unnamed study",
        n_items=st["n_items"],
        tasks=st["tasks"],
        n_prompters=len(st["prompters"]),
        n_backends=len(st["backends"]),
        bootstrap=opt["bootstrap"],
        permutations=opt["permutations"],
        seed=opt["seed"],
        judge=judge_lines(report.get("judge")),
        notes=[str(n) for n in report["notes"]],
        categories=_cells(report),
        consistency=_consistency(report),
        groups=_groups(report),
        leaderboards=_leaderboards(report),
        primitives=_primitives(report),
        excluded=_excluded(report),
        trust=trust_lines(report.get("trust") or {})[1:] if report.get("trust") else None,
        plots=list(report.get("plots") or []),
    )


def render_markdown(report: dict) -> str:
    """The whole report as Markdown (:class:`StudyPage` in
    ``eval/studies/report/templates/report.md.j2``)."""
    return render("eval.studies.report", "report.md.j2", r=page(report))
