"""The campaign report as files: ``report.json``, ``report.md`` and PNG figures (matplotlib,
Agg backend) — the human leaderboard (:mod:`eval.leaderboards.plots` for votes), annotators'
validation accuracy against their median answer time (flagged ones marked), and judge–human
next to human–human agreement when the judge answered the same items.

Example::

    paths = write_report(report, Path("runs/c1-report"))
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from eval.campaigns import demographics
from eval.leaderboards.plots import write_plots


def annotator_plot(report: dict[str, Any], path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(6, 4))
    for flagged, colour, label in ((False, "#1b7837", "kept"), (True, "#b2182b", "flagged")):
        rows = [a for a in report["annotators"] if a["flagged"] == flagged]
        x = [a["median_seconds"] or 0 for a in rows]
        y = [
            a["validation_accuracy"] if a["validation_accuracy"] is not None else -0.05
            for a in rows
        ]
        ax.scatter(x, y, c=colour, label=f"{label} ({len(rows)})", alpha=0.8)
    ax.set_xlabel("median seconds per answer")
    ax.set_ylabel("validation accuracy (-0.05 = none answered)")
    ax.set_title(f"Annotators of {report['campaign']}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def agreement_plot(report: dict[str, Any], path: Path) -> Path:
    ja = report["judge_agreement"]
    bars = [("judge vs humans", ja["judge_human"]), ("human vs humans", ja["human_human"])]
    fig, ax = plt.subplots(figsize=(5, 3.5))
    for i, (_, r) in enumerate(bars):
        rate = r["rate"] or 0.0
        ci = r["ci95"] or [rate, rate]
        ax.bar(i, rate, color=["#2166ac", "#999999"][i])
        ax.errorbar(i, rate, yerr=[[rate - ci[0]], [ci[1] - rate]], color="black", capsize=6)
    ax.set_xticks([0, 1], [b[0] for b in bars])
    ax.set_ylim(0, 1)
    ax.set_ylabel(ja["rule"])
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def markdown(report: dict[str, Any]) -> str:
    p = report["progress"]
    lines = [
        f"# Campaign {report['campaign']} ({report['kind']}, {report['criterion']})",
        "",
        f"Progress: {p['labels']} labels of {p['target_votes']} planned "
        f"({p['share']:.0%}); {p['items_complete']} of {p['items']} items complete; "
        f"{p['annotators']} annotators.",
        "",
        f"Krippendorff's alpha ({report['alpha']['level']}): {report['alpha']['value']} over "
        f"{report['alpha']['units']} units.",
        "",
        f"Compared: {report.get('compared', 'the items’ models')}.",
        "",
        "## Excluded annotators",
        "",
    ]
    flagged = [a for a in report["annotators"] if a["flagged"]]
    lines += [f"- {a['id']}: {'; '.join(a['reasons'])}" for a in flagged] or ["- none"]
    if report.get("validation"):
        lines += ["", "## Validation tasks by kind", "",
                  "| kind | kept: answers | kept: right | flagged: answers | flagged: right |",
                  "|---|---|---|---|---|"]  # fmt: skip
        for name, g in report["validation"].items():
            lines.append(f"| {name} | {g['kept']['answers']} | {g['kept']['accuracy']} | "
                         f"{g['flagged']['answers']} | {g['flagged']['accuracy']} |")  # fmt: skip
    board = report.get("leaderboard") or {}
    lines += ["", "## Human leaderboard", ""]
    groups = {m.get("group", 0) for m in board.get("models", [])}
    if len(groups) > 1:
        lines += [f"> **Warning:** the comparison graph is disconnected: {len(groups)} groups "
                  "of models were never compared with each other (the `group` column). Scores "
                  "and ranks are comparable only within a group.", ""]  # fmt: skip
    notes = [f"> {note}" for note in board.get("notes", []) if "groups" not in note]
    lines += [*notes, ""] if notes else []
    lines += ["| rank | model | score | 95% CI | group |", "|---|---|---|---|---|"]
    for m in board.get("models", []):
        score = m.get("score", m.get("mean"))
        lines.append(
            f"| {m['rank']} | {m['model']} | {score} | {m.get('ci95')} | {m.get('group', 0)} |"
        )
    if "demographics" in report:
        lines += demographics.markdown_lines(report["demographics"])
    if "judge_agreement" in report:
        ja = report["judge_agreement"]
        lines += ["", "## Judge and humans", "", f"Rule: {ja['rule']}.", ""]
        for name in ("judge_human", "human_human"):
            r = ja[name]
            lines.append(
                f"- {name.replace('_', '–')}: {r['rate']} (95% CI {r['ci95']}, n={r['pairs']})"
            )
    if "judge_memory_agreement" in report:
        ma = report["judge_memory_agreement"]
        lines += ["", "## Judge–human agreement before/after the memory", "",
                  f"Memory {ma['memory']!r}; {ma['held_out_items']} held-out items "
                  f"({ma['rule']}).", ""]  # fmt: skip
        for name in ("before", "after"):
            r = ma[name]["judge_human"]
            lines.append(f"- {name}: {r['rate']} (95% CI {r['ci95']}, n={r['pairs']})")
    if report.get("trust"):
        from eval.trust.report import trust_lines

        lines += trust_lines(report["trust"])
    return "\n".join(lines) + "\n"


def write_report(report: dict[str, Any], folder: Path) -> list[Path]:
    """Write the report's files into ``folder``; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / "report.json", folder / "report.md"]
    paths[0].write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    paths[1].write_text(markdown(report), encoding="utf-8")
    if report["annotators"]:
        paths.append(annotator_plot(report, folder / "annotators.png"))
    board = report.get("leaderboard")
    if board and board.get("win_matrix"):
        paths += write_plots(board, folder)
    if "judge_agreement" in report:
        paths.append(agreement_plot(report, folder / "judge_agreement.png"))
    if report.get("trust"):
        from eval.trust.report import trust_plot

        paths.append(trust_plot(report["trust"], folder / "trust.png"))
    return paths
