"""Write the small files of ``examples/trust/`` (docs/trust.md) from the simulated judge.

``python -m benchmarks.trust_examples [--out examples/trust]`` writes, seeded, so the files
are the same on every run:

- ``calibration.jsonl``: 300 score results of one judge (``mock/judge``, confidence
  ``logprobs``), each with two checklist verdicts and an ``image.appeal`` rating, and
  ``labels.jsonl``: people's labels of them, plain rows (verdicts and ratings);
- ``new.jsonl``: 150 new results of the same judge, and ``export.jsonl``: people's labels of
  60 of them (what a campaign would send back);
- ``cheap.jsonl`` and ``strong.jsonl``: 400 comparisons judged by a cheap and a strong model,
  and ``votes.jsonl``: people's votes on them, three per comparison, in a campaign's export
  format.

The answers come from :mod:`benchmarks.trust_sim` (known truth, errors on hard items).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from benchmarks.trust_sim import simulate, simulate_ratings

OPTIONS = {"backend": "litellm", "temperature": 0.0}


def _provenance(model: str, cards: dict[str, str]) -> dict:
    return {"judge_models": [model], "skills": cards, "memories": {}, "options": OPTIONS,
            "confidence": "logprobs"}  # fmt: skip


def score_results(prefix: str, n: int, seed: int) -> tuple[list[dict], list[dict]]:
    """``n`` score results and the people's labels of each (verdicts and ratings)."""
    rng = np.random.default_rng(seed)
    sim = simulate(2 * n, {"mock/judge": 0.82}, seed)
    judge, human, conf = simulate_ratings(n, seed + 1)
    results, labels = [], []
    for i in range(n):
        sid = f"{prefix}-{i + 1:03d}"
        items = []
        for c in range(2):
            j = 2 * i + c
            truth = bool(rng.random() < 0.6)
            said = truth if sim.agree[0, j] else not truth
            items.append(
                {
                    "id": f"c{c + 1}",
                    "verdict": said,
                    "confidence": float(sim.confidence[0, j]),
                    "confidence_method": "logprobs",
                }
            )
            labels.append({"id": sid, "criterion": f"image.c{c + 1}", "verdict": truth,
                           "annotator": "ann-1"})  # fmt: skip
        passed = sum(x["verdict"] for x in items)
        results.append({
            "submission_id": sid, "status": "scored",
            "subjective": {"prompt": {}, "image": {"appeal": {
                "score": float(judge[i]), "confidence": float(conf[i]),
                "confidence_method": "logprobs"}}},
            "objective": {"prompt": {"rate": None, "items": []}, "image": {
                "rate": round(100 * passed / 2, 1), "coverage": {"scored": 2, "total": 2},
                "scored": 2, "unscored": 0, "passed": passed, "items": items}},
            "provenance": _provenance("mock/judge", {"appeal": "1", "checklist": "1"}),
            "usage": {"llm_calls": 3},
        })  # fmt: skip
        labels.append({"id": sid, "criterion": "image.appeal", "rating": int(human[i]),
                       "annotator": "ann-1"})  # fmt: skip
    return results, labels


def comparisons(n: int, seed: int) -> tuple[list[dict], list[dict], list[dict]]:
    """The cheap and the strong judge's comparison results and three votes per comparison."""
    rng = np.random.default_rng(seed)
    sim = simulate(n, {"openai/cheap": 0.75, "openai/strong": 0.85}, seed)
    stages: list[list[dict]] = [[], []]
    votes = []
    for i in range(n):
        cid, truth = f"cmp-{i + 1:03d}", str(rng.choice(["a", "b"]))
        for k, model in enumerate(sim.names):
            said = truth if sim.agree[k, i] else ("b" if truth == "a" else "a")
            stages[k].append({
                "comparison_id": cid, "mode": "compare", "status": "scored",
                "prompt_id": f"p{i + 1:03d}", "models": {"a": "flux", "b": "sd3"},
                "criteria": {"preference": {"winner": said, "position_consistent": True,
                                            "confidence": float(sim.confidence[k, i]),
                                            "confidence_method": "logprobs"}},
                "provenance": _provenance(model, {"preference": "1"}),
                "usage": {"llm_calls": 2},
            })  # fmt: skip
        for a in range(3):
            winner = truth if (a < 2 or rng.random() < 0.8) else ("b" if truth == "a" else "a")
            votes.append(
                {
                    "prompt_id": f"p{i + 1:03d}",
                    "model_a": "flux",
                    "model_b": "sd3",
                    "winner": winner,
                    "criterion": "preference",
                    "annotator": f"rater-{a + 1}",
                    "item": cid,
                    "excluded": False,
                }
            )
    return stages[0], stages[1], votes


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("examples/trust"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    cal, labels = score_results("cal", 300, seed=11)
    new, new_labels = score_results("new", 150, seed=12)
    _write(args.out / "calibration.jsonl", cal)
    _write(args.out / "labels.jsonl", labels)
    _write(args.out / "new.jsonl", new)
    _write(args.out / "export.jsonl", [r for r in new_labels if int(r["id"][-3:]) <= 60])
    cheap, strong, votes = comparisons(400, seed=13)
    _write(args.out / "cheap.jsonl", cheap)
    _write(args.out / "strong.jsonl", strong)
    _write(args.out / "votes.jsonl", votes)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
