"""``report.md`` of an edit study: tables of the numbers and what each figure shows.

Example:
    >>> fmt_ci(50.0, [40.0, 60.0]), fmt_ci(None, None)
    ('50.0 [40.0, 60.0]', '-')
"""

from __future__ import annotations

from typing import Any

from eval.studies.edits.results import CRITERIA
from judge.judged_by import markdown_lines as judge_lines

FIGURES = {
    "success.png": (
        "**Success per editor.** Each bar is the share of an editor's judged edits that the "
        "judge counted as successful: all three criteria at or above the threshold τ. The "
        "whisker is a 95% interval from resampling tasks, so it shows how much the rate could "
        "move with another draw of tasks like these; bars whose whiskers overlap a lot are "
        "not clearly different. Edits with an unscored criterion are not in the rate."
    ),
    "criteria.png": (
        "**The three criteria per editor.** For each editor, the mean 1-5 score of "
        "instruction following (did it do what was asked), image consistency (did it leave "
        "the rest alone) and visual quality (is the result clean). A high consistency with a "
        "low instruction score is the signature of an editor that barely changes the image."
    ),
    "categories.png": (
        "**Success per image category.** Rows are editors, columns the categories of the "
        "source images; each cell is success@τ (%) over that editor's edits of that category "
        "and the number of decided edits under it. Grey: nothing decided. Small n means a "
        "rough rate: read the intervals in the table below."
    ),
    "families.png": (
        "**Success per edit family.** As the category map, with columns for the kind of "
        "edit asked for (colour change, object removal, text change, ...): where each editor "
        "is strong and where it fails."
    ),
    "wins.png": (
        "**Pairwise win rates.** Each cell is the share of head-to-head comparisons the row "
        "editor won against the column editor on the same task and instruction (by the "
        "votes named above the pairwise table: the judge's comparison of the two edits, or "
        "pseudo-pairwise from the pointwise scores; ties count half in the table). "
        "Blue: the row editor is better; red: worse."
    ),
    "failures.png": (
        "**Shift-metric failures.** For each shift metric (colour shift, structure distance, "
        "face identity, text rendering), the share of an editor's edits where the metric "
        "applies whose value passed the failure line (see the failures table). These are "
        "measured, not judged: they say what broke, e.g. the layout drifted or a face changed."
    ),
}
"""Each figure's explanation, as report.md prints it under the figure."""


def fmt_ci(value: float | None, ci: list[float] | None, digits: int = 1) -> str:
    """``value [lo, hi]`` (or ``-``)."""
    if value is None:
        return "-"
    text = f"{value:.{digits}f}"
    return text + (f" [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]" if ci else "")


def _summary_table(rows: dict[str, dict[str, Any]], head: str) -> list[str]:
    cols = ["success@τ % [95% CI]", *(c.replace("_", " ") for c in CRITERIA)]
    out = [f"| {head} | n | {' | '.join(cols)} |", "|---|---:|" + "---:|" * len(cols)]
    for name, s in rows.items():
        crit = [fmt_ci(s["criteria"][c]["mean"], s["criteria"][c]["ci95"], 2) for c in CRITERIA]
        success = fmt_ci(s["success"]["rate"], s["success"]["ci95"])
        out.append(f"| {name} | {s['n']} | {success} | {' | '.join(crit)} |")
    return out


def _groups_table(table: dict[str, dict[str, Any]], head: str) -> list[str]:
    groups = sorted({g for e in table for g in table[e]})
    out = [f"| {head} | {' | '.join(table)} |", "|---|" + "---:|" * len(table)]
    for g in groups:
        cells = []
        for e in table:
            s = table[e].get(g)
            cells.append(
                fmt_ci(s["success"]["rate"], s["success"]["ci95"]) + f" (n={s['success']['n']})"
                if s
                else ""
            )
        out.append(f"| {g} | {' | '.join(cells)} |")
    return out


def _pair_table(records: list[dict]) -> list[str]:
    """Each pair's record with a's win rate and its interval."""
    rows = ["| a | b | a wins | b wins | ties | a's win rate % | 95% CI |",
            "|---|---|---:|---:|---:|---:|---|"]  # fmt: skip
    for r in records:
        ci = f"[{r['ci95'][0]}, {r['ci95'][1]}]" if r.get("ci95") else "-"
        rows.append(f"| {r['a']} | {r['b']} | {r['wins_a']} | {r['wins_b']} | {r['ties']} | "
                    f"{r['win_rate_a']} | {ci} |")  # fmt: skip
    return rows


def render(report: dict[str, Any]) -> str:
    """The whole page."""
    st = report["study"]
    lines = [
        f"# Edit study report: {st['name']}",
        "",
        f"{st['n_items']} items ({st['n_tasks']} tasks × {len(st['writers'])} writers × "
        f"{len(st['editors'])} editors); statuses: "
        + ", ".join(f"{k} {v}" for k, v in report["statuses"].items())
        + f". Success threshold τ = {report['threshold']}; intervals: 95% bootstrap over "
        f"tasks ({report['bootstrap']} resamples, seed {report['seed']}).",
        *judge_lines(report.get("judge")),
        "",
        "## Editors",
        "",
        *_summary_table(report["editors"], "editor"),
        "",
        "## Writer × editor",
        "",
        *_summary_table(report["cells"], "writer × editor"),
        "",
        "## Success per image category",
        "",
        *_groups_table(report["by_category"], "category"),
        "",
        "## Success per edit family",
        "",
        *_groups_table(report["by_family"], "family"),
        "",
        "## Pairwise",
        "",
    ]
    pw = report["pairwise"]
    if pw["records"]:
        lines += [f"Votes: {pw['label']}.", ""]
        lines += _pair_table(pw["records"])
        lines += ["", "Leaderboard (Bradley–Terry on the same votes, 95% bootstrap CI):", "",
                  "| rank | editor | score | 95% CI |", "|---:|---|---:|---|"]  # fmt: skip
        for m in pw["leaderboard"]["models"]:
            ci = f"[{m['ci95'][0]}, {m['ci95'][1]}]" if m["ci95"] else "-"
            lines.append(f"| {m['rank']} | {m['model']} | {m['score']} | {ci} |")
        for name, board in pw.get("by_criterion", {}).items():
            lines += ["", f"On {name} alone:", "", *_pair_table(board["records"])]
    else:
        lines.append("No two editors were both judged on the same task: no pairwise votes.")
    lines += ["", "## Failures", "", "| editor | metric | line | applicable | failed | % |",
              "|---|---|---|---:|---:|---:|"]  # fmt: skip
    for e, f in report["failures"].items():
        for m, v in f["metrics"].items():
            op, line = report["failure_lines"][m]
            rate = "-" if v["rate"] is None else v["rate"]
            lines.append(
                f"| {e} | {m} | {op} {line} | {v['applicable']} | {v['failed']} | {rate} |"
            )
        if f["not_judged"]:
            why = ", ".join(f"{k} {n}" for k, n in f["not_judged"].items())
            lines.append(f"| {e} | not judged | | | {sum(f['not_judged'].values())} | {why} |")
    if report.get("plots"):
        lines += ["", "## Figures", ""]
        for rel in report["plots"]:
            name = rel.rsplit("/", 1)[-1]
            lines += [f"![{name}]({rel})", "", FIGURES.get(name, ""), ""]
    if report.get("campaign_manifest"):
        lines += ["", "## Human labels", "",
                  f"`{report['campaign_manifest']}` lists the judged edits in the manifest format "
                  "of `judge campaign create` (`--kind rating` for ratings of each edit on a "
                  "criterion, `--kind pairwise` for editor against editor)."]  # fmt: skip
    if report["notes"]:
        lines += ["", "## Notes", "", *(f"- {n}" for n in report["notes"])]
    return "\n".join(lines).rstrip() + "\n"
