"""``report.json`` of a synthetic study, every number recomputed here from the results lines."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from itertools import product
from statistics import NormalDist

import numpy as np
import pytest

from eval.studies.report import build_report, load_study
from eval.studies.report.load import MEASURES

from .report_data import BACKENDS, FAILED, PARTIAL, PRIMS, PROMPTERS, TASKS, rows, write_study

AGG = ("scored", "partial")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = write_study(tmp_path_factory.mktemp("study"))
    return build_report(load_study(folder), n_boot=200, n_perm=5000, seed=3)


def cell(report, p, b, c):
    (found,) = [
        x for x in report["cells"] if (x["prompter"], x["backend"], x["category"]) == (p, b, c)
    ]
    return found


def values(p, b, c, measure):
    return {
        r["task_id"]: r["summary"][measure]
        for r in rows()
        if (r["prompter"], r["backend"]) == (p, b)
        and r["status"] in AGG
        and c in ("all", r["category"])
        and r["summary"][measure] is not None
    }


def test_cells_grid_and_means(report):
    assert [c for c in report["study"]["categories"]] == ["OE", "CO", "all"]  # no IM task
    assert len(report["cells"]) == len(PROMPTERS) * len(BACKENDS) * 3
    first = report["cells"][0]
    assert list(first) == ["prompter", "backend", "category", "n_tasks", *MEASURES]
    assert set(first["subjective_prompt"]) == {"mean", "ci95"}
    for p, b, c in product(PROMPTERS, BACKENDS, ("OE", "CO", "all")):
        got = cell(report, p, b, c)
        n = sum(
            1
            for r in rows()
            if (r["prompter"], r["backend"]) == (p, b)
            and r["status"] in AGG
            and c in ("all", r["category"])
        )
        assert got["n_tasks"] == n
        for m in MEASURES:
            vals = list(values(p, b, c, m).values())
            want = sum(vals) / len(vals) if vals else None
            assert got[m]["mean"] == (None if want is None else pytest.approx(want, abs=1e-4))
    lost = cell(report, "m-nov", "b2", "CO")  # every CO item of m-nov on b2 failed
    assert lost["n_tasks"] == 0 and lost["subjective_prompt"] == {"mean": None, "ci95": None}


def test_cell_ci_equals_a_naive_loop_bootstrap(report):
    # m-sk × b2 × OE: the partial item has no image side; resamples draw the 3 OE tasks
    tasks = sorted(t for t, c in TASKS.items() if c == "OE")
    idx = np.random.default_rng(3).integers(0, len(tasks), size=(200, len(tasks)))
    for m in MEASURES:
        vals = values("m-sk", "b2", "OE", m)
        means = []
        for draw in idx:
            got = [vals[tasks[i]] for i in draw if tasks[i] in vals]
            if got:
                means.append(sum(got) / len(got))
        lo, hi = np.percentile(means, [2.5, 97.5])
        ci = cell(report, "m-sk", "b2", "OE")[m]["ci95"]
        assert ci == [pytest.approx(lo, abs=1e-4), pytest.approx(hi, abs=1e-4)]
        assert ci[0] <= cell(report, "m-sk", "b2", "OE")[m]["mean"] <= ci[1]


def test_per_primitive_rates(report):
    tally = defaultdict(lambda: [0, 0, 0, 0])
    for r in rows():
        if r["status"] not in AGG:
            continue
        for chk in r["summary"]["checks"]:
            t = tally[(r["prompter"], r["backend"], chk["primitive"])]
            t[0] += chk["prompt"] is True
            t[1] += chk["prompt"] is not None
            t[2] += chk["image"] is True
            t[3] += chk["image"] is not None
    got = {(x["prompter"], x["backend"], x["primitive"]): x for x in report["per_primitive"]}
    assert set(got) == set(tally) and {k[2] for k in got} == set(PRIMS)
    for key, (ph, pn, ih, inn) in tally.items():
        assert got[key]["prompt_rate"] == pytest.approx(100 * ph / pn, abs=0.01)
        assert got[key]["image_rate"] == pytest.approx(100 * ih / inn, abs=0.01)
        assert (got[key]["n_prompt"], got[key]["n_image"]) == (pn, inn)


def test_excluded_counts(report):
    ex = report["excluded"]
    statuses = Counter(s for s, _ in FAILED.values())
    assert ex["total"] == len(FAILED) == 5
    assert ex["by_status"] == dict(statuses)
    assert ex["by_reason"] == {
        "blocked": {"content filter": 1},
        "generation_failed": {"timeout": 2},
        "judge_failed": {"unparseable answer": 1},
        "prompt_failed": {"unspecified": 1},
    }
    assert ex["aggregated"] == len(rows()) - 5


def test_consistency_kendall_w_and_spearman(report):
    cons = report["consistency"]
    # subjective: both backends rank m-sk > h-sk > m-nov > h-nov
    assert cons["subjective_prompt"]["w"] == pytest.approx(1.0)
    # objective prompt rate: b2 swaps h-sk and m-nov; rank sums 8, 5, 5, 2, S = 18,
    # W = 12 * 18 / (2^2 * (4^3 - 4)) = 0.9; chi2 = 2 * 3 * 0.9 = 5.4 on 3 df
    w = cons["objective_prompt_rate"]
    assert w["w"] == pytest.approx(0.9) and w["chi2"] == pytest.approx(5.4) and w["df"] == 3
    # chi-square survival on 3 df in closed form: 2 (1 - Phi(sqrt x)) + sqrt(2 x / pi) e^(-x/2)
    x = 5.4
    p = 2 * (1 - NormalDist().cdf(math.sqrt(x))) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    assert w["p_value"] == pytest.approx(p, abs=1e-6)
    assert w["n_prompters"] == 4 and w["n_backends"] == 2 and w["left_out"] == []
    assert w["spearman"] == [{"a": "b1", "b": "b2", "rho": pytest.approx(0.8), "reason": None}]


def _w(grid: np.ndarray) -> float:
    """Kendall's W with the ties correction, straight from the textbook formula."""
    from scipy.stats import rankdata

    n, m = grid.shape
    ranks = np.column_stack([rankdata(grid[:, j]) for j in range(m)])
    s = float(((ranks.sum(axis=1) - m * (n + 1) / 2) ** 2).sum())
    ties = sum(
        float((c**3 - c).sum())
        for j in range(m)
        for c in [np.unique(grid[:, j], return_counts=True)[1]]
    )
    return 12 * s / (m**2 * (n**3 - n) - m * ties)


def test_consistency_within_each_category(report):
    for measure, cat in product(MEASURES, ("OE", "CO")):
        got = report["consistency"][measure]["by_category"][cat]
        grid = np.array(
            [
                [
                    np.mean(list(vals.values())) if (vals := values(p, b, cat, measure)) else np.nan
                    for b in BACKENDS
                ]
                for p in PROMPTERS
            ]
        )
        full = grid[np.isfinite(grid).all(axis=1)]
        assert got["n_prompters"] == len(full)
        if len(full) < 2 or np.ptp(full, axis=0).max() == 0:
            assert got["w"] is None and got["reason"]
        else:
            assert got["w"] == pytest.approx(_w(full), abs=1e-4), (measure, cat)
    assert set(report["consistency"]["subjective_prompt"]["by_category"]) == {"OE", "CO"}


def test_groups_paired_permutation(report):
    got = {(g["comparison"], g["backend"], g["measure"]): g for g in report["groups"]}
    assert {k[0] for k in got} == {
        "human vs mllm",
        "novice vs skilled",
        "novice vs skilled (human)",
        "novice vs skilled (mllm)",
    }
    # human vs mllm on all backends, subjective prompt: per task, mean of each side's items
    side = {p: "human" if PROMPTERS[p][0] == "human" else "mllm" for p in PROMPTERS}
    per = defaultdict(lambda: defaultdict(list))
    for r in rows():
        if r["status"] in AGG:
            per[r["task_id"]][side[r["prompter"]]].append(r["summary"]["subjective_prompt"])
    d = np.array([np.mean(per[t]["human"]) - np.mean(per[t]["mllm"]) for t in sorted(per)])
    flips = list(product((1, -1), repeat=len(d)))  # 64 <= 5000: the test is exact
    p = sum(abs(np.dot(s, d)) >= abs(d.sum()) - 1e-12 for s in flips) / len(flips)
    g = got[("human vs mllm", "all", "subjective_prompt")]
    assert g["difference"] == pytest.approx(d.mean(), abs=1e-4)
    assert g["p_value"] == pytest.approx(p) and g["n_pairs"] == 6 and g["exact"] is True
    assert g["first"] == ["h-nov", "h-sk"] and g["second"] == ["m-nov", "m-sk"]
    # per backend too; skilled beat novices on every task: the smallest exact p, 2 / 2^6
    nov = got[("novice vs skilled", "b1", "subjective_prompt")]
    assert nov["difference"] < 0 and nov["p_value"] == pytest.approx(2 / 64)


def test_bt_leaderboard_order(report):
    board = report["leaderboard"]["subjective_prompt"]
    assert [m["model"] for m in board["models"]] == ["m-sk", "h-sk", "m-nov", "h-nov"]
    assert board["method"] == "bt" and board["bootstrap"] == 200 and board["seed"] == 3
    # 6 tasks x 2 backends, minus items lost: the (task@backend) units with at least 2 scored
    assert board["n_prompts"] == 12
    top = board["models"][0]
    assert top["losses"] == 0 and top["ci95"] is not None
    # one game per pair of prompters scored on the same task and backend
    units = defaultdict(set)
    for r in rows():
        if r["status"] in AGG:
            units[(r["task_id"], r["backend"])].add(r["prompter"])
    games = Counter(p for who in units.values() for p in who for _ in range(len(who) - 1))
    assert {m["model"]: m["games"] for m in board["models"]} == dict(games)
    assert board["n_votes"] == sum(len(w) * (len(w) - 1) // 2 for w in units.values())


def test_single_backend_leaves_w_undefined(tmp_path):
    folder = write_study(tmp_path, rows(backends=("b1",)))
    rep = build_report(load_study(folder), n_boot=50, n_perm=100, seed=0)
    for m in MEASURES:
        c = rep["consistency"][m]
        assert c["w"] is None and "at least 2 backends" in c["reason"] and c["spearman"] == []
    assert {g["backend"] for g in rep["groups"]} == {"all"}
    assert PARTIAL[2] == "b2"  # the partial item lived on b2: all b1 items are scored
