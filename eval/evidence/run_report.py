"""The report of a benchmark run: win rates per split with bootstrap CIs, and agreement
with human rankings.

Input: judged outputs as JSON lines ``{"prompt_id", "model", "judge", "split"?, "result" |
"score"}`` (one per task × model × judge of the panel; a score-mode or edit-mode Result). Each
judge's single-answer grades become pseudo-pairwise votes (:mod:`eval.leaderboards.pseudo`:
per task and pair of models the higher grade wins, the judges' majority decides), and the
win rate over all pairs of models (tie = 0.5) gets 95% bootstrap CIs over tasks
(:mod:`eval.leaderboards`). Human rankings (JSONL ``{"prompt_id"?, "ranking": [best, ...]}``)
are compared with the panel's ranking by Kendall's tau-b: per task (panel: mean grade) and
overall (panel: win rate). With ``suite_dir`` (a ``from-posts`` output folder) the report
also carries its failure-keyword tallies and shift metrics.

Example::

    report = build_run_report([Path("judged.jsonl")], Path("run"), human=Path("humans.jsonl"))
    report["leaderboards"]["all"]["models"][0]["score"]   # win rate %, best model first
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from eval.evidence.ranking import positions, shown_tau
from eval.leaderboards import VotesError, build_leaderboard
from eval.leaderboards.pseudo import pseudo_votes, read_results
from memory.io.atomic import write_atomic
from memory.io.jsonl import read_jsonl


class RunReportError(ValueError):
    """Inputs that cannot make a report; the message says which and why."""


def _mean(values: list[Any]) -> float | None:
    nums = [float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    return sum(nums) / len(nums) if nums else None


def grade(row: dict[str, Any]) -> float | None:
    """One number per judged output: an edit result's mean criterion score, a score-mode
    result's mean image score, or a flat ``score``."""
    res = row.get("result")
    if isinstance(res, dict):
        if isinstance(res.get("criteria"), dict):
            return _mean([(c or {}).get("score") for c in res["criteria"].values()])
        image = ((res.get("subjective") or {}).get("image")) or {}
        return _mean([(d or {}).get("score") for d in image.values()])
    return _mean([row.get("score")])


def read_human(path: Path) -> list[dict[str, Any]]:
    """Human rankings, checked (``FILE:LINE`` in errors)."""
    out = []
    numbered = read_jsonl(path, error=RunReportError)
    for n, row in numbered:
        rank = row.get("ranking") if isinstance(row, dict) else None
        if not isinstance(rank, list) or len(rank) < 2 or len(set(rank)) != len(rank):
            raise RunReportError(f"{path}:{n}: ranking: a list of 2+ distinct model names")
        out.append(row)
    return out


def _agreement(rows: list[dict], boards: dict, human: list[dict]) -> dict[str, Any]:
    per_task: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r["score"] is not None:
            per_task[str(r["prompt_id"])][str(r["model"])].append(r["score"])
    taus, overall = [], None
    for h in human:
        ranking = [str(m) for m in h["ranking"]]
        if h.get("prompt_id") is None:
            rates = {m["model"]: m["score"] for m in boards["all"]["models"]}
            models = [m for m in ranking if rates.get(m) is not None]
            if len(models) >= 2:
                overall = shown_tau(positions(ranking, models), [-rates[m] for m in models])
            continue
        task = per_task.get(str(h["prompt_id"]), {})
        models = [m for m in ranking if task.get(m)]
        if len(models) >= 2:
            tau = shown_tau(positions(ranking, models),
                            [-sum(task[m]) / len(task[m]) for m in models])
            if tau is not None:
                taus.append(tau)
    return {"overall": overall, "per_task_mean": round(sum(taus) / len(taus), 4) if taus
            else None, "n_tasks": len(taus)}


def from_study_line(line: dict[str, Any], judge: str, split: str | None) -> dict[str, Any]:
    """A ``judge study run`` results line as a judged output (model = the backend)."""
    return {"prompt_id": line["task_id"], "model": line["backend"], "judge": judge,
            "split": split, "result": line.get("result") or {}}


def _read(path: Path) -> list[dict[str, Any]]:
    """Judged outputs; a study's ``results.jsonl`` is read as one judge's grades (the judge
    named by the study folder)."""
    first = next((x for x in path.read_text(encoding="utf-8").splitlines() if x.strip()), "")
    try:
        is_study = "task_id" in json.loads(first) if first else False
    except json.JSONDecodeError:
        is_study = False
    if not is_study:
        return read_results(path)
    lines = [row for _, row in read_jsonl(path, objects=True, error=RunReportError)]
    return [from_study_line(x, path.parent.name, "t2i") for x in lines if x.get("result")]


def build_run_report(
    results: list[Path], out: Path, *, human: Path | None = None, n_boot: int = 1000,
    metric: str = "auto", suite_dir: Path | None = None, seed: int = 0,
) -> dict[str, Any]:
    """Win rates per split (and ``all``) and tau-b against human rankings; written to
    ``out/run_report.json``."""
    try:
        rows = [r for p in results for r in _read(p)]
    except VotesError as exc:
        raise RunReportError(str(exc)) from None
    if not rows:
        raise RunReportError("no judged output in the results files")
    for r in rows:
        r["score"] = grade(r) if metric == "auto" else r.get("score")
    chosen = "score" if metric == "auto" else metric
    boards: dict[str, Any] = {}
    splits = sorted({str(r.get("split") or "all") for r in rows} - {"all"})
    for split in ["all", *splits]:
        part = [r for r in rows if split == "all" or r.get("split") == split]
        try:
            votes = pseudo_votes(part, metric=chosen, criterion="panel")
            boards[split] = build_leaderboard(votes, method="winrate", n_boot=n_boot, seed=seed)
        except ValueError as exc:
            raise RunReportError(f"split {split}: {exc}") from None
    report: dict[str, Any] = {
        "n_outputs": len(rows),
        "judges": sorted({str(r.get("judge") or "judge") for r in rows}),
        "models": sorted({str(r["model"]) for r in rows}),
        "leaderboards": boards,
        "kendall_tau_b": _agreement(rows, boards, read_human(human)) if human else None,
    }
    if suite_dir is not None:
        built = json.loads((suite_dir / "report.json").read_text(encoding="utf-8"))
        report["failures"] = built.get("failures", {})
        report["shift_metrics"] = built.get("shift_metrics", {})
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "run_report.json", json.dumps(report, indent=2).encode())
    return report
