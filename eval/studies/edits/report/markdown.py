"""``report.md`` of an edit study: tables of the numbers and what each figure shows, from a
page model (:class:`EditStudyPage`) laid out by ``eval/studies/edits/report/templates/
report.md.j2``.

Example:
    >>> fmt_ci(50.0, [40.0, 60.0]), fmt_ci(None, None)
    ('50.0 [40.0, 60.0]', '-')
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from eval.kit.render import Table
from eval.kit.render import render as render_template
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


class FailureRow(BaseModel):
    """One row of the failures table: a shift metric of an editor, or (``metric`` None) the
    editor's edits that were not judged, with why."""

    editor: str
    metric: str | None = None
    line: str = ""
    applicable: str = ""
    failed: str
    rate: str


class Figure(BaseModel):
    """A figure and what it shows (empty for a figure without an explanation)."""

    name: str
    path: str
    caption: str


class EditStudyPage(BaseModel):
    """Everything the edit study's ``report.md`` shows, as text (:func:`page` builds it;
    ``eval/studies/edits/report/templates/report.md.j2`` lays it out)."""

    name: str
    summary: str
    judge: list[str]
    editors: Table
    cells: Table
    by_category: Table
    by_family: Table
    votes: str | None
    positions: str | None
    pairs: Table | None
    leaderboard: Table | None
    by_criterion: dict[str, Table]
    failures: list[FailureRow]
    figures: list[Figure]
    campaign_manifest: str | None
    notes: list[str]


def _summary_table(rows: dict[str, dict[str, Any]], head: str) -> Table:
    cols = ["success@τ % [95% CI]", *(c.replace("_", " ") for c in CRITERIA)]
    out = []
    for name, s in rows.items():
        crit = [fmt_ci(s["criteria"][c]["mean"], s["criteria"][c]["ci95"], 2) for c in CRITERIA]
        success = fmt_ci(s["success"]["rate"], s["success"]["ci95"])
        out.append([name, str(s["n"]), success, *crit])
    return Table(head=[head, "n", *cols], rows=out, align=["---", "---:"] + ["---:"] * len(cols))


def _groups_table(table: dict[str, dict[str, Any]], head: str) -> Table:
    groups = sorted({g for e in table for g in table[e]})
    out = []
    for g in groups:
        cells = []
        for e in table:
            s = table[e].get(g)
            cells.append(
                fmt_ci(s["success"]["rate"], s["success"]["ci95"]) + f" (n={s['success']['n']})"
                if s
                else ""
            )
        out.append([str(g), *cells])
    return Table(head=[head, *table], rows=out, align=["---"] + ["---:"] * len(table))


def _pair_table(records: list[dict]) -> Table:
    """Each pair's record with a's win rate and its interval."""
    rows = []
    for r in records:
        ci = f"[{r['ci95'][0]}, {r['ci95'][1]}]" if r.get("ci95") else "-"
        rows.append([str(r[k]) for k in ("a", "b", "wins_a", "wins_b", "ties", "win_rate_a")]
                    + [ci])  # fmt: skip
    head = ["a", "b", "a wins", "b wins", "ties", "a's win rate %", "95% CI"]
    return Table(head=head, rows=rows, align=["---", "---", "---:", "---:", "---:", "---:", "---"])


def _leaderboard(models: list[dict[str, Any]]) -> Table:
    rows = [[str(m["rank"]), str(m["model"]), str(m["score"]),
             f"[{m['ci95'][0]}, {m['ci95'][1]}]" if m["ci95"] else "-"]
            for m in models]  # fmt: skip
    return Table(head=["rank", "editor", "score", "95% CI"], rows=rows,
                 align=["---:", "---", "---:", "---"])  # fmt: skip


def _failures(report: dict[str, Any]) -> list[FailureRow]:
    out = []
    for e, f in report["failures"].items():
        for m, v in f["metrics"].items():
            op, line = report["failure_lines"][m]
            rate = "-" if v["rate"] is None else str(v["rate"])
            out.append(FailureRow(editor=e, metric=m, line=f"{op} {line}",
                                  applicable=str(v["applicable"]), failed=str(v["failed"]),
                                  rate=rate))  # fmt: skip
        if f["not_judged"]:
            why = ", ".join(f"{k} {n}" for k, n in f["not_judged"].items())
            out.append(FailureRow(editor=e, failed=str(sum(f["not_judged"].values())), rate=why))
    return out


def page(report: dict[str, Any]) -> EditStudyPage:
    """The page of an edit study's ``report.json`` dict."""
    st, pw = report["study"], report["pairwise"]
    summary = (
        f"{st['n_items']} items ({st['n_tasks']} tasks × {len(st['writers'])} writers × "
        f"{len(st['editors'])} editors); statuses: "
        + ", ".join(f"{k} {v}" for k, v in report["statuses"].items())
        + f". Success threshold τ = {report['threshold']}; intervals: 95% bootstrap over "
        f"tasks ({report['bootstrap']} resamples, seed {report['seed']})."
    )
    records = bool(pw["records"])
    flips = pw.get("position_inconsistent") if records else None
    figures = [Figure(name=(n := rel.rsplit("/", 1)[-1]), path=rel, caption=FIGURES.get(n, ""))
               for rel in report.get("plots") or []]  # fmt: skip
    return EditStudyPage(
        name=str(st["name"]),
        summary=summary,
        judge=judge_lines(report.get("judge")),
        editors=_summary_table(report["editors"], "editor"),
        cells=_summary_table(report["cells"], "writer × editor"),
        by_category=_groups_table(report["by_category"], "category"),
        by_family=_groups_table(report["by_family"], "family"),
        votes=str(pw["label"]) if records else None,
        positions=_positions(flips) if flips is not None else None,
        pairs=_pair_table(pw["records"]) if records else None,
        leaderboard=_leaderboard(pw["leaderboard"]["models"]) if records else None,
        by_criterion={name: _pair_table(board["records"])
                      for name, board in pw.get("by_criterion", {}).items()} if records else {},
        failures=_failures(report),
        figures=figures,
        campaign_manifest=report.get("campaign_manifest") or None,
        notes=[str(n) for n in report["notes"]],
    )  # fmt: skip


def render(report: dict[str, Any]) -> str:
    """The whole page (ending in one newline)."""
    text = render_template("eval.studies.edits.report", "report.md.j2", r=page(report))
    return text.rstrip() + "\n"


def _positions(flips: dict[str, int]) -> str:
    """The position-consistency line under the pairwise votes."""
    return (f"Position consistency: {flips['criteria']} of {flips['of_criteria']} criterion "
            f"verdicts (in {flips['comparisons']} of {flips['of_comparisons']} comparisons) "
            "changed when the two edits were swapped; each counts as a tie. Many of them mean "
            "the judge favours a position rather than an edit.")  # fmt: skip
