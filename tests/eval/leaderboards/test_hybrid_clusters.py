"""Cluster-robust (by prompt) intervals of the hybrid boards when votes share a prompt.

Simulation (benchmarks/hybrid_sim.py ``simulate_prompts``): 300 prompts, every pair of six
models on each (4500 items), each prompt shifting every model's strength for humans and judge
alike (sd 1.5) plus the judge's own per-prompt taste (sd 1.5); humans label every pair of 40
random prompts. Over 150 seeds (900 intervals, Monte Carlo error about 0.8 points) the
cluster-robust 95% intervals cover the true scores at 0.92–0.98; the intervals that treat
the items as independent cover at most 0.90 and at least 3 points less.
"""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.hybrid_sim import M, simulate_prompts, true_pair_wins
from eval.leaderboards.hybrid import build_hybrid_leaderboard
from eval.leaderboards.hybrid_bt import fit_hybrid_bt
from eval.leaderboards.votes import Vote

RUNS = 150
Z = 1.959964
SD = 1.5


@pytest.mark.slow
def test_clustered_bt_intervals_keep_coverage_where_independent_ones_do_not():
    a0, b0 = np.triu_indices(M, 1)
    wins = true_pair_wins(prompt_sd=SD)
    truth = fit_hybrid_bt(M, a0, b0, wins, wins, lam=0.0).scores  # BT of the expected labels
    cover = {"independent": [], "clustered": []}
    for seed in range(RUNS):
        rng = np.random.default_rng(seed)
        prompt, a, b, y, yhat = simulate_prompts(rng, prompt_sd=SD, judge_sd=SD)
        y = np.where(np.isin(prompt, rng.permutation(300)[:40]), y, np.nan)
        for name, groups in (("independent", None), ("clustered", prompt)):
            fit = fit_hybrid_bt(M, a, b, y, yhat, clusters=groups)
            cover[name].append(np.abs(fit.scores - truth) <= Z * fit.se)
    rate = {k: float(np.mean(v)) for k, v in cover.items()}
    assert 0.92 <= rate["clustered"] <= 0.98, rate
    assert rate["independent"] <= 0.90, rate
    assert rate["independent"] <= rate["clustered"] - 0.03, rate


def test_one_item_per_cluster_is_the_independent_covariance_up_to_g_over_g_minus_1():
    rng = np.random.default_rng(3)
    _, a, b, y, yhat = simulate_prompts(rng, 100, prompt_sd=0.0)
    y = np.where(rng.random(y.size) < 0.2, y, np.nan)
    for pi in (None, np.full(y.size, 0.2)):
        plain = fit_hybrid_bt(M, a, b, y, yhat, pi=pi, lam=0.7)
        single = fit_hybrid_bt(M, a, b, y, yhat, pi=pi, lam=0.7, clusters=np.arange(y.size))
        np.testing.assert_allclose(single.scores, plain.scores)
        np.testing.assert_allclose(single.se, plain.se, rtol=0.02)


def test_boards_cluster_by_prompt_by_default_when_prompts_hold_several_pairs():
    rng = np.random.default_rng(5)
    prompt, a, b, y, yhat = simulate_prompts(rng, 120, prompt_sd=SD, judge_sd=SD)
    names = [f"m{i}" for i in range(M)]
    judge = [Vote(f"p{p}", names[i], names[j], "a" if w > 0.5 else "b", "pref")
             for p, i, j, w in zip(prompt, a, b, yhat, strict=True)]  # fmt: skip
    human = [Vote(f"p{p}:{names[i]}-vs-{names[j]}", names[i], names[j], "a" if w else "b", "pref")
             for p, i, j, w in zip(prompt, a, b, y, strict=True) if p % 4 == 0]  # fmt: skip
    board = build_hybrid_leaderboard(human, judge)
    assert board["variance"] == "clustered by prompt"
    assert board["n_prompts"] == 120
    one_each = [Vote(f"q{k}", v.model_a, v.model_b, v.winner, "pref") for k, v in enumerate(judge)]
    human_each = [Vote(f"q{k}", v.model_a, v.model_b, "a", "pref") for k, v in
                  enumerate(judge) if k % 4 == 0]  # fmt: skip
    plain = build_hybrid_leaderboard(human_each, one_each, method="winrate")
    assert plain["variance"] == "independent items"
