"""Win rates and Kendall's tau-b of a run report, against independent recomputations."""

from __future__ import annotations

import json
import random
from itertools import combinations
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau

from eval.evidence.ranking import shown_tau
from eval.evidence.run_report import build_run_report
from judge.cli.main import main

MODELS = ["alpha", "beta", "gamma"]
JUDGES = ["j1", "j2", "j3"]


def _rows(n_tasks: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    skill = {"alpha": 3.6, "beta": 3.0, "gamma": 2.5}
    rows = []
    for t in range(n_tasks):
        split = "i2i" if t % 3 == 0 else "t2i"
        for m in MODELS:
            for j in JUDGES:
                score = min(5, max(1, round(skill[m] + rng.gauss(0, 1))))
                if split == "i2i":
                    result = {"mode": "edit", "criteria": {
                        "instruction_following": {"score": score},
                        "image_consistency": {"score": score}}}
                else:
                    result = {"subjective": {"image": {"mood_atmosphere": {"score": score}}}}
                rows.append({"prompt_id": f"t{t}", "model": m, "judge": j, "split": split,
                             "result": result})
    return rows


def _win_rates(rows: list[dict]) -> dict[str, float]:
    """Independent: per task, pair and judge compare; judges' majority; tie = 0.5."""
    table: dict = {}
    for r in rows:
        crit = r["result"].get("criteria") or r["result"]["subjective"]["image"]
        vals = [c["score"] for c in crit.values()]
        table.setdefault(r["prompt_id"], {}).setdefault(r["judge"], {})[r["model"]] = (
            sum(vals) / len(vals))
    points = {m: 0.0 for m in MODELS}
    games = {m: 0 for m in MODELS}
    for per_judge in table.values():
        for a, b in combinations(MODELS, 2):
            outcomes = ["a" if s[a] > s[b] else "b" if s[b] > s[a] else "tie"
                        for s in per_judge.values()]
            counts = {o: outcomes.count(o) for o in ("a", "b", "tie")}
            top = max(counts.values())
            leaders = [o for o, c in counts.items() if c == top]
            winner = leaders[0] if len(leaders) == 1 else "tie"
            points[a] += {"a": 1, "b": 0, "tie": 0.5}[winner]
            points[b] += {"a": 0, "b": 1, "tie": 0.5}[winner]
            games[a] += 1
            games[b] += 1
    return {m: 100 * points[m] / games[m] for m in MODELS}


def test_shown_tau_matches_scipy() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(2, 9))
        x, y = rng.integers(0, 4, n).tolist(), rng.integers(0, 4, n).tolist()
        ours = shown_tau(x, y)
        ref = kendalltau(x, y, variant="b").statistic
        assert (ours is None) == bool(np.isnan(ref))
        if ours is not None:
            assert ours == round(ref, 4)


def test_win_rates_and_tau_b(tmp_path: Path) -> None:
    rows = _rows(30, seed=1)
    judged = tmp_path / "judged.jsonl"
    judged.write_text("".join(json.dumps(r) + "\n" for r in rows))
    humans = [{"ranking": ["alpha", "beta", "gamma"]}]
    humans += [{"prompt_id": f"t{t}", "ranking": ["gamma", "beta", "alpha"] if t == 0 else
                ["alpha", "gamma", "beta"]} for t in range(6)]
    human = tmp_path / "humans.jsonl"
    human.write_text("".join(json.dumps(h) + "\n" for h in humans))
    report = build_run_report([judged], tmp_path / "run", human=human, n_boot=200)
    for split in ("all", "t2i", "i2i"):
        part = [r for r in rows if split == "all" or r["split"] == split]
        expected = _win_rates(part)
        board = report["leaderboards"][split]
        for m in board["models"]:
            assert abs(m["score"] - expected[m["model"]]) < 0.01
            assert m["ci95"][0] <= m["score"] <= m["ci95"][1]
    # tau_b: the panel's overall order (by win rate) and per-task order (mean grade)
    rates = {m["model"]: m["score"] for m in report["leaderboards"]["all"]["models"]}
    ref = kendalltau([1, 2, 3], [-rates[m] for m in ["alpha", "beta", "gamma"]],
                     variant="b").statistic
    assert abs(report["kendall_tau_b"]["overall"] - ref) < 1e-4
    taus = []
    for h in humans[1:]:
        task = [r for r in rows if r["prompt_id"] == h["prompt_id"]]
        means = {m: np.mean([_grade(r) for r in task if r["model"] == m]) for m in MODELS}
        stat = kendalltau([1, 2, 3], [-means[m] for m in h["ranking"]], variant="b").statistic
        if not np.isnan(stat):
            taus.append(stat)
    assert abs(report["kendall_tau_b"]["per_task_mean"] - np.mean(taus)) < 1e-3
    assert main(["tasks", "run-report", str(judged), "--out", str(tmp_path / "cli"),
                 "--bootstrap", "50"]) == 0


def _grade(r: dict) -> float:
    crit = r["result"].get("criteria") or r["result"]["subjective"]["image"]
    return float(np.mean([c["score"] for c in crit.values()]))
