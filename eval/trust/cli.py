"""``judge trust``: calibrate a trust policy from people's labels, apply it, merge people in.

Example:
    $ judge trust calibrate --results judged.jsonl --human labels.jsonl --target 0.9 \\
          --delta 0.1 --alpha 0.1 --out policy.json
    $ judge trust calibrate --results cheap.jsonl --results strong.jsonl --human labels.jsonl \\
          --out cascade.json
    $ judge trust apply --results new.jsonl --policy policy.json --out trusted.jsonl
    $ judge trust merge --results trusted.jsonl --human export.jsonl --out final.jsonl

Exit codes: 0 done; 2 bad input, a policy for another judge, or a target the labels cannot
certify (the reason on stderr, no policy written).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_INPUT = 2


def _human_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--human", type=Path, action="append", default=[],
        help="human labels (repeatable): plain rows {id, criterion, winner|verdict|rating, "
        "annotator}, a campaign's votes/ratings/attempts export, edit-ratings or expert-jsonl "
        "lines (JSONL or CSV)",
    )  # fmt: skip
    p.add_argument(
        "--human-dataset", metavar="NAME",
        help="read each --human as this judge meta-eval dataset (avt, expert-jsonl, csv, "
        "votes, edit-ratings, ...) through its adapter",
    )  # fmt: skip
    p.add_argument(
        "--criterion", help="the criterion of rows that name none (a campaign's attempts)"
    )


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``trust`` verb and its actions ``calibrate``, ``apply`` and ``merge``."""
    group = sub.add_parser(
        "trust", help="trust the judge where it has earned it: calibrate, apply, merge",
        description="Calibrate from people's labels when the judge's answers may be trusted, "
        "apply that policy to results, and merge people's labels in for the rest "
        "(docs/trust.md).",
    )  # fmt: skip
    actions = group.add_subparsers(dest="trust_command", required=True, metavar="ACTION")
    c = actions.add_parser("calibrate", help="choose confidence thresholds from human labels")
    c.add_argument(
        "--results", type=Path, action="append", required=True,
        help="the judge's results (JSONL, with confidence); repeat for a cascade, one file "
        "per judge from cheap to strong, all of the same items",
    )  # fmt: skip
    _human_flags(c)
    c.add_argument("--target", type=float, default=0.9, help="agreement with people to certify")
    c.add_argument("--delta", type=float, default=0.1, help="chance the guarantee may fail")
    c.add_argument("--alpha", type=float, help="ratings: intervals of level 1 - alpha")
    c.add_argument("--out", type=Path, required=True, help="the policy file (.json)")
    c.set_defaults(handler=run_calibrate)
    a = actions.add_parser("apply", help="mark trusted answers in stored results (no model call)")
    a.add_argument(
        "--results", type=Path, action="append", required=True,
        help="results to mark (JSONL); for a cascade policy one file per stage, in order",
    )  # fmt: skip
    a.add_argument("--policy", type=Path, required=True, help="a policy from `calibrate`")
    a.add_argument("--out", type=Path, required=True, help="the marked results (.jsonl)")
    a.set_defaults(handler=run_apply)
    m = actions.add_parser("merge", help="one file: trusted judge answers, people for the rest")
    m.add_argument("--results", type=Path, required=True, help="results marked by `apply`")
    _human_flags(m)
    m.add_argument("--out", type=Path, required=True, help="the final results (.jsonl)")
    m.set_defaults(handler=run_merge)


def _fail(action: str, exc: Exception) -> int:
    print(f"judge trust {action}: {exc}", file=sys.stderr)
    return EXIT_INPUT


def _rows(args: argparse.Namespace) -> list:
    from eval.trust.human import dataset_rows, read_human
    from judge.trust.errors import TrustError

    if not args.human:
        raise TrustError("give the people's labels with --human FILE")
    if args.human_dataset:
        return [r for p in args.human for r in dataset_rows(args.human_dataset, p)]
    return [r for p in args.human for r in read_human(p, args.criterion)]


def run_calibrate(args: argparse.Namespace) -> int:
    from eval.trust.calibrate import calibrate
    from eval.trust.results_io import read_results
    from judge.trust.errors import TrustError
    from judge.trust.items import unwrap
    from memory.io.atomic import write_atomic

    try:
        stages = [[unwrap(x) for x in read_results(p)] for p in args.results]
        cal = calibrate(stages, _rows(args), target=args.target, delta=args.delta,
                        alpha=args.alpha, names=[str(p) for p in args.results])  # fmt: skip
    except TrustError as exc:
        return _fail("calibrate", exc)
    for note in cal.notes:
        print(note, file=sys.stderr)
    if not cal.ok:
        print(f"judge trust calibrate: no kind could be certified; {args.out} not written",
              file=sys.stderr)  # fmt: skip
        return EXIT_INPUT
    write_atomic(args.out, cal.policy.to_json())
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


def run_apply(args: argparse.Namespace) -> int:
    from eval.trust.marking import mark_lines
    from eval.trust.results_io import read_results
    from judge.trust import read_policy
    from judge.trust.errors import TrustError

    try:
        policy = read_policy(args.policy)
        out, counts = mark_lines([read_results(p) for p in args.results], policy)
    except TrustError as exc:
        return _fail("apply", exc)
    return _written(args.out, out, f"{counts['trusted']} decisions trusted, "
                    f"{counts['not trusted']} not")  # fmt: skip


def _written(path: Path, lines: list, summary: str) -> int:
    from eval.trust.results_io import write_lines

    write_lines(path, lines)
    print(f"wrote {path}: {summary}", file=sys.stderr)
    return 0


def run_merge(args: argparse.Namespace) -> int:
    from eval.trust.merge import merge
    from eval.trust.results_io import read_results
    from judge.trust.errors import TrustError

    try:
        out, counts = merge(read_results(args.results), _rows(args))
    except TrustError as exc:
        return _fail("merge", exc)
    return _written(args.out, out, f"{counts['judge']} decided by the judge, "
                    f"{counts['people']} by people, {counts['nobody']} still open")  # fmt: skip


if __name__ == "__main__":  # pragma: no cover
    from judge.cli.main import main

    sys.exit(main(["trust", *sys.argv[1:]]))
