"""Write a run's ``report.json``, ``report.md`` and plots into its output folder.

Example::

    write_report(report, items, predictions, dataset, Path("runs/dev"))
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eval.datasets.base import Dataset, EvalItem
from eval.kit.stats import ci_text
from eval.metaeval import compare_report, plots
from eval.metaeval.evaluate import pairs_by_target
from eval.metaeval.public_sets import markdown_lines
from eval.metaeval.quoted import baseline_lines
from eval.metaeval.trust_report import add_trust
from eval.trust.report import trust_lines
from judge.judged_by import MADE_UP
from judge.judged_by import markdown_lines as judge_lines

COLS = ("spearman", "kendall", "pearson", "mae", "within1", "n")


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


def _section(title: str, columns: list[str]) -> list[str]:
    """A report section's heading and the head of its table.

    Example:
        >>> _section("Objective checks", ["side", "n"])
        ['', '## Objective checks', '', '| side | n |', '|---|---|']
    """
    return ["", f"## {title}", "", "| " + " | ".join(columns) + " |", "|---" * len(columns) + "|"]


def _slices(slices: dict) -> list[str]:
    """One table per slice key, one row per (target, group): well-formed for any group size."""
    out: list[str] = []
    for key, per_target in slices.items():
        rows = [(t, g, m) for t, groups in per_target.items() for g, m in groups.items()]
        out += ["", f"## Slices by {_cell(key)}", ""]
        if not rows:
            out.append("No group has the 3 scored items a slice needs.")
            continue
        out += ["| target | group | n | spearman | mae |", "|---|---|---|---|---|"]
        for t, g, m in rows:
            out.append(
                f"| {_cell(t)} | {_cell(g)} | {_f(m.get('n'))} | {_f(m.get('spearman'))} | "
                f"{_f(m.get('mae'))} |"
            )
        out.append("")
        out.append("Groups with fewer than 3 scored items are left out.")
    return out


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


def made_up_note(report: dict) -> list[str]:
    """Said again beside published figures when the mock judged (its numbers are made up)."""
    if not (report["config"].get("judged_by") or {}).get("made_up"):
        return []
    return [f"> **Made-up numbers:** {MADE_UP}.", ""]


def unscored_lines(unscored: dict) -> list[str]:
    """Why some labelled items have no prediction, per target."""
    if not unscored:
        return []
    out = ["", "## Items without a prediction, and why", ""]
    for target, reasons in unscored.items():
        for r in reasons[:5]:
            out.append(f"- **{target}** ({r['n']} items): {r['reason']}")
    return out


def skipped_lines(report: dict) -> list[str]:
    """Items and exemplars left out because an image could not be read, each by its line."""
    skipped, left_out = report.get("skipped") or [], report.get("memory_left_out") or []
    if not skipped and not left_out:
        return []
    out = ["", "## Left out: images that could not be read", ""]
    out += [f"- scoring: {line}" for line in skipped]
    out += [f"- {line}" for line in left_out]
    return out


def scores_only_markdown(report: dict) -> str:
    """The report of a ``--scores-only`` run: the comparison, the quoted baselines, plots."""
    files = ", ".join(f"`{f}`" for f in report.get("scores_files") or []) or "none"
    out = [
        f"# Metric comparison: {report['dataset']}",
        "",
        f"Data: `{report['data']}` — {report['n_items']} items. No judge ran (--scores-only): "
        f"the set's published metrics and the metrics of --scores ({files}).",
    ]
    out += compare_report.markdown_lines(report)
    out += baseline_lines(report)
    if report.get("plots"):
        out += ["", "## Plots", ""] + [f"![{p}]({p})" for p in report["plots"]]
    return "\n".join(out) + "\n"


def markdown(report: dict) -> str:
    """The report as Markdown tables."""
    if report.get("scores_only"):
        return scores_only_markdown(report)
    out = [
        f"# Meta-evaluation: {report['dataset']}",
        "",
        f"Data: `{report['data']}` — {report['n_items']} items, {report['n_predicted']} "
        f"predicted, {report['n_errors']} errors. {memory_line(report['config'])}",
        *judge_lines(report["config"].get("judged_by")),
        "",
        "## Agreement with human labels (95% bootstrap CI; n = scored/total items)",
        "",
        "| target | " + " | ".join(COLS) + " |",
        "|---" * (len(COLS) + 1) + "|",
    ]
    for t, m in report["targets"].items():
        cells = [_f(m.get(c)) + (_ci(m, c) if c in ("spearman", "mae") else "") for c in COLS[:-1]]
        cells.append(_cov(m))
        out.append(f"| {t} | " + " | ".join(cells) + " |")
    for mod, m in report.get("macro", {}).items():
        out.append(f"| **macro {mod}** | " + " | ".join(_f(m.get(c)) for c in COLS[:-1]) + " | |")
    out += unscored_lines(report.get("unscored") or {})
    out += skipped_lines(report)
    leaked = report.get("own_group_exemplars") or []
    if leaked:
        out += [
            "",
            f"**{len(leaked)} item(s) were calibrated on their own labels** (e.g. "
            f"`{leaked[0]}`): their results used exemplars that are items of their own group "
            "in this split, so the memory holds the scored split. Score through `--url` with "
            "`--cv lopo` (the service's exemplars must carry the group in `meta` under the "
            "dataset's group key), or use a memory built from another split.",
        ]
    best = (report.get("baselines") or {}).get("best_iqa")
    if best:
        margin = (report.get("baselines") or {}).get("margin") or {}
        out += [
            "",
            "## Against published IQA models (Spearman)",
            "",
            *made_up_note(report),
            "Judge with its coverage (scored/total); best IQA model on all items; then, on the "
            "items the judge scored, the best IQA model there and the paired-bootstrap margin "
            "(judge − that model).",
            "",
            "| target | judge (coverage) | best IQA (all items) | margin on scored items "
            "| CI excludes 0 |",
            "|---|---|---|---|---|",
        ]
        for t, b in best.items():
            m = report["targets"].get(t, {})
            g = margin.get(t) or {}
            lo, hi = g.get("ci95") or [None, None]
            gap = (
                f"{_f(g.get('margin'))} [{lo:.2f}, {hi:.2f}] vs {g['model']}"
                if g.get("margin") is not None and lo is not None and hi is not None
                else "–"
            )
            excl = {True: "yes", False: "no"}.get(g.get("ci_excludes_zero"), "–")
            out.append(
                f"| {t} | {_f(m.get('spearman'))}{_ci(m, 'spearman')} ({_cov(m)}) | "
                f"{_f(b['spearman'])} {b['model']} | {gap} | {excl} |"
            )
    humans = report.get("humans") or {}
    if humans:
        out += _section(
            "Human baseline (each rater vs the mean of the others)",
            ["target", "spearman", "mae", "within1", "Krippendorff α (interval)", "raters"],
        )
        for t, h in humans.items():
            b, a = h["baseline"], h["inter_rater"]
            out.append(
                f"| {t} | {_f(b.get('spearman'))} | {_f(b.get('mae'))} | "
                f"{_f(b.get('within1'))} | {_f(a.get('alpha_interval'))} | {a['raters']} |"
            )
    obj = report.get("objective") or {}
    if obj:
        out += _section("Objective checks", ["side", "accuracy", "f1", "n", "unscored"])
        for side, m in obj.items():
            out.append(
                f"| {side} | {_f(m.get('accuracy'))} | {_f(m.get('f1'))} | {m['n']} | "
                f"{m['unscored']} |"
            )
    ref = report.get("reference")
    if ref:
        out += _section(
            "Reference figures from the paper", ["setting", "mae", "within1", "spearman"]
        )
        for name, m in ref["subjective"].items():
            out.append(f"| {name} | {m['mae']} | {m['within1']} | {m['spearman']} |")
        out.append(f"| objective accuracy | {ref['objective']['accuracy']} | | |")
    abl = report.get("ablation")
    if abl:
        out += _section(f"Ablation: {abl['kind']}", ["variant", "mae", "within1", "spearman"])
        for name, r in abl["rows"].items():
            out.append(f"| {name} | {_f(r['mae'])} | {_f(r['within1'])} | {_f(r['spearman'])} |")
    published = markdown_lines(report)  # ["", "## <the set's title>", "", ...]
    out += published[:3] + made_up_note(report) + published[3:] if published else []
    out += compare_report.markdown_lines(report)
    quoted = baseline_lines(report)  # ["", "### Published baselines ...", "", ...]
    out += quoted[:3] + made_up_note(report) + quoted[3:] if quoted else []
    out += _slices(report.get("slices") or {})
    if report.get("pairwise"):
        from eval.leaderboards.meta import metrics_markdown

        out += [
            "",
            "## Pairwise judging against the human majority",
            "",
            metrics_markdown(report["pairwise"]),
        ]
    if report.get("edit"):
        e = report["edit"]
        ref = e["reference"]
        out += [
            "",
            f"## Edit success (every criterion ≥ {e['threshold']})",
            "",
            f"Agreement with human success: {_f(e['success_agreement'])} over "
            f"{e['coverage']} items; success rate judge {_f(e['judge_success_rate'])}, "
            f"humans {_f(e['human_success_rate'])}.",
            "",
            f"Reference ({ref['source']}):",
            "",
            "| criterion | judge vs human ρ | human vs human ρ |",
            "|---|---|---|",
            *[
                f"| {c} | {v} | {ref['human_vs_human'][c]} |"
                for c, v in ref["judge_vs_human_spearman"].items()
            ],
        ]
    out += trust_lines(report.get("trust") or {})
    if report.get("plots"):
        out += ["", "## Plots", ""] + [f"![{p}]({p})" for p in report["plots"]]
    return "\n".join(out) + "\n"


def write_report(
    report: dict, items: list[EvalItem], predictions: list[dict], dataset: Dataset, out: Path
) -> None:
    """report.json, report.md and PNG plots."""
    pairs = pairs_by_target(dataset, items, {p["id"]: p for p in predictions})
    made = (
        []
        if report.get("scores_only")
        else [plots.scatter(pairs, out / "scatter.png", report["targets"])]
    )
    made += compare_report.system_plots(report, out)
    if report.get("objective"):
        made.append(plots.confusion(report["objective"], out / "objective_confusion.png"))
    if report.get("ablation"):
        made.append(plots.ablation_bars(report["ablation"], out / "ablation.png"))
    if report.get("calibration"):
        made.append(
            plots.calibration_curve(pairs, report["calibration"]["maps"], out / "calibration.png")
        )
    made.append(add_trust(report, items, predictions, dataset, out))
    report["plots"] = [p.name for p in made if p is not None]
    (out / "report.json").write_text(json.dumps(report, indent=2, allow_nan=False))
    (out / "report.md").write_text(markdown(report))
