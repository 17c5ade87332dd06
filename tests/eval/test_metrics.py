"""Tests for eval.metaeval.stats, eval.metaeval.agreement and the kit's bootstrap and α."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from scipy.stats import kendalltau, pearsonr, spearmanr

from eval.kit.stats.bootstrap import bootstrap_ci
from eval.kit.stats.krippendorff import krippendorff_alpha
from eval.metaeval.agreement import human_baseline, inter_rater
from eval.metaeval.stats import (
    classification_metrics,
    macro_average,
    micro_objective,
    regression_metrics,
    slice_metrics,
)

NAN = float("nan")


def _correlated(n: int, seed: int, integer: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    h = rng.normal(3, 1, n)
    p = h + rng.normal(0, 0.8, n)
    if integer:  # 1-5 Likert scores: many ties
        h, p = np.clip(np.round(h), 1, 5), np.clip(np.round(p), 1, 5)
    return p, h


# ------------------------------------------------------------------ regression metrics


def test_mae_and_within1_by_hand() -> None:
    pred = [1, 3, 4, 5, 2]
    human = [2, 3, 2, 5, 4.5]
    # |diff| = 1, 0, 2, 0, 2.5 -> MAE = 5.5 / 5 = 1.1; within 1: items 1, 2, 4 -> 3 / 5 = 0.6
    m = regression_metrics(pred, human, n_boot=0)
    assert m["n"] == 5
    assert m["mae"] == pytest.approx(1.1)
    assert m["within1"] == pytest.approx(0.6)


def test_within1_tolerates_float_means() -> None:
    # 14/3 - 11/3 is 1 up to rounding error: still within 1
    m = regression_metrics([14 / 3], [11 / 3], n_boot=0)
    assert m["within1"] == 1.0


def test_monotone_pair_has_rank_correlations_one() -> None:
    m = regression_metrics([1, 2, 3, 4, 5], [2, 4, 8, 16, 32], n_boot=0)
    assert m["spearman"] == pytest.approx(1.0)
    assert m["kendall"] == pytest.approx(1.0)
    assert m["pearson"] < 0.99  # not linear


def test_kendall_tau_b_with_ties_by_hand() -> None:
    # pairs of items (1,2) (1,3) (1,4) (2,3) (2,4) (3,4):
    # x = 1 2 2 3, y = 1 2 3 3: C C C x-tie C y-tie -> n_c = 4, n_d = 0, n0 = 6, n1 = n2 = 1
    # tau_b = (4 - 0) / sqrt((6 - 1) * (6 - 1)) = 0.8   (tau_a would be 4 / 6)
    m = regression_metrics([1, 2, 2, 3], [1, 2, 3, 3], n_boot=0)
    assert m["kendall"] == pytest.approx(0.8)
    # x = 1 2 2 3, y = 2 1 3 3: D C C x-tie C y-tie -> (3 - 1) / 5 = 0.4
    m = regression_metrics([1, 2, 2, 3], [2, 1, 3, 3], n_boot=0)
    assert m["kendall"] == pytest.approx(0.4)


@pytest.mark.parametrize("integer", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_scipy(seed: int, integer: bool) -> None:
    p, h = _correlated(60, seed, integer)
    m = regression_metrics(p, h, n_boot=0)
    assert m["spearman"] == pytest.approx(spearmanr(p, h).statistic, abs=1e-12)
    assert m["kendall"] == pytest.approx(kendalltau(p, h, variant="b").statistic, abs=1e-12)
    assert m["pearson"] == pytest.approx(pearsonr(p, h).statistic, abs=1e-12)
    assert m["mae"] == pytest.approx(float(np.mean(np.abs(p - h))))


def test_missing_values_are_dropped_and_counted() -> None:
    pred = [1, None, 3, NAN, 5, 2]
    human = [1, 2, None, 4, 4, 2]
    m = regression_metrics(pred, human, n_boot=50)
    assert m["n"] == 3  # pairs (1,1) (5,4) (2,2)
    assert m["mae"] == pytest.approx(1 / 3)
    clean = regression_metrics([1, 5, 2], [1, 4, 2], n_boot=50)
    # the same metrics; only the coverage differs (3 scored of the 5 items with a label)
    assert (m["n_total"], m["coverage"], clean["n_total"], clean["coverage"]) == (5, 0.6, 3, 1.0)
    cov = ("n_total", "coverage")
    assert {k: v for k, v in m.items() if k not in cov} == {
        k: v for k, v in clean.items() if k not in cov
    }


def test_constant_side_gives_none_correlations() -> None:
    m = regression_metrics([3, 3, 3, 3], [1, 2, 3, 4], n_boot=100)
    for k in ("spearman", "kendall", "pearson"):
        assert m[k] is None
        assert m["ci95"][k] == [None, None]
    assert m["mae"] == pytest.approx(1.0)  # (2 + 1 + 0 + 1) / 4
    json.dumps(m, allow_nan=False)  # serialise-friendly: no nan anywhere


def test_too_few_pairs_and_empty() -> None:
    m = regression_metrics([1, 2], [2, 1], n_boot=100)
    assert m["n"] == 2 and m["spearman"] is None and m["mae"] == 1.0
    e = regression_metrics([], [], n_boot=100)
    assert e["n"] == 0 and e["mae"] is None and e["within1"] is None
    assert e["ci95"]["mae"] == [None, None]
    with pytest.raises(ValueError):
        regression_metrics([1, 2], [1], n_boot=0)


def test_regression_ci_contains_point_and_is_deterministic() -> None:
    p, h = _correlated(200, 3, integer=True)
    a = regression_metrics(p, h, n_boot=500, seed=7)
    b = regression_metrics(p, h, n_boot=500, seed=7)
    c = regression_metrics(p, h, n_boot=500, seed=8)
    assert a == b
    assert a["ci95"] != c["ci95"]
    for k in ("spearman", "kendall", "pearson", "mae", "within1"):
        lo, hi = a["ci95"][k]
        assert lo < a[k] < hi, k


def test_regression_metrics_with_many_resamples() -> None:
    # speed is a benchmark's business (`judge meta-eval` reports its timings), not a unit test's:
    # here only that 1000 resamples of 500 tied integer ratings give every interval
    p, h = _correlated(500, 4, integer=True)
    m = regression_metrics(p, h, n_boot=1000)
    assert all(v[0] is not None for v in m["ci95"].values())


def test_macro_average() -> None:
    per = {
        "a": {"spearman": 0.8, "kendall": 0.6, "pearson": 0.7, "mae": 0.5, "within1": 0.9},
        "b": {"spearman": 0.4, "kendall": None, "pearson": 0.5, "mae": 1.0, "within1": 0.7},
        "other": {"spearman": -1.0, "kendall": -1.0, "pearson": -1.0, "mae": 9, "within1": 0},
    }
    avg = macro_average(per, ["a", "b", "missing"])
    assert avg["spearman"] == pytest.approx(0.6)
    assert avg["kendall"] == pytest.approx(0.6)  # None skipped
    assert avg["mae"] == pytest.approx(0.75)
    assert avg["within1"] == pytest.approx(0.8)
    assert avg["n_targets"] == 2
    assert macro_average(per, [])["spearman"] is None


def test_slice_metrics() -> None:
    pred = [1, 2, 3, 4, 5, 1, 2, None, 3]
    human = [1, 2, 3, 5, 4, 1, 2, 3, 3]
    keys = ["g1", "g1", "g1", "g2", "g2", "g2", "g3", "g3", None]
    s = slice_metrics(pred, human, keys, n_boot=50)
    assert list(s) == ["g1", "g2"]  # g3 has 1 usable pair, the None-key item is left out
    assert s["g1"]["spearman"] == pytest.approx(1.0) and s["g1"]["n"] == 3
    assert s["g2"] == regression_metrics([4, 5, 1], [5, 4, 1], n_boot=50)
    assert list(slice_metrics(pred, human, keys, min_n=1, n_boot=0)) == ["g1", "g2", "g3"]


# ------------------------------------------------------------------------- bootstrap


def test_bootstrap_deterministic_under_seed() -> None:
    x = np.random.default_rng(0).normal(size=100)
    a = bootstrap_ci(lambda v: float(np.mean(v)), x, n_boot=300, seed=5)
    b = bootstrap_ci(lambda v: float(np.mean(v)), x, n_boot=300, seed=5)
    c = bootstrap_ci(lambda v: float(np.mean(v)), x, n_boot=300, seed=6)
    assert a == b
    assert a != c
    assert a[0] < float(np.mean(x)) < a[1]


def test_bootstrap_vectorized_matches_loop() -> None:
    x, y = _correlated(80, 1)
    loop = bootstrap_ci(lambda a, b: float(np.mean(a - b)), x, y, n_boot=200, seed=2)
    vec = bootstrap_ci(
        lambda a, b: np.mean(a - b, axis=-1), x, y, n_boot=200, seed=2, vectorized=True
    )
    assert loop == pytest.approx(vec)


def test_bootstrap_resamples_rows_jointly() -> None:
    x = np.arange(50.0)
    # identical columns stay identical in every resample -> difference is always exactly 0
    assert bootstrap_ci(lambda a, b: float(np.max(np.abs(a - b))), x, x.copy(), n_boot=50) == (
        0.0,
        0.0,
    )


def test_bootstrap_skips_undefined_and_gives_nan_when_too_few() -> None:
    calls = iter(range(10_000))

    def sometimes(v: np.ndarray) -> float:
        return NAN if next(calls) % 4 == 0 else float(np.mean(v))

    lo, hi = bootstrap_ci(sometimes, np.arange(30.0), n_boot=200)
    assert math.isfinite(lo) and math.isfinite(hi)
    lo, hi = bootstrap_ci(lambda v: NAN, np.arange(30.0), n_boot=100)
    assert math.isnan(lo) and math.isnan(hi)
    assert all(math.isnan(v) for v in bootstrap_ci(np.mean, np.array([]), n_boot=10))


def test_bootstrap_cheap_metric_is_one_array_call() -> None:
    # what makes a vectorized metric cheap: one call on the whole (n_boot, n) block instead of
    # n_boot Python calls -- counted, not timed; and it gives the looped path's interval
    p, h = _correlated(500, 0)
    shapes: list[tuple[int, ...]] = []

    def mae(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        shapes.append(a.shape)
        return np.mean(np.abs(a - b), axis=-1)

    fast = bootstrap_ci(mae, p, h, n_boot=1000, vectorized=True)
    assert shapes == [(1000, 500)]
    assert fast == pytest.approx(bootstrap_ci(lambda a, b: float(mae(a, b)), p, h, n_boot=1000))


def test_cluster_bootstrap_deterministic_and_wider() -> None:
    # 40 clusters of 5 identical rows: rows within a cluster carry no extra information,
    # so the cluster bootstrap interval must be clearly wider than the row bootstrap one.
    base = np.random.default_rng(1).normal(size=40)
    x = np.repeat(base, 5)
    cl = np.repeat(np.arange(40), 5)
    mean = lambda v: float(np.mean(v))  # noqa: E731
    a = bootstrap_ci(mean, x, n_boot=400, seed=3, clusters=cl)
    assert a == bootstrap_ci(mean, x, n_boot=400, seed=3, clusters=cl)
    rows = bootstrap_ci(mean, x, n_boot=400, seed=3)
    assert (a[1] - a[0]) > 1.5 * (rows[1] - rows[0])


# -------------------------------------------------------------------- classification


def test_classification_confusion_matrix_by_hand() -> None:
    #        tp    tp    tp    fp     tn     tn     fn     fn     unscored unscored
    pred = [True, True, True, True, False, False, False, False, None, None]
    gold = [True, True, True, False, False, False, True, True, True, False]
    c = classification_metrics(pred, gold, n_boot=200)
    assert (c["tp"], c["fp"], c["tn"], c["fn"]) == (3, 1, 2, 2)
    assert c["n"] == 8 and c["unscored"] == 2 and c["unlabeled"] == 0
    assert c["accuracy"] == pytest.approx(5 / 8)
    assert c["precision"] == pytest.approx(3 / 4)
    assert c["recall"] == pytest.approx(3 / 5)
    assert c["f1"] == pytest.approx(2 * 3 / (2 * 3 + 1 + 2))  # = 2PR / (P + R) = 2/3
    lo, hi = c["ci95"]["accuracy"]
    assert 0 <= lo <= c["accuracy"] <= hi <= 1


def test_classification_undefined_and_unlabeled() -> None:
    c = classification_metrics([False, False, None, True], [False, False, False, None], n_boot=50)
    assert c["n"] == 2 and c["unscored"] == 1 and c["unlabeled"] == 1
    assert c["accuracy"] == 1.0
    assert c["f1"] is None and c["precision"] is None and c["recall"] is None
    assert c["ci95"]["f1"] == [None, None]
    empty = classification_metrics([None], [True], n_boot=50)
    assert empty["n"] == 0 and empty["accuracy"] is None and empty["unscored"] == 1
    json.dumps(c, allow_nan=False)


def test_micro_objective_pools_items() -> None:
    groups = {
        "prompt": ([True, True, False, None], [True, False, False, True]),
        "image": ([True, False, False], [True, True, False]),
    }
    r = micro_objective(groups, n_boot=100, seed=1)
    assert set(r) == {"prompt", "image", "overall"}
    assert r["prompt"]["accuracy"] == pytest.approx(2 / 3)
    assert r["image"]["accuracy"] == pytest.approx(2 / 3)
    o = r["overall"]
    assert (o["tp"], o["fp"], o["tn"], o["fn"]) == (2, 1, 2, 1)
    assert o["n"] == 6 and o["unscored"] == 1
    assert o["accuracy"] == pytest.approx(4 / 6)
    assert o["f1"] == pytest.approx(4 / 6)
    with pytest.raises(ValueError):
        micro_objective({"overall": ([True], [True])})


# ---------------------------------------------------------------- Krippendorff's alpha

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 observers x 12 units,
# missing values allowed. Here as units x raters (transposed).
_K = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]
KRIPP = [list(col) for col in zip(*_K, strict=True)]


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_published_example(level: str, published: float) -> None:
    assert round(krippendorff_alpha(KRIPP, level), 3) == published


def _brute_alpha(matrix: list[list[float | None]], level: str) -> float:
    """α = 1 - D_o / D_e straight from the pairwise definition (no coincidence matrix)."""
    units = [[v for v in row if v is not None] for row in matrix]
    units = [u for u in units if len(u) >= 2]
    pooled = [v for u in units for v in u]
    n = len(pooled)
    freq = {v: pooled.count(v) for v in set(pooled)}
    ordered = sorted(freq)

    def d2(a: float, b: float) -> float:
        if level == "nominal":
            return float(a != b)
        if level == "interval":
            return (a - b) ** 2
        lo, hi = min(a, b), max(a, b)
        between = sum(freq[g] for g in ordered if lo <= g <= hi)
        return (between - (freq[a] + freq[b]) / 2) ** 2

    d_o = (
        sum(
            d2(u[i], u[j]) / (len(u) - 1)
            for u in units
            for i, j in itertools.permutations(range(len(u)), 2)
        )
        / n
    )
    d_e = sum(d2(pooled[i], pooled[j]) for i, j in itertools.permutations(range(n), 2)) / (
        n * (n - 1)
    )
    return 1 - d_o / d_e


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_krippendorff_matches_brute_force(level: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, 15)
    matrix: list[list[float | None]] = []
    for t in truth:
        row: list[float | None] = [
            float(np.clip(t + rng.integers(-1, 2), 1, 5)) if rng.random() > 0.25 else None
            for _ in range(4)
        ]
        matrix.append(row)
    assert krippendorff_alpha(matrix, level) == pytest.approx(_brute_alpha(matrix, level))
    assert krippendorff_alpha(KRIPP, level) == pytest.approx(_brute_alpha(KRIPP, level))


def test_krippendorff_edge_cases() -> None:
    perfect = [[1, 1, 1], [2, 2, None], [5, 5, 5], [3, None, 3]]
    for level in ("nominal", "ordinal", "interval", "ratio"):
        assert krippendorff_alpha(perfect, level) == pytest.approx(1.0)
    assert math.isnan(krippendorff_alpha([[4, 4], [4, 4]]))  # no variation: undefined
    assert math.isnan(krippendorff_alpha([[1, None], [None, 2]]))  # nothing pairable
    assert math.isnan(krippendorff_alpha([]))
    # a unit with a single rating does not change alpha
    with_single = [*KRIPP, [None, 1, None, None]]
    assert krippendorff_alpha(with_single) == pytest.approx(krippendorff_alpha(KRIPP))
    assert krippendorff_alpha(np.array(KRIPP, dtype=float)) == krippendorff_alpha(KRIPP)
    with pytest.raises(ValueError):
        krippendorff_alpha(KRIPP, "cardinal")  # type: ignore[arg-type]


# ---------------------------------------------------------------- human baseline


RATINGS = {
    "i1": {"a": 1, "b": 2, "c": 3},
    "i2": {"a": 4, "b": 4},
    "i3": {"a": 2, "b": 5, "c": 5},
    "i4": {"a": 5},  # one rating: no leave-one-out reference
    "i5": {"a": None, "b": 3, "c": 4},
}
# (rater score, mean of the others), worked out by hand:
# i1: a 1 vs (2+3)/2 = 2.5, b 2 vs (1+3)/2 = 2, c 3 vs (1+2)/2 = 1.5
# i2: a 4 vs 4, b 4 vs 4
# i3: a 2 vs 5, b 5 vs 3.5, c 5 vs 3.5
# i5: b 3 vs 4, c 4 vs 3
PAIRS = [(1, 2.5), (2, 2), (3, 1.5), (4, 4), (4, 4), (2, 5), (5, 3.5), (5, 3.5), (3, 4), (4, 3)]


def test_human_baseline_by_hand() -> None:
    hb = human_baseline(RATINGS, n_boot=200, seed=0, min_rater_items=3)
    assert hb["pairs"] == hb["n"] == 10
    assert hb["items"] == 4 and hb["raters"] == 3
    # |diff| = 1.5 0 1.5 0 0 3 1.5 1.5 1 1 -> MAE 11 / 10; within 1: 0 0 0 1 1 -> 5 / 10
    assert hb["mae"] == pytest.approx(1.1)
    assert hb["within1"] == pytest.approx(0.5)
    s, r = zip(*PAIRS, strict=True)
    assert hb["spearman"] == pytest.approx(spearmanr(s, r).statistic)
    assert hb["pearson"] == pytest.approx(pearsonr(s, r).statistic)
    # per rater (>= 3 items): a: [1 4 2] vs [2.5 4 5] -> ranks 1 3 2 / 1 2 3 -> rho = 0.5
    # c: [3 5 4] vs [1.5 3.5 3] -> rho = 1; b: [2 4 5 3] vs [2 4 3.5 4] -> rho = 1.5/sqrt(22.5)
    per = hb["per_rater_spearman"]
    assert per["a"] == pytest.approx(0.5)
    assert per["c"] == pytest.approx(1.0)
    assert per["b"] == pytest.approx(1.5 / math.sqrt(22.5))
    assert hb["per_rater_spearman_median"] == pytest.approx(0.5)
    lo, hi = hb["ci95"]["mae"]
    assert lo <= hb["mae"] <= hi
    # default: raters need >= 5 items -> nobody qualifies
    assert human_baseline(RATINGS, n_boot=0)["per_rater_spearman_median"] is None
    assert human_baseline(RATINGS, n_boot=50, seed=4) == human_baseline(RATINGS, n_boot=50, seed=4)


def test_inter_rater_counts_and_alpha() -> None:
    r = inter_rater(RATINGS)
    assert (r["raters"], r["items"], r["pairable_items"], r["ratings"]) == (3, 5, 4, 11)
    matrix = [[1, 2, 3], [4, 4, None], [2, 5, 5], [5, None, None], [None, 3, 4]]
    assert r["alpha_interval"] == pytest.approx(krippendorff_alpha(matrix, "interval"))
    assert r["alpha_ordinal"] == pytest.approx(krippendorff_alpha(matrix, "ordinal"))
    assert inter_rater({"x": {"a": 2, "b": 2}})["alpha_interval"] is None


def test_coverage_counts_scored_over_labelled_items():
    m = regression_metrics([3, None, 4, 2, None], [3, 5, 5, 1, None], n_boot=0)
    assert (m["n"], m["n_total"], m["coverage"]) == (3, 4, 0.75)
    empty = regression_metrics([None, None], [1, 2], n_boot=0)
    assert (empty["n"], empty["n_total"], empty["coverage"]) == (0, 2, 0.0)


def test_paired_spearman_margin():
    from eval.metaeval.stats import paired_spearman_margin

    rng = np.random.default_rng(0)
    human = rng.normal(size=60)
    good = human + rng.normal(scale=0.2, size=60)
    weak = human + rng.normal(scale=3.0, size=60)
    r = paired_spearman_margin(good, weak, human, n_boot=300, seed=1)
    assert r["n"] == 60 and r["margin"] > 0.3
    assert r["ci95"][0] > 0 and r["ci_excludes_zero"] is True
    same = paired_spearman_margin(good, good, human, n_boot=100)
    assert same["margin"] == 0.0 and same["ci_excludes_zero"] is False
    few = paired_spearman_margin([1, 2], [2, 1], [1, 2], n_boot=100)
    assert few["margin"] is None and few["ci_excludes_zero"] is None
