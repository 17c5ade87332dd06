"""The trust statistics on a simulated judge with known truth (benchmarks/trust_sim.py).

The quality bar of issue 45, at suite size (the full runs are ``python -m benchmarks.trust``):
target 0.90, delta 0.10 — the realized agreement on held-out items reaches the target in at
least 90 of 100 seeds and a judge of plain agreement 0.80 keeps at least 60% of the items; a
cascade (cheap 0.75, strong 0.85) certifies the target with at least 40% fewer strong-judge
calls than the strong judge alone, at equal or greater coverage; rating intervals of level 0.9
hold the held-out human rating in 0.88–0.94 of cases. The bound is checked against scipy's
exact binomial test, computed independently.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy.stats import binomtest

from benchmarks.trust_sim import simulate, simulate_ratings
from eval.trust.binomial import kept_needed, min_kept, upper_bound
from eval.trust.conformal import rating_interval
from eval.trust.sequence import calibrate_kind, evaluate, evaluate_path, paths
from judge.trust.apply import interval

TARGET, DELTA = 0.9, 0.1


@pytest.mark.parametrize(("k", "n"), [(0, 22), (3, 65), (10, 200), (57, 600), (5, 5)])
def test_the_bound_is_the_exact_binomial_tests_interval(k, n):
    """Clopper-Pearson from beta quantiles == scipy's exact binomial test's one-sided bound."""
    independent = binomtest(k, n, 0.5, alternative="less").proportion_ci(1 - DELTA).high
    assert upper_bound(k, n, DELTA) == pytest.approx(independent, abs=1e-9)
    # and the bound is where the one-sided test stops rejecting
    risk = upper_bound(k, n, DELTA)
    if risk < 1.0:
        assert binomtest(k, n, risk + 1e-6, alternative="less").pvalue < DELTA
        assert binomtest(k, n, risk - 1e-6, alternative="less").pvalue > DELTA


def test_how_many_kept_items_a_target_needs():
    assert min_kept(0.9, 0.1) == 22  # 0.9 ** 22 < 0.1 < 0.9 ** 21
    assert 0.9**22 <= 0.1 < 0.9**21
    n = kept_needed(0.9, 0.1, agreement=0.95)
    assert upper_bound(round(0.05 * n), n, 0.1) <= 0.1
    assert kept_needed(0.9, 0.1, agreement=0.9) is None  # never, at the target itself


def test_one_judge_meets_the_target_in_90_of_100_seeds_and_keeps_60_percent():
    met, coverage = 0, []
    for seed in range(100):
        cal, held = simulate(800 + 20_000, {"judge": 0.80}, seed).split(800)
        assert abs(float(held.agree.mean()) - 0.80) < 0.02  # the judge is the one asked for
        chosen = calibrate_kind(cal.confidence, cal.agree, target=TARGET, delta=DELTA).chosen
        if chosen is None:  # nothing certified: nothing trusted, the guarantee holds
            met += 1
            coverage.append(0.0)
            continue
        point = evaluate(held.confidence, held.agree, chosen.thresholds, DELTA)
        met += point.agreement >= TARGET
        coverage.append(point.coverage)
    assert met >= 90, met
    assert np.mean(coverage) >= 0.60, np.mean(coverage)


def test_a_cascade_calls_the_strong_judge_on_40_percent_fewer_items():
    strong_calls, alone_calls, cov_cascade, cov_alone, met = [], [], [], [], 0
    for seed in range(20):
        sim = simulate(1000 + 20_000, {"cheap": 0.75, "strong": 0.85}, seed)
        cal, held = sim.split(1000)
        cascade = calibrate_kind(cal.confidence, cal.agree, target=TARGET, delta=DELTA).chosen
        alone = calibrate_kind(cal.confidence[1:], cal.agree[1:], target=TARGET, delta=DELTA).chosen
        assert cascade is not None and alone is not None
        pc = evaluate(held.confidence, held.agree, cascade.thresholds, DELTA)
        pa = evaluate(held.confidence[1:], held.agree[1:], alone.thresholds, DELTA)
        met += pc.agreement >= TARGET
        strong_calls.append(pc.calls[1])  # items that reached the strong judge
        alone_calls.append(pa.calls[0])  # the strong judge alone sees every item
        cov_cascade.append(pc.coverage)
        cov_alone.append(pa.coverage)
    assert met >= 17, met
    assert sum(strong_calls) <= 0.6 * sum(alone_calls), sum(strong_calls) / sum(alone_calls)
    assert np.mean(cov_cascade) >= np.mean(cov_alone), (np.mean(cov_cascade), np.mean(cov_alone))


def test_rating_intervals_of_level_90_hold_the_human_rating_88_to_94_percent():
    held_in, total = 0, 0
    for seed in range(100):
        judge, human, _ = simulate_ratings(500 + 2000, seed)
        spec = rating_interval(judge[:500], human[:500], alpha=0.1)
        assert spec is not None and spec.step == 1.0
        for score, rating in zip(judge[500:], human[500:], strict=True):
            lo, hi = interval(float(score), spec)
            assert lo == int(lo) and hi == int(hi) and 1 <= lo <= hi <= 5  # whole points
            held_in += lo <= rating <= hi
            total += 1
    assert 0.88 <= held_in / total <= 0.94, held_in / total


def test_a_whole_path_at_once_gives_each_configurations_own_figures():
    sim = simulate(300, {"cheap": 0.75, "strong": 0.85}, seed=3)
    conf = sim.confidence.copy()
    conf[0, :20] = np.nan  # some answers without confidence
    for path in paths(2) + paths(1):
        stages = len(path[0])
        at_once = evaluate_path(conf[-stages:], sim.agree[-stages:], path, DELTA)
        for point, thresholds in zip(at_once, path, strict=True):
            one = evaluate(conf[-stages:], sim.agree[-stages:], thresholds, DELTA)
            assert point.upper == pytest.approx(one.upper, abs=1e-12)
            assert replace(point, upper=0.0) == replace(one, upper=0.0)
