"""``judge meta-eval``: agreement of the judge with expert or crowd labels.

One verb of the ``judge`` command (listed in :mod:`judge.cli.verbs`). The flags are parsed
here, at the edge, and passed as typed values to :func:`eval.metaeval.python_api.meta_eval`, the
same entry ``judge.meta_eval(...)`` uses.

Example:
    $ judge meta-eval --dataset avt --data HELDOUT --out /tmp/test \\
          --memory-from ../shared/data/avt-dev --model openai/gpt-4o
    $ judge meta-eval --dataset avt --data ../shared/data/avt-dev --cv lopo
    $ judge meta-eval --dataset avt --data HELDOUT --out runs/b --provider-batch  # exit 75
    $ judge meta-eval --dataset avt --data HELDOUT --out runs/b --provider-batch  # collects

Exit codes: 0 done, 2 bad input, 4 no target could be scored (the reasons are printed and in
report.md), 75 provider batches submitted or still running (re-run).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from judge.cli.judging import CONFIDENCE_HELP
from judge.llm.batch.rounds import EXIT_BATCH_PENDING

EXIT_NOTHING_SCORED = 4
AS_NAMED = (
    "out",
    "cv",
    "memory_from",
    "memory_dir",
    "model",
    "url",
    "limit",
    "concurrency",
    "n_boot",
    "seed",
    "ablation",
    "fit_calibration",
    "provider_batch",
    "batch_poll_s",
    "dry_run",
    "trust",
    "scores_only",
    "n_perm",
    "correction",
)
"""Flags that reach :func:`eval.metaeval.python_api.meta_eval` as keywords of their own name."""
SETTINGS = ("api_base", "api_key", "calibration", "retrieval", "retrieval_k", "confidence")
"""Flags that are judge settings: passed to ``meta_eval`` (as overrides) only when given."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``meta-eval`` verb."""
    p = sub.add_parser("meta-eval", help="score a labelled dataset and report agreement")
    p.add_argument(
        "--dataset",
        required=True,
        help="avt, expert-jsonl, csv, votes (compare mode), edit-ratings (edit mode), or a "
        "public human-judgment set read as downloaded: genai-bench, hpdv2, tifa, agiqa-3k, "
        "evalmuse (docs/public-sets.md)",
    )
    p.add_argument("--data", type=Path, required=True, help="the split to score")
    p.add_argument(
        "--out",
        type=Path,
        help="output folder (resumable; default: runs/DATASET-TIME under the user data "
        "folder, ~/.local/share/t2i-judge or $JUDGE_HOME)",
    )
    p.add_argument(
        "--memory-from",
        type=Path,
        help="build the exemplar memory from this (other) labelled split",
    )
    p.add_argument(
        "--memory-dir",
        type=Path,
        help="score with the memories of this store (one you vouch for: not built from "
        "the scored split)",
    )
    p.add_argument(
        "--cv",
        choices=["lopo"],
        help="leave-one-group-out on the scored split (AVT: leave-one-prompt-out); with "
        "--url, each request asks the service to leave the item's group out",
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
    p.add_argument("--confidence", metavar="METHOD", help=CONFIDENCE_HELP)
    p.add_argument(
        "--trust",
        type=Path,
        metavar="POLICY",
        help="judge every item under this trust policy (judge trust calibrate): answers get "
        "trusted, the report its operating point (docs/trust.md)",
    )
    p.add_argument("--columns", default="", help="csv dataset: key=COLUMN pairs")
    p.add_argument("--skills", help="subjective cards to run (default: the dataset's)")
    p.add_argument("--retrieval", choices=["similarity", "random", "fixed", "none"])
    p.add_argument("--k", type=int, dest="retrieval_k")
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument(
        "--limit",
        type=int,
        help="score only N items: the first N, or for a public set a subset stratified by "
        "model and tag, drawn with --seed",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="count the judge calls and estimate their cost (litellm's price map); score nothing",
    )
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples for CIs")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-safety", action="store_true", help="skip the safety filter calls")
    c = p.add_argument_group(
        "compare metrics",
        "put other metrics beside the judge on the same items, at item and system level, with "
        "paired permutation tests between every two (docs/compare-metrics.md)",
    )
    c.add_argument(
        "--scores",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="per-item scores of a metric you bring (CSV or JSONL: id,metric,score or id and "
        "one column per metric); repeat for more files",
    )
    c.add_argument(
        "--scores-only",
        action="store_true",
        help="compare the given and the set's published metrics without any judge call "
        "(no model needed)",
    )
    c.add_argument(
        "--n-perm",
        type=int,
        default=1000,
        help="permutation resamples of the significance tests (default 1000)",
    )
    c.add_argument(
        "--correction",
        choices=["bh", "holm", "none"],
        default="bh",
        help="multiple-comparison correction over the pairs of metrics: bh (Benjamini-Hochberg, "
        "default), holm, or none (as mt-metrics-eval)",
    )
    b = p.add_argument_group(
        "provider batch",
        "send the judge calls through the provider's batch API (about half the price; "
        "answers arrive later). Without --wait the command submits, exits with code "
        f"{EXIT_BATCH_PENDING}, and the same command run again collects and resumes",
    )
    b.add_argument("--provider-batch", action="store_true", help="use the provider's batch API")
    b.add_argument(
        "--batch-poll-s",
        type=float,
        default=30.0,
        help="with --wait: seconds between polls of the provider (default 30)",
    )
    b.add_argument(
        "--wait", action="store_true", help="poll until every batch is answered, then report"
    )
    b.add_argument(
        "--provider-batch-fallback",
        choices=["batch", "direct"],
        default="batch",
        help="what failed or expired batch lines become: a new batch (default, up to 3 tries) "
        "or direct calls",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run and print where the report went."""
    from eval.datasets.csv_table import column_pairs
    from eval.metaeval.python_api import meta_eval
    from judge.confidence.spec import normalized
    from judge.errors import JudgeError
    from judge.llm.batch.rounds import BatchPending

    settings = {k: getattr(args, k) for k in SETTINGS}
    settings["safety"] = False if args.no_safety else None
    try:  # a bad method is said before any data is read
        settings["confidence"] = normalized(args.confidence)
    except ValueError as exc:
        print(f"judge meta-eval: --confidence {args.confidence!r}: {exc}", file=sys.stderr)
        return 2
    try:
        report = meta_eval(
            args.data,
            dataset=args.dataset,
            columns=column_pairs(args.columns) if args.dataset == "csv" else None,
            skills=args.skills.split(",") if args.skills else None,
            progress=True,
            encoders=[e for e in args.encoders.split(",") if e],
            batch_wait=args.wait,
            batch_fallback=args.provider_batch_fallback,
            scores=args.scores,
            **{k: getattr(args, k) for k in AS_NAMED},
            **{k: v for k, v in settings.items() if v is not None},
        )
    except BatchPending as pending:
        print(f"judge meta-eval: {pending}", file=sys.stderr)
        return EXIT_BATCH_PENDING
    except (KeyError, ValueError, FileNotFoundError, JudgeError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"judge meta-eval: {msg}", file=sys.stderr)
        return 2
    if "dry_run" in report:
        from eval.metaeval.dry_run import render

        print(render(report["dry_run"]))
        return 0
    if report.get("scores_only"):
        print(f"no judge call (--scores-only); report: {Path(report['out']) / 'report.md'}")
        _print_comparison(report)
        return 0
    print(
        f"{report['n_predicted']}/{report['n_items']} items judged (n per target: items with a "
        f"prediction); report: "
        f"{Path(report['out']) / 'report.md'}"
    )
    for line in report.get("skipped") or []:
        print(f"  left unscored: {line}")
    for line in report.get("memory_left_out") or []:
        print(f"  left out of the {line}")
    leaked = report.get("own_group_exemplars") or []
    if leaked:
        print(
            f"judge meta-eval: {len(leaked)} item(s) were calibrated on their own labels (the "
            "memory holds the scored split; add --cv lopo or see report.md)",
            file=sys.stderr,
        )
    unscored = report.get("unscored") or {}
    for t, m in report["targets"].items():
        rho = m.get("spearman")
        print(f"  {t:18} spearman {rho if rho is None else round(rho, 3)}  n={m['n']}")
        for r in unscored.get(t, [])[:3]:
            print(f"  {'':18} {r['n']} item(s) unscored: {r['reason']}")
    section = report.get("public_set") or {}
    for t, fig in section.get("figures", {}).items():
        acc = fig.get("pairwise_accuracy")
        print(f"  {t:18} pairwise accuracy {acc if acc is None else round(acc, 3)}")
    pref = report.get("preferences")
    if pref:
        name = pref.get("metric", "ranking_accuracy")
        acc = pref[name]
        label = name.replace("_", " ")
        print(f"  {label} {acc if acc is None else round(acc, 3)}  pairs={pref['n']}")
    _print_comparison(report)
    if section and section["baselines"]:
        print(f"  published baselines (quoted): {len(section['baselines'])}, in report.md")
    elif section:
        print("  published baselines (quoted): none could be verified for this set (report.md)")
    if report["targets"] and not any(m.get("n") for m in report["targets"].values()):
        print(
            "judge meta-eval: no target could be scored (reasons above and in report.md)",
            file=sys.stderr,
        )
        return EXIT_NOTHING_SCORED
    if "provider_batch" in report:
        pb = report["provider_batch"]
        print(
            f"  provider batch: {pb['batches']} batch(es), {pb['requests']} requests, "
            f"${pb['cost_usd']} (list price ${pb['list_price_usd']})"
        )
    return 0


def _print_comparison(report: dict) -> None:
    """One line per target and level: the metrics of the top significance cluster."""
    for target, sec in ((report.get("comparison") or {}).get("targets") or {}).items():
        print(f"  compare {target}: {len(sec['metrics'])} metrics on {sec['n_items']} items")
        for level, sig in sec["significance"].items():
            top = sorted(m for m, r in sig["clusters"].items() if r == 1)
            print(f"    {level} level, rank 1 (no test separates them): {', '.join(top)}")
        sysd = sec.get("system")
        if sysd and sysd.get("note"):
            print(f"    system level: {sysd['note']}")
