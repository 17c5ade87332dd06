"""``python -m benchmarks.hybrid``: what the judge saves in human votes, and what it costs to run.

Three actions, all on simulated votes with known truth (:mod:`benchmarks.hybrid_sim`):

* ``votes DIR`` writes ``DIR/human.csv`` (a campaign-style export of the humans' votes on a
  random share of the items) and ``DIR/judge.jsonl`` (the judge's ComparisonResults on every
  item), for trying ``judge leaderboard rank HUMAN --judge-votes JUDGE``;
* ``savings`` sweeps the judge's skill (so its agreement with the humans) and reports, per
  level, the mean tuned ``lam``, the hybrid and human-only interval widths on the same human
  votes, and the human votes a human-only board would need for the hybrid's width
  (``human_votes_equivalent``) and so the votes saved; a table, and with ``--out`` a JSON
  file and a plot;
* ``timing`` times the hybrid Bradley–Terry and win-rate boards (the estimator on arrays,
  and the whole board from votes: pairing, hybrid, human-only, judge-only, bias) for
  ``--models`` models, ``--judge`` judge votes and ``--human`` human votes; wall and CPU time.

Example:
    >>> rows = savings(skills=(1.0,), runs=3, n_items=2000, n_human=200)
    >>> rows[0]["human_votes_equivalent"] > 200
    True
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.hybrid_sim import simulate
from eval.leaderboards.hybrid import build_hybrid_leaderboard
from eval.leaderboards.hybrid_bt import fit_hybrid_bt
from eval.leaderboards.hybrid_winrate import winrate_estimates
from eval.leaderboards.votes import Vote, write_votes

SKILLS = (0.0, 0.25, 0.5, 0.75, 0.9, 1.0)
OUTCOME = {1.0: "a", 0.0: "b", 0.5: "tie"}


def _winner(share: float) -> str:
    return "a" if share > 0.5 else "b" if share < 0.5 else "tie"


def write_example(
    folder: Path,
    *,
    n_items: int = 3000,
    n_human: int = 300,
    seed: int = 0,
    selection: Path | None = None,
) -> dict:
    """Write the example votes; return the counts and the true scores. With ``selection``
    (a ``judge leaderboard select`` file of these judge votes) the humans answer the items
    it selected instead of ``n_human`` random ones."""
    from benchmarks.hybrid_sim import M, true_scores

    rng = np.random.default_rng(seed)
    a, b, y, yhat = simulate(rng, n_items)
    names = [f"model-{chr(ord('a') + i)}" for i in range(M)]
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "judge.jsonl", "w", encoding="utf-8") as fh:
        for i in range(n_items):
            row = {"comparison_id": f"p{i:05d}", "status": "scored",
                   "models": {"a": names[a[i]], "b": names[b[i]]},
                   "criteria": {"preference": {"winner": _winner(yhat[i])}}}  # fmt: skip
            fh.write(json.dumps(row) + "\n")
    labelled = np.flatnonzero(rng.permutation(n_items) < n_human)
    if selection is not None:
        rows = [json.loads(line) for line in selection.read_text().splitlines() if line.strip()]
        chosen = {r["prompt_id"] for r in rows if r.get("selected")}
        labelled = np.array([i for i in range(n_items) if f"p{i:05d}" in chosen], dtype=int)
    human = []
    for i in labelled:  # as a campaign export names them: PROMPT:A-vs-B, sides as shown
        first, second = names[b[i]], names[a[i]]
        winner = "b" if y[i] else "a"
        human.append(Vote(f"p{i:05d}:{first}-vs-{second}", first, second, winner, "preference",
                          f"ann-{i % 7}"))  # fmt: skip
    write_votes(human, folder / "human.csv")
    truth = {n: round(float(s), 2) for n, s in zip(names, true_scores(), strict=True)}
    return {"judge_votes": n_items, "human_votes": len(human), "true_scores": truth}


def _agreement(y: np.ndarray, yhat: np.ndarray) -> float:
    """Share of items where the judge's majority names the human's winner (a tie: half)."""
    judged = np.where(yhat > 0.5, 1.0, np.where(yhat < 0.5, 0.0, 0.5))
    return float(np.mean(1 - np.abs(judged - y)))


def savings(
    skills: tuple[float, ...] = SKILLS,
    *,
    runs: int = 40,
    n_items: int = 10_000,
    n_human: int = 500,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """One row per judge skill: agreement, lam, widths, equivalent and saved human votes."""
    from benchmarks.hybrid_sim import M

    rows = []
    for skill in skills:
        agree, lam, w_hyb, w_hum = [], [], [], []
        for r in range(runs):
            rng = np.random.default_rng(seed + r)
            a, b, y, yhat = simulate(rng, n_items, skill=skill)
            y_lab = np.where(rng.permutation(n_items) < n_human, y, np.nan)
            hybrid = fit_hybrid_bt(M, a, b, y_lab, yhat)
            human = fit_hybrid_bt(M, a, b, y_lab, yhat, lam=0.0)
            agree.append(_agreement(y, yhat))
            lam.append(hybrid.lam)
            w_hyb.append(2 * 1.959964 * hybrid.se.mean())
            w_hum.append(2 * 1.959964 * human.se.mean())
        ratio = float(np.mean(w_hum) / np.mean(w_hyb))
        equivalent = int(np.round(n_human * ratio**2))
        rows.append({
            "skill": skill, "agreement": round(float(np.mean(agree)), 3),
            "lam": round(float(np.mean(lam)), 3),
            "width_hybrid": round(float(np.mean(w_hyb)), 3),
            "width_human": round(float(np.mean(w_hum)), 3),
            "human_votes": n_human, "human_votes_equivalent": equivalent,
            "human_votes_saved": equivalent - n_human,
        })  # fmt: skip
    return rows


def savings_plot(rows: list[dict[str, Any]], path: Path) -> Path:
    """Human votes saved (and the equivalent) against judge–human agreement."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [r["agreement"] for r in rows]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(x, [r["human_votes_equivalent"] for r in rows], "o-", label="human-only votes needed")
    ax.axhline(rows[0]["human_votes"], color="grey", ls="--", label="human votes collected")
    ax.set_xlabel("judge–human agreement (share of items)")
    ax.set_ylabel("human votes for the hybrid's mean interval width")
    ax.set_title(f"{rows[0]['human_votes']} human votes + judge on every item")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _timed(fn) -> tuple[Any, float, float]:
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def timing(
    *, n_models: int = 20, n_judge: int = 100_000, n_human: int = 5_000, seed: int = 0
) -> dict[str, Any]:
    """Wall and CPU seconds of the estimators and of whole boards from votes."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 0.8, n_models)
    a, b, y, yhat = simulate(rng, n_judge, theta=theta)
    y_lab = np.where(rng.permutation(n_judge) < n_human, y, np.nan)
    names = [f"model-{i:02d}" for i in range(n_models)]
    judge = [Vote(f"p{i}", names[a[i]], names[b[i]], _winner(yhat[i]), "preference")
             for i in range(n_judge)]  # fmt: skip
    human = [Vote(f"p{i}", names[a[i]], names[b[i]], OUTCOME[y[i]], "preference", "ann")
             for i in np.flatnonzero(~np.isnan(y_lab))]  # fmt: skip
    out: dict[str, Any] = {"models": n_models, "judge_votes": n_judge, "human_votes": n_human}
    parts = {
        "bt_estimator": lambda: fit_hybrid_bt(n_models, a, b, y_lab, yhat),
        "winrate_estimator": lambda: winrate_estimates(n_models, a, b, y_lab, yhat),
        "bt_board_from_votes": lambda: build_hybrid_leaderboard(human, judge, method="bt"),
        "winrate_board_from_votes": lambda: build_hybrid_leaderboard(
            human, judge, method="winrate"
        ),
    }
    for name, fn in parts.items():
        _, wall, cpu = _timed(fn)
        out[name] = {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3)}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.hybrid", description=__doc__)
    sub = p.add_subparsers(dest="action", required=True)
    v = sub.add_parser("votes", help="write example human and judge votes")
    v.add_argument("folder", type=Path)
    v.add_argument("--items", type=int, default=3000)
    v.add_argument("--human", type=int, default=300)
    v.add_argument("--seed", type=int, default=0)
    v.add_argument("--selection", type=Path, help="humans answer the items this file selected")
    s = sub.add_parser("savings", help="human votes saved against judge–human agreement")
    s.add_argument("--runs", type=int, default=40)
    s.add_argument("--items", type=int, default=10_000)
    s.add_argument("--human", type=int, default=500)
    s.add_argument("--out", type=Path, help="folder for savings.json and savings.png")
    t = sub.add_parser("timing", help="time the estimator and whole boards")
    t.add_argument("--models", type=int, default=20)
    t.add_argument("--judge", type=int, default=100_000)
    t.add_argument("--human", type=int, default=5_000)
    for q in (s, t):
        q.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.action == "votes":
        info = write_example(args.folder, n_items=args.items, n_human=args.human, seed=args.seed,
                             selection=args.selection)  # fmt: skip
        print(json.dumps(info))
        return 0
    if args.action == "savings":
        rows = savings(runs=args.runs, n_items=args.items, n_human=args.human, seed=args.seed)
        print(f"{'skill':>5} {'agree':>6} {'lam':>5} {'width hyb':>9} {'width hum':>9} "
              f"{'equiv':>6} {'saved':>6}")  # fmt: skip
        for r in rows:
            print(f"{r['skill']:>5.2f} {r['agreement']:>6.3f} {r['lam']:>5.2f} "
                  f"{r['width_hybrid']:>9.3f} {r['width_human']:>9.3f} "
                  f"{r['human_votes_equivalent']:>6} {r['human_votes_saved']:>6}")  # fmt: skip
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "savings.json").write_text(json.dumps(rows, indent=1) + "\n")
            print(f"-> {args.out / 'savings.json'}, {savings_plot(rows, args.out / 'savings.png')}")
        return 0
    if min(args.models, args.judge, args.human) < 2 or args.human > args.judge:
        print("timing: need at least 2 models and 2 human votes, and no more human votes "
              "than judge votes", file=sys.stderr)  # fmt: skip
        return 2
    print(json.dumps(timing(n_models=args.models, n_judge=args.judge, n_human=args.human,
                            seed=args.seed)))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
