"""The meta-evaluation's ``report.md`` as a model: :class:`ReportPage` holds every figure of
the page as text, :func:`page` builds it from a run's ``report.json`` dict, and the templates
``eval/metaeval/templates/report.md.j2`` (a judged run) and ``scores_only.md.j2``
(``--scores-only``) lay it out (:func:`eval.kit.render.render`).

Sections written by other modules (the public set's published figures, the metric comparison,
the quoted baselines, the pairwise metrics, trust) arrive as their Markdown lines.

Example:
    >>> p = page({"dataset": "csv", "data": "d.csv", "n_items": 2, "n_predicted": 2,
    ...     "n_errors": 0, "config": {}, "targets": {"appeal": {"spearman": 0.5, "n": 2}}})
    >>> p.agreement.rows[0][:2], p.memory.split(":")[0]
    (['appeal', '0.500'], 'No memory')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from eval.kit.render import Table
from eval.kit.stats import ci_text
from eval.metaeval import compare_report
from eval.metaeval.public_sets import markdown_lines
from eval.metaeval.quoted import baseline_lines
from eval.trust.report import trust_lines
from judge.judged_by import MADE_UP
from judge.judged_by import markdown_lines as judge_lines

COLS = ("spearman", "kendall", "pearson", "mae", "within1", "n")
_YES_NO: dict[Any, str] = {True: "yes", False: "no"}


def _f(v: Any) -> str:
    if v is None:
        return "–"
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def _ci(m: dict, key: str) -> str:
    text = ci_text((m.get("ci95") or {}).get(key))
    return f" {text}" if text else ""


def _cell(v: Any) -> str:
    """A table cell: no pipes or line breaks from data."""
    return str(v).replace("|", "\\|").replace("\n", " ")


def _cov(m: dict) -> str:
    """``scored/total`` items (the judge may abstain)."""
    total = m.get("n_total")
    return f"{m.get('n', 0)}/{total}" if total is not None else _f(m.get("n"))


def memory_line(config: dict) -> str:
    """Which exemplars calibrated the judge, in words."""
    cv = " (leave-one-group-out: each item's group left out)" if config.get("cv") else ""
    if config.get("memory_from"):
        return f"Memory built from `{config['memory_from']}`{cv}."
    store = (config.get("settings") or {}).get("memory_dir")
    if config.get("memory_dir") or (store and not str(store).endswith("no-memory")):
        return f"Memory: the store `{config.get('memory_dir') or store}` (--memory-dir)."
    if config.get("url"):
        return "Memory: the service's own."
    return "No memory: zero-shot (give --cv lopo or --memory-from to calibrate on labels)."


class Unscored(BaseModel):
    """Why ``n`` labelled items of a target have no prediction."""

    target: str
    n: Any
    reason: str


class SliceSection(BaseModel):
    """One slice key: its table, or None when no group had the 3 scored items it needs."""

    key: str
    table: Table | None


class EditSection(BaseModel):
    """Edit success against the humans, with the paper's reference figures."""

    threshold: Any
    agreement: str
    coverage: Any
    judge_rate: str
    human_rate: str
    source: str
    reference: Table


class ReportPage(BaseModel):
    """Everything ``report.md`` shows, as text (see the module docstring)."""

    dataset: str
    data: str
    n_items: Any
    n_predicted: Any = None
    n_errors: Any = None
    memory: str = ""
    judge: list[str] = []
    made_up: str | None = None
    agreement: Table = Table(head=[], rows=[])
    macro_rows: list[list[str]] = []
    unscored: list[Unscored] | None = None
    skipped: list[str] = []
    memory_left_out: list[str] = []
    own_group: list[str] = []
    best_iqa: Table | None = None
    humans: Table | None = None
    objective: Table | None = None
    reference: Table | None = None
    reference_objective: Any = None
    ablation_kind: str = ""
    ablation: Table | None = None
    published: list[str] = []
    compared: list[str] = []
    quoted: list[str] = []
    slices: list[SliceSection] = []
    pairwise: str | None = None
    edit: EditSection | None = None
    trust: list[str] = []
    plots: list[str] = []
    scores_files: str = ""


def _best_iqa(report: dict) -> Table | None:
    best = (report.get("baselines") or {}).get("best_iqa")
    if not best:
        return None
    margin = (report.get("baselines") or {}).get("margin") or {}
    rows = []
    for t, b in best.items():
        m = report["targets"].get(t, {})
        g = margin.get(t) or {}
        lo, hi = g.get("ci95") or [None, None]
        gap = (
            f"{_f(g.get('margin'))} [{lo:.2f}, {hi:.2f}] vs {g['model']}"
            if g.get("margin") is not None and lo is not None and hi is not None
            else "–"
        )
        excl = _YES_NO.get(g.get("ci_excludes_zero"), "–")
        rows.append([t, f"{_f(m.get('spearman'))}{_ci(m, 'spearman')} ({_cov(m)})",
                     f"{_f(b['spearman'])} {b['model']}", gap, excl])  # fmt: skip
    head = ["target", "judge (coverage)", "best IQA (all items)", "margin on scored items",
            "CI excludes 0"]  # fmt: skip
    return Table(head=head, rows=rows)


def _humans(report: dict) -> Table | None:
    humans = report.get("humans") or {}
    if not humans:
        return None
    rows = []
    for t, h in humans.items():
        b, a = h["baseline"], h["inter_rater"]
        rows.append([t, _f(b.get("spearman")), _f(b.get("mae")), _f(b.get("within1")),
                     _f(a.get("alpha_interval")), str(a["raters"])])  # fmt: skip
    head = ["target", "spearman", "mae", "within1", "Krippendorff α (interval)", "raters"]
    return Table(head=head, rows=rows)


def _objective(report: dict) -> Table | None:
    obj = report.get("objective") or {}
    rows = [[side, _f(m.get("accuracy")), _f(m.get("f1")), str(m["n"]), str(m["unscored"])]
            for side, m in obj.items()]  # fmt: skip
    head = ["side", "accuracy", "f1", "n", "unscored"]
    return Table(head=head, rows=rows) if obj else None


def _slices(slices: dict) -> list[SliceSection]:
    """One table per slice key, one row per (target, group): well-formed for any group size."""
    out = []
    for key, per_target in slices.items():
        rows = [[_cell(t), _cell(g), _f(m.get("n")), _f(m.get("spearman")), _f(m.get("mae"))]
                for t, groups in per_target.items() for g, m in groups.items()]  # fmt: skip
        head = ["target", "group", "n", "spearman", "mae"]
        table = Table(head=head, rows=rows) if rows else None
        out.append(SliceSection(key=_cell(key), table=table))
    return out


def _edit(report: dict) -> EditSection | None:
    e = report.get("edit")
    if not e:
        return None
    ref = e["reference"]
    rows = [[c, str(v), str(ref["human_vs_human"][c])]
            for c, v in ref["judge_vs_human_spearman"].items()]  # fmt: skip
    head = ["criterion", "judge vs human ρ", "human vs human ρ"]
    return EditSection(threshold=e["threshold"], agreement=_f(e["success_agreement"]),
                       coverage=e["coverage"], judge_rate=_f(e["judge_success_rate"]),
                       human_rate=_f(e["human_success_rate"]), source=ref["source"],
                       reference=Table(head=head, rows=rows))  # fmt: skip


def _pairwise(report: dict) -> str | None:
    if not report.get("pairwise"):
        return None
    from eval.leaderboards.meta import metrics_markdown

    return metrics_markdown(report["pairwise"])


def _error_table(first: str, rows: dict[str, dict], fmt: Callable[[Any], str]) -> Table:
    """One row per setting (reference runs) or variant (ablation): its mae, within1 and
    spearman, each written by ``fmt``."""
    cols = ("mae", "within1", "spearman")
    return Table(
        head=[first, *cols], rows=[[n, *(fmt(m[c]) for c in cols)] for n, m in rows.items()]
    )


def page(report: dict) -> ReportPage:
    """The page of a run's ``report.json`` dict."""
    plots = list(report.get("plots") or [])
    if report.get("scores_only"):
        files = ", ".join(f"`{f}`" for f in report.get("scores_files") or []) or "none"
        return ReportPage(dataset=report["dataset"], data=report["data"],
                          n_items=report["n_items"], scores_files=files,
                          compared=compare_report.markdown_lines(report),
                          quoted=baseline_lines(report), plots=plots)  # fmt: skip
    config = report["config"]
    targets = [
        [t, *(_f(m.get(c)) + (_ci(m, c) if c in ("spearman", "mae") else "") for c in COLS[:-1]),
         _cov(m)]
        for t, m in report["targets"].items()
    ]  # fmt: skip
    macro = [[f"**macro {mod}**", *(_f(m.get(c)) for c in COLS[:-1])]
             for mod, m in report.get("macro", {}).items()]  # fmt: skip
    unscored = report.get("unscored") or {}
    reasons = [Unscored(target=t, n=r["n"], reason=r["reason"])
               for t, rs in unscored.items() for r in rs[:5]]  # fmt: skip
    ref, abl = report.get("reference"), report.get("ablation")
    reference = _error_table("setting", ref["subjective"], str) if ref else None
    ablation = _error_table("variant", abl["rows"], _f) if abl else None
    return ReportPage(
        dataset=report["dataset"],
        data=report["data"],
        n_items=report["n_items"],
        n_predicted=report["n_predicted"],
        n_errors=report["n_errors"],
        memory=memory_line(config),
        judge=judge_lines(config.get("judged_by")),
        made_up=MADE_UP if (config.get("judged_by") or {}).get("made_up") else None,
        agreement=Table(head=["target", *COLS], rows=targets),
        macro_rows=macro,
        unscored=reasons if unscored else None,
        skipped=report.get("skipped") or [],
        memory_left_out=report.get("memory_left_out") or [],
        own_group=report.get("own_group_exemplars") or [],
        best_iqa=_best_iqa(report),
        humans=_humans(report),
        objective=_objective(report),
        reference=reference,
        reference_objective=ref["objective"]["accuracy"] if ref else None,
        ablation_kind=abl["kind"] if abl else "",
        ablation=ablation,
        published=markdown_lines(report),
        compared=compare_report.markdown_lines(report),
        quoted=baseline_lines(report),
        slices=_slices(report.get("slices") or {}),
        pairwise=_pairwise(report),
        edit=_edit(report),
        trust=trust_lines(report.get("trust") or {}),
        plots=plots,
    )
