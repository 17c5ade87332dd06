"""How well a pairwise judge agrees with human votes: the numbers for ``meta-eval --dataset votes``.

Human votes are grouped into comparisons — one prompt, one pair of models, one criterion — and
each comparison gets the human majority (:func:`~eval.leaderboards.votes.majority`: the outcome
most voters chose; a shared top count is a tie). The judge's ComparisonResults are matched to
these comparisons by prompt id (``prompt_of`` maps comparison ids to prompt ids when the results
do not carry a ``prompt_id``), criterion and the two model names, whichever side each was on.

Reported, per criterion and overall:

* ``accuracy`` — share of comparisons where the judge's outcome equals the human majority, a
  tie being a third outcome (judge tie vs human tie agrees); 95% bootstrap CI over comparisons.
* ``decisive_accuracy`` — on comparisons with a human winner only, share where the judge chose
  that winner (a judge tie counts as a miss); with its CI.
* ``judge_tie_rate``, ``human_tie_rate``; ``position_consistency`` — share of the judge's
  verdicts whose two orders agreed (over every result, matched or not).
* ``kendall_tau`` / ``spearman`` (per criterion) — between the Bradley–Terry scores (prior 1,
  so sparse tables stay finite) fitted to the
  human votes and to the judge's votes, over the models both rank.

Example:
    >>> from eval.leaderboards.votes import Vote
    >>> human = [Vote("p1", "x", "y", "a", "pref"), Vote("p1", "y", "x", "b", "pref")]
    >>> res = [{"comparison_id": "p1", "models": {"a": "y", "b": "x"},
    ...         "criteria": {"pref": {"winner": "b", "position_consistent": True}}}]
    >>> m = pairwise_metrics(human, res, n_boot=0)
    >>> m["overall"]["accuracy"], m["overall"]["position_consistency"]
    (1.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from eval.kit.stats.bootstrap import mean_ci
from eval.kit.stats.kendall import kendall_tau_b
from eval.leaderboards.bt import fit_bt
from eval.leaderboards.tally import Tally
from eval.leaderboards.votes import Vote, comparison_votes, majority

TIE_POLICY = (
    "human majority per comparison and criterion, a shared top count being a tie; accuracy "
    "treats tie as a third outcome; decisive_accuracy covers comparisons with a human winner "
    "and counts a judge tie as a miss"
)

Key = tuple[str, str, str, str]  # prompt, criterion, first model, second model (sorted)


def _oriented(v: Vote) -> tuple[Key, str]:
    """The vote's key and its outcome with the models in sorted order."""
    lo, hi = sorted((v.model_a, v.model_b))
    winner = v.winner_model
    outcome = "tie" if winner is None else ("a" if winner == lo else "b")
    return (v.prompt_id, v.criterion, lo, hi), outcome


def human_majorities(votes: Sequence[Vote]) -> dict[Key, str]:
    """Majority outcome (``a`` = the alphabetically first model) per comparison key."""
    grouped: dict[Key, list[str]] = {}
    for v in votes:
        key, outcome = _oriented(v)
        grouped.setdefault(key, []).append(outcome)
    return {k: majority(o) or "tie" for k, o in grouped.items()}


def _agreement(pairs: list[tuple[str, str]], n_boot: int, seed: int) -> dict[str, Any]:
    """Accuracy numbers from (judge outcome, human outcome) pairs."""
    judge = np.array([j for j, _ in pairs], dtype=object)
    human = np.array([h for _, h in pairs], dtype=object)
    hit = (judge == human).astype(float)
    decisive = human != "tie"
    dhit = hit[decisive]
    rnd = lambda x: None if x.size == 0 else round(float(x.mean()), 4)  # noqa: E731
    return {
        "n": int(hit.size),
        "accuracy": rnd(hit),
        "accuracy_ci95": mean_ci(hit, n_boot, seed),
        "n_decisive": int(dhit.size),
        "decisive_accuracy": rnd(dhit),
        "decisive_accuracy_ci95": mean_ci(dhit, n_boot, seed),
        "judge_tie_rate": rnd((judge == "tie").astype(float)),
        "human_tie_rate": rnd((human == "tie").astype(float)),
    }


def _rank_corr(human: Sequence[Vote], judge: Sequence[Vote]) -> dict[str, Any]:
    """Kendall τ and Spearman ρ between BT scores of the two vote sets (common models)."""
    if not human or not judge:
        return {"kendall_tau": None, "spearman": None, "n_models": 0}
    scores = []
    for votes in (human, judge):
        tally = Tally.from_votes(votes)
        s = fit_bt(tally.wins(), prior=1.0)  # the prior keeps sparse tables finite
        scores.append(dict(zip(tally.models, s.tolist(), strict=True)))
    common = sorted(set(scores[0]) & set(scores[1]))
    if len(common) < 2:
        return {"kendall_tau": None, "spearman": None, "n_models": len(common)}
    h = np.round([scores[0][m] for m in common], 9)
    j = np.round([scores[1][m] for m in common], 9)
    if np.ptp(h) == 0 or np.ptp(j) == 0:  # one side ranks every model equal: undefined
        return {"kendall_tau": None, "spearman": None, "n_models": len(common)}
    tau, rho = kendall_tau_b(h, j), spearmanr(h, j).statistic
    clean = lambda x: None if not np.isfinite(x) else round(float(x), 4)  # noqa: E731
    return {"kendall_tau": clean(tau), "spearman": clean(rho), "n_models": len(common)}


def pairwise_metrics(
    human_votes: Sequence[Vote],
    results: Sequence[Mapping[str, Any]],
    *,
    prompt_of: Mapping[str, str] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Agreement of a judge's ComparisonResults with human votes (a dict for report.json)."""
    majorities = human_majorities(human_votes)
    pairs: dict[str, list[tuple[str, str]]] = {}
    consistent: dict[str, list[bool]] = {}
    judge_votes: list[Vote] = []
    unmatched = unscored = 0
    for n, res in enumerate(results, start=1):
        cid = str(res.get("comparison_id", ""))
        pid = res.get("prompt_id") or (prompt_of or {}).get(cid) or cid
        res = {**res, "prompt_id": pid}
        for name, verdict in (res.get("criteria") or {}).items():
            if (verdict or {}).get("winner") is None:
                unscored += 1
            elif "position_consistent" in verdict:
                consistent.setdefault(name, []).append(bool(verdict["position_consistent"]))
        for vote in comparison_votes(res, f"result {n}"):
            judge_votes.append(vote)
            key, outcome = _oriented(vote)
            if key not in majorities:
                unmatched += 1
                continue
            pairs.setdefault(vote.criterion, []).append((outcome, majorities[key]))
    criteria = sorted(set(pairs) | {k[1] for k in majorities})
    per: dict[str, dict[str, Any]] = {}
    for c in criteria:
        row = _agreement(pairs.get(c, []), n_boot, seed)
        flags = consistent.get(c, [])
        row["position_consistency"] = round(float(np.mean(flags)), 4) if flags else None
        row.update(
            _rank_corr(
                [v for v in human_votes if v.criterion == c],
                [v for v in judge_votes if v.criterion == c],
            )
        )
        per[c] = row
    overall = _agreement([p for c in criteria for p in pairs.get(c, [])], n_boot, seed)
    flags = [f for fl in consistent.values() for f in fl]
    overall["position_consistency"] = round(float(np.mean(flags)), 4) if flags else None
    return {
        "tie_policy": TIE_POLICY,
        "n_human_votes": len(human_votes),
        "n_human_comparisons": len(majorities),
        "n_judge_verdicts": len(judge_votes),
        "unmatched_verdicts": unmatched,
        "unscored_verdicts": unscored,
        "overall": overall,
        "criteria": per,
    }


def _fmt(x: Any) -> str:
    if x is None:
        return "–"
    if isinstance(x, list):
        return f"[{x[0]:.2f}, {x[1]:.2f}]"
    return f"{x:.3f}" if isinstance(x, float) else str(x)


def metrics_markdown(metrics: Mapping[str, Any]) -> str:
    """A markdown section for report.md from :func:`pairwise_metrics`' output."""
    cols = [
        ("n", "n"),
        ("accuracy", "acc"),
        ("accuracy_ci95", "acc 95% CI"),
        ("decisive_accuracy", "decisive acc"),
        ("judge_tie_rate", "judge ties"),
        ("position_consistency", "position-consistent"),
        ("kendall_tau", "Kendall τ"),
        ("spearman", "Spearman"),
    ]
    lines = [
        "## Pairwise agreement with the human majority",
        "",
        f"Tie handling: {metrics['tie_policy']}.",
        "",
        "| criterion | " + " | ".join(h for _, h in cols) + " |",
        "|---" * (len(cols) + 1) + "|",
    ]
    rows = [*metrics["criteria"].items(), ("**overall**", metrics["overall"])]
    for name, m in rows:
        lines.append(f"| {name} | " + " | ".join(_fmt(m.get(k)) for k, _ in cols) + " |")
    lines += [
        "",
        f"{metrics['n_judge_verdicts']} judge verdicts, {metrics['unmatched_verdicts']} without "
        f"human votes, {metrics['unscored_verdicts']} unscored; "
        f"{metrics['n_human_votes']} human votes in {metrics['n_human_comparisons']} comparisons.",
    ]
    return "\n".join(lines) + "\n"
