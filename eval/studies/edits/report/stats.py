"""The numbers of an edit-study report, from ``results.jsonl`` lines.

- **success@τ** — the share of judged edits the judge's edit mode marked successful (every
  criterion at least τ, the study's ``edit_success_threshold``); edits with an unscored
  criterion are left out of it and counted as ``undecided``;
- **criteria** — the mean 1–5 score of each of the three criteria;
- both **per editor** (all writers), **per writer × editor**, **per editor × image category**
  and **per editor × edit family**, each with a 95% percentile bootstrap interval that
  resamples *tasks* (a task's items stay together: :func:`eval.kit.stats.bootstrap_ci` with
  clusters);
- **pairwise** — from the judge's comparisons of two edits when the run made them
  (``comparisons.jsonl``, ``[study] compare = true``: a vote per criterion, and an overall
  vote for the editor that won more criteria), else *pseudo-pairwise*: for every task × writer
  and every two editors both judged, the editor whose edit has the higher mean criterion
  score wins (equal: a tie); the votes give each pair's record with the win rate's bootstrap
  interval over tasks, the win-rate matrix and a Bradley–Terry leaderboard
  (:mod:`eval.leaderboards`);
- **failures** — per editor, how many edits reached or passed a shift metric's failure line
  (:data:`FAILURE_LINES`) among the edits where the metric applies, and how many edits never
  reached the judge (``edit_failed``, ``blocked``, ``writer_failed``, ``judge_failed``).

Example:
    >>> lines = [{"task_id": t, "writer": "w", "editor": e, "status": "scored",
    ...           "category": "c", "family": "f", "success": s, "metrics": {},
    ...           "criteria": {"instruction_following": v, "image_consistency": v,
    ...                        "visual_quality": v}}
    ...          for t in ("a", "b") for e, s, v in (("x", True, 5.0), ("y", False, 2.0))]
    >>> r = edit_stats(lines, n_boot=0, seed=0)
    >>> r["editors"]["x"]["success"]["rate"], r["pairwise"]["records"][0]["wins_a"]
    (100.0, 2)
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from itertools import combinations
from typing import Any

import numpy as np

from eval.kit.stats import bootstrap_ci, rounded_ci
from eval.leaderboards import Vote, build_leaderboard
from eval.studies.edits.results import CRITERIA
from skills.metrics.estimates import CONSISTENCY_RAMPS

JUDGED = ("scored", "partial")
FAILURE_LINES: dict[str, tuple[str, float]] = {
    **{n: (">=" if bad > good else "<=", bad) for n, (good, bad) in CONSISTENCY_RAMPS.items()},
    "text_rendering": ("<", 0.5),
}
"""metric → (comparison, value): an edit is a failure of that metric when its value passes the
line. The consistency metrics' lines are where the local estimate's penalty is full
(``skills.metrics.estimates.CONSISTENCY_RAMPS``: "clearly changed"); text rendering fails
below half the characters right."""


def _judged(lines: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return [x for x in lines if x.get("status") in JUDGED]


def _ci(values: list[float], clusters: list[str], n_boot: int, seed: int) -> list[float] | None:
    if not values or n_boot <= 0:
        return None
    mean = lambda a: float(np.mean(a))  # noqa: E731
    return rounded_ci(bootstrap_ci(mean, np.asarray(values, float), n_boot=n_boot, seed=seed,
                                   clusters=np.asarray(clusters)))  # fmt: skip


def summary(items: list[dict[str, Any]], n_boot: int, seed: int) -> dict[str, Any]:
    """success@τ (%) and the criteria means of ``items`` (judged lines), with CIs."""
    decided = [x for x in items if x.get("success") is not None]
    flags = [100.0 if x["success"] else 0.0 for x in decided]
    out: dict[str, Any] = {
        "n": len(items),
        "success": {
            "rate": round(float(np.mean(flags)), 2) if flags else None,
            "ci95": _ci(flags, [x["task_id"] for x in decided], n_boot, seed),
            "n": len(decided),
            "undecided": len(items) - len(decided),
        },
        "criteria": {},
    }
    for name in CRITERIA:
        rows = [x for x in items if (x.get("criteria") or {}).get(name) is not None]
        vals = [float(x["criteria"][name]) for x in rows]
        out["criteria"][name] = {
            "mean": round(float(np.mean(vals)), 3) if vals else None,
            "ci95": _ci(vals, [x["task_id"] for x in rows], n_boot, seed),
            "n": len(vals),
        }
    return out


def _grouped(
    items: list[dict[str, Any]], key: Callable[[dict[str, Any]], str], n_boot: int, seed: int
) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for x in items:
        groups[key(x)].append(x)
    return {k: summary(v, n_boot, seed) for k, v in sorted(groups.items())}


def _per_editor(
    items: list[dict[str, Any]], field: str, n_boot: int, seed: int
) -> dict[str, dict[str, Any]]:
    """editor → value of ``field`` (category, family) → summary."""
    editors = sorted({x["editor"] for x in items})
    return {
        e: _grouped([x for x in items if x["editor"] == e], lambda x: str(x.get(field)),
                    n_boot, seed)
        for e in editors
    }  # fmt: skip


def overall(line: dict[str, Any]) -> float | None:
    """The mean of an edit's scored criteria (None when none is scored)."""
    vals = [v for v in (line.get("criteria") or {}).values() if v is not None]
    return float(np.mean(vals)) if vals else None


def votes(items: list[dict[str, Any]]) -> list[Vote]:
    """Pseudo-pairwise votes between editors on the same task and writer (the edit with the
    higher mean criterion score wins)."""
    by_pair: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for x in items:
        score = overall(x)
        if score is not None:
            by_pair[(x["task_id"], x["writer"])][x["editor"]] = score
    out = []
    for (task, writer), scores in sorted(by_pair.items()):
        for a, b in combinations(sorted(scores), 2):
            winner = "a" if scores[a] > scores[b] else "b" if scores[b] > scores[a] else "tie"
            out.append(Vote(f"{task}/{writer}", a, b, winner, "overall", "judge"))
    return out


def compared_votes(comparisons: list[dict[str, Any]]) -> list[Vote]:
    """Votes from the judge's comparisons: one per decided criterion, and one ``overall`` per
    comparison with a decided criterion (the editor that won more criteria; equal: a tie)."""
    out = []
    for c in comparisons:
        winners = {k: w for k, w in (c.get("criteria") or {}).items() if w in ("a", "b", "tie")}
        if not winners:
            continue
        pid = f"{c['task_id']}/{c['writer']}"
        out += [Vote(pid, c["a"], c["b"], w, k, "judge") for k, w in sorted(winners.items())]
        a, b = (sum(w == side for w in winners.values()) for side in ("a", "b"))
        out.append(Vote(pid, c["a"], c["b"], "a" if a > b else "b" if b > a else "tie",
                        "overall", "judge"))  # fmt: skip
    return out


def _records(vs: list[Vote], n_boot: int, seed: int) -> list[dict[str, Any]]:
    """Each pair's record (editors in sorted order) with a's win rate (a tie is half a win)
    and its 95% bootstrap interval over tasks."""
    by_pair: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for v in vs:
        (a, b), winner = sorted((v.model_a, v.model_b)), v.winner
        if a != v.model_a and winner != "tie":
            winner = "a" if winner == "b" else "b"
        by_pair[(a, b)].append((v.prompt_id.split("/", 1)[0], winner))
    rows = []
    for (a, b), got in sorted(by_pair.items()):
        c = Counter(w for _, w in got)
        points = [100.0 if w == "a" else 50.0 if w == "tie" else 0.0 for _, w in got]
        rows.append({"a": a, "b": b, "wins_a": c["a"], "wins_b": c["b"], "ties": c["tie"],
                     "win_rate_a": round(float(np.mean(points)), 1),
                     "ci95": _ci(points, [t for t, _ in got], n_boot, seed)})  # fmt: skip
    return rows


def _board(vs: list[Vote], n_boot: int, seed: int) -> dict[str, Any]:
    board = build_leaderboard(vs, method="bt", n_boot=n_boot, seed=seed) if vs else None
    return {"n_votes": len(vs), "records": _records(vs, n_boot, seed), "leaderboard": board}


PSEUDO = "pseudo-pairwise: from the pointwise scores (the edit with the higher mean criterion wins)"
COMPARED = "the judge's comparison of the two edits (edit_compare mode, both orders asked)"


def pairwise(
    items: list[dict[str, Any]], n_boot: int, seed: int,
    comparisons: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Each pair's record and the Bradley–Terry board: from the judge's comparisons when the
    run has decided ones (``source: compare``, with a board per criterion), else from the
    pointwise scores (``source: pseudo``)."""
    compared = compared_votes(comparisons or [])
    if not compared:
        return {"source": "pseudo", "label": PSEUDO, **_board(votes(items), n_boot, seed),
                "by_criterion": {}}  # fmt: skip
    overall_votes = [v for v in compared if v.criterion == "overall"]
    criteria = sorted({v.criterion for v in compared} - {"overall"}, key=_criterion_order)
    return {
        "source": "compare",
        "label": COMPARED,
        "n_comparisons": len(comparisons or []),
        "position_inconsistent": position_inconsistent(comparisons or []),
        **_board(overall_votes, n_boot, seed),
        "by_criterion": {
            k: _board([v for v in compared if v.criterion == k], n_boot, seed) for k in criteria
        },
    }


def position_inconsistent(comparisons: list[dict[str, Any]]) -> dict[str, int]:
    """How many decided criterion verdicts came out differently in the two orders (the judge
    named different images, so the criterion is a tie), and in how many comparisons.

    Example:
        >>> position_inconsistent([{"criteria": {"q": "tie", "r": "a"},
        ...                         "position_consistent": {"q": False, "r": True}}])
        {'criteria': 1, 'of_criteria': 2, 'comparisons': 1, 'of_comparisons': 1}
    """
    flips = total = hit = decided = 0
    for c in comparisons:
        winners = c.get("criteria") or {}
        known = {k: v for k, v in (c.get("position_consistent") or {}).items()
                 if isinstance(v, bool) and winners.get(k) is not None}  # fmt: skip
        if not known:
            continue
        decided += 1
        total += len(known)
        bad = sum(not v for v in known.values())
        flips += bad
        hit += bad > 0
    return {"criteria": flips, "of_criteria": total, "comparisons": hit, "of_comparisons": decided}


def _criterion_order(name: str) -> tuple[int, str]:
    return (CRITERIA.index(name) if name in CRITERIA else len(CRITERIA), name)


def _fails(metric: str, value: float) -> bool:
    op, line = FAILURE_LINES[metric]
    return value >= line if op == ">=" else value <= line if op == "<=" else value < line


def failures(lines: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per editor: shift-metric failures among applicable edits, and unjudged statuses."""
    out: dict[str, dict[str, Any]] = {}
    for editor in sorted({x["editor"] for x in lines}):
        mine = [x for x in lines if x["editor"] == editor]
        metrics = {}
        for name in FAILURE_LINES:
            vals = [m["value"] for x in _judged(mine)
                    if (m := (x.get("metrics") or {}).get(name)) and m.get("applicable")
                    and m.get("value") is not None]  # fmt: skip
            failed = sum(_fails(name, float(v)) for v in vals)
            rate = round(100.0 * failed / len(vals), 1) if vals else None
            metrics[name] = {"applicable": len(vals), "failed": failed, "rate": rate}
        statuses = Counter(x["status"] for x in mine if x.get("status") not in JUDGED)
        out[editor] = {"metrics": metrics, "not_judged": dict(sorted(statuses.items()))}
    return out


def edit_stats(
    lines: list[dict[str, Any]], *, n_boot: int, seed: int,
    comparisons: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Every number of the report (see the module docstring)."""
    items = _judged(lines)
    return {
        "statuses": dict(sorted(Counter(str(x.get("status")) for x in lines).items())),
        "editors": _grouped(items, lambda x: x["editor"], n_boot, seed),
        "cells": _grouped(items, lambda x: f"{x['writer']} × {x['editor']}", n_boot, seed),
        "by_category": _per_editor(items, "category", n_boot, seed),
        "by_family": _per_editor(items, "family", n_boot, seed),
        "pairwise": pairwise(items, n_boot, seed, comparisons),
        "failures": failures(lines),
    }
