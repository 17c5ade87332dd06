"""``judge study report DIR``: statistics, tables and plots of a finished (or running) study.

Example:
    $ judge study report runs/demo                      # runs/demo/report.{json,md}, plots/
    $ judge study report runs/demo --bootstrap 2000 --permutations 20000 --seed 7
    $ judge study report runs/demo --no-plots --json > report.json
    $ judge study report runs/demo --human-ratings ratings.jsonl   # + hybrid mean ratings
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from eval.studies.report.options import DEFAULT_BOOT, DEFAULT_PERM


def register(actions: argparse._SubParsersAction) -> None:
    """Add the ``report`` action under ``judge study``."""
    p = actions.add_parser("report", help="report.json, report.md and plots from results.jsonl")
    p.add_argument("folder", type=Path, metavar="DIR", help="the study's output folder")
    p.add_argument(
        "--bootstrap",
        type=int,
        default=DEFAULT_BOOT,
        help=f"bootstrap resamples of the tasks for CIs (default {DEFAULT_BOOT})",
    )
    p.add_argument(
        "--permutations",
        type=int,
        default=DEFAULT_PERM,
        help=f"sign flips per permutation test (default {DEFAULT_PERM})",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of resamples and permutations")
    p.add_argument("--no-plots", action="store_true", help="skip the PNG figures")
    p.add_argument("--json", action="store_true", help="print report.json to stdout")
    p.add_argument(
        "--human-ratings",
        type=Path,
        metavar="FILE",
        help="a rating campaign's export of this study's images: adds hybrid (human + judge) "
        "mean ratings per prompter and backend",
    )
    p.add_argument(
        "--trust-policy",
        type=Path,
        metavar="POLICY",
        help="with --human-ratings: a trust policy (judge trust calibrate) whose operating "
        "point and held-out agreement the trust section shows",
    )
    p.set_defaults(handler=run_report)


def _fail(exc: Exception | str) -> int:
    print(f"judge study report: {exc}", file=sys.stderr)
    return 2


def run_report(args: argparse.Namespace) -> int:
    """Write the report files; print a short summary (or the JSON)."""
    from eval.studies.report.build import write_report

    if args.bootstrap < 0:
        return _fail("--bootstrap must be 0 (no CIs) or more")
    if args.permutations < 1:
        return _fail("--permutations must be 1 or more")
    from eval.studies.edits.report import is_edit_run

    if is_edit_run(args.folder):
        return _edit_report(args)
    return _emit(
        args,
        lambda: write_report(
            args.folder,
            n_boot=args.bootstrap,
            n_perm=args.permutations,
            seed=args.seed,
            plots=not args.no_plots,
            human_ratings=args.human_ratings,
            trust_policy=args.trust_policy,
        ),
        lambda r: (
            f"{r['study']['n_items']} items ({r['excluded']['aggregated']} aggregated, "
            f"{r['excluded']['total']} left out), {len(r['cells'])} cells"
        ),
    )


def _emit(
    args: argparse.Namespace,
    write: Callable[[], dict[str, Any]],
    headline: Callable[[dict[str, Any]], str],
) -> int:
    """Write a report (``write()``), say its notes, then print it (``--json``) or one line:
    ``headline(report) -> report.json, report.md[, N plots in plots/]``."""
    from eval.studies.report.load import ReportError

    try:
        report = write()
    except ReportError as exc:
        return _fail(exc)
    for note in report["notes"]:
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        print(json.dumps(report))
        return 0
    plots = f", {len(report.get('plots', []))} plots in {args.folder / 'plots'}"
    print(
        f"{headline(report)} -> {args.folder / 'report.json'}, {args.folder / 'report.md'}"
        + ("" if args.no_plots else plots)
    )
    return 0


def _edit_report(args: argparse.Namespace) -> int:
    """An edit study's report (:mod:`eval.studies.edits.report`; no permutation tests)."""
    from eval.studies.edits.report import write_edit_report

    return _emit(
        args,
        lambda: write_edit_report(
            args.folder, n_boot=args.bootstrap, seed=args.seed, plots=not args.no_plots
        ),
        lambda r: f"{r['study']['n_items']} edit items, {len(r['editors'])} editors judged",
    )
