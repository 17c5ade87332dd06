"""``python -m benchmarks.leaderboard``: time a Bradley–Terry leaderboard on synthetic votes.

Models get known strengths (log-normal); every vote picks a prompt and two different models at
random, and the outcome follows the Bradley–Terry probability, with a share of ties. The votes
are written to a JSONL file and the timed part is what ``judge leaderboard rank`` does: read the
file, tally, fit, bootstrap. Wall and CPU time are both reported (CPU time is the figure to
trust on a shared, busy machine). The Spearman correlation of the recovered scores with the
true strengths is reported as a sanity check.

Example:
    >>> out = run_bench(n_votes=2000, n_models=5, n_prompts=100, n_boot=50, seed=1)
    >>> out["spearman_vs_truth"] > 0.8
    True
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from eval.leaderboards.board import build_leaderboard
from eval.leaderboards.votes import Vote, read_votes, write_votes

TIE_SHARE = 0.1


def synthetic_votes(
    n_votes: int, n_models: int, n_prompts: int, seed: int, criterion: str = "preference"
) -> tuple[list[Vote], dict[str, float]]:
    """Votes drawn from known strengths; returns the votes and the strengths (sum 100)."""
    rng = np.random.default_rng(seed)
    strength = np.exp(rng.normal(0.0, 0.8, n_models))
    names = [f"model-{i:02d}" for i in range(n_models)]
    a = rng.integers(0, n_models, n_votes)
    b = (a + rng.integers(1, n_models, n_votes)) % n_models
    p_a = strength[a] / (strength[a] + strength[b])
    u = rng.random(n_votes)
    tie = rng.random(n_votes) < TIE_SHARE
    winner = np.where(tie, "tie", np.where(u < p_a, "a", "b"))
    prompt = rng.integers(0, n_prompts, n_votes)
    votes = [
        Vote(f"p{p}", names[i], names[j], str(w), criterion)
        for p, i, j, w in zip(prompt, a, b, winner, strict=True)
    ]
    truth = dict(zip(names, (100 * strength / strength.sum()).tolist(), strict=True))
    return votes, truth


def run_bench(
    *,
    n_votes: int = 100_000,
    n_models: int = 20,
    n_prompts: int = 1_000,
    n_boot: int = 1_000,
    seed: int = 0,
    out: Path | None = None,
) -> dict:
    """Generate, write, then time reading + the BT leaderboard with ``n_boot`` resamples."""
    votes, truth = synthetic_votes(n_votes, n_models, n_prompts, seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = write_votes(votes, out or Path(tmp) / "votes.jsonl")
        c0, t0 = time.process_time(), time.perf_counter()
        read = read_votes(path)
        t1 = time.perf_counter()
        board = build_leaderboard(read, method="bt", n_boot=n_boot, seed=seed)
        c2, t2 = time.process_time(), time.perf_counter()
    scores = {r["model"]: r["score"] for r in board["models"]}
    names = sorted(truth)
    rho = spearmanr([truth[n] for n in names], [scores[n] for n in names]).statistic
    return {
        "n_votes": n_votes,
        "n_models": n_models,
        "n_prompts": n_prompts,
        "bootstrap": n_boot,
        "read_s": round(t1 - t0, 3),
        "fit_s": round(t2 - t1, 3),
        "total_s": round(t2 - t0, 3),
        "cpu_s": round(c2 - c0, 3),
        "spearman_vs_truth": round(float(rho), 4),
        "votes_file": str(out) if out else None,
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.leaderboard``: generate synthetic votes and time the BT board."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.leaderboard", description=__doc__)
    p.add_argument("--votes", type=int, default=100_000)
    p.add_argument("--models", type=int, default=20)
    p.add_argument("--prompts", type=int, default=1_000)
    p.add_argument("--bootstrap", type=int, default=1_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, help="keep the synthetic votes in this file")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if min(args.votes, args.models - 1, args.prompts, args.bootstrap) < 1:
        print("benchmarks.leaderboard: need votes, prompts, bootstrap >= 1 and models >= 2",
              file=sys.stderr)
        return 2
    out = run_bench(
        n_votes=args.votes,
        n_models=args.models,
        n_prompts=args.prompts,
        n_boot=args.bootstrap,
        seed=args.seed,
        out=args.out,
    )
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"{out['n_votes']} votes, {out['n_models']} models, {out['n_prompts']} prompts, "
            f"{out['bootstrap']} resamples: read {out['read_s']:.2f} s + BT {out['fit_s']:.2f} s "
            f"= {out['total_s']:.2f} s wall ({out['cpu_s']:.2f} s CPU); "
            f"spearman vs true strengths {out['spearman_vs_truth']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
