"""``judge meta-eval``: agreement of the judge with expert or crowd labels.

Example:
    $ judge meta-eval --dataset avt --data HELDOUT --out runs/test \\
          --memory-from ../shared/data/avt-dev --model openai/gpt-4o
    $ judge meta-eval --dataset avt --data ../shared/data/avt-dev --out runs/dev --cv lopo
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``meta-eval`` verb."""
    p = sub.add_parser("meta-eval", help="score a labelled dataset and report agreement")
    p.add_argument(
        "--dataset",
        required=True,
        help="avt, expert-jsonl, csv, votes (compare mode) or edit-ratings (edit mode)",
    )
    p.add_argument("--data", type=Path, required=True, help="the split to score")
    p.add_argument("--out", type=Path, required=True, help="output folder (resumable)")
    p.add_argument(
        "--memory-from",
        type=Path,
        help="build the exemplar memory from this (other) labelled split",
    )
    p.add_argument(
        "--cv",
        choices=["lopo"],
        help="leave-one-group-out on the scored split (AVT: leave-one-prompt-out)",
    )
    p.add_argument("--model", help="judge model (env JUDGE_MODEL)")
    p.add_argument("--api-base")
    p.add_argument("--api-key")
    p.add_argument("--url", help="score through a running service instead of in-process")
    p.add_argument("--ablation", choices=["retrieval", "k", "encoder"])
    p.add_argument("--encoders", default="", help="for --ablation encoder: SPEC,SPEC")
    p.add_argument(
        "--fit-calibration",
        choices=["meanvar", "isotonic"],
        help="fit per-target calibration on this run; saved as calibration.json",
    )
    p.add_argument("--calibration", help="apply a calibration JSON at scoring time")
    p.add_argument("--columns", default="", help="csv dataset: key=COLUMN pairs")
    p.add_argument("--skills", help="subjective cards to run (default: the dataset's)")
    p.add_argument("--retrieval", choices=["similarity", "random", "fixed", "none"])
    p.add_argument("--k", type=int, dest="retrieval_k")
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--limit", type=int, help="score only the first N items")
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples for CIs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-safety", action="store_true", help="skip the safety filter calls")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run and print where the report went."""
    from eval.meta_eval import MetaEvalConfig, run_meta_eval
    from judge.errors import JudgeError

    overrides = {
        "api_base": args.api_base,
        "api_key": args.api_key,
        "calibration": args.calibration,
        "retrieval": args.retrieval,
        "retrieval_k": args.retrieval_k,
        "skills": args.skills.split(",") if args.skills else None,
        "safety": False if args.no_safety else None,
    }
    options = (
        {"columns": args.columns, "skills": args.skills or ""} if args.dataset == "csv" else {}
    )
    cfg = MetaEvalConfig(
        dataset=args.dataset,
        data=args.data,
        out=args.out,
        memory_from=args.memory_from,
        cv=args.cv,
        model=args.model,
        url=args.url,
        ablation=args.ablation,
        encoders=[e for e in args.encoders.split(",") if e],
        fit_calibration=args.fit_calibration,
        dataset_options=options,
        overrides={k: v for k, v in overrides.items() if v is not None},
        concurrency=args.concurrency,
        limit=args.limit,
        n_boot=args.n_boot,
        seed=args.seed,
    )
    try:
        report = run_meta_eval(cfg)
    except (KeyError, ValueError, FileNotFoundError, JudgeError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"judge meta-eval: {msg}", file=sys.stderr)
        return 2
    print(
        f"{report['n_predicted']}/{report['n_items']} items scored; report: "
        f"{args.out / 'report.md'}"
    )
    for t, m in report["targets"].items():
        rho = m.get("spearman")
        print(f"  {t:18} spearman {rho if rho is None else round(rho, 3)}  n={m['n']}")
    return 0
