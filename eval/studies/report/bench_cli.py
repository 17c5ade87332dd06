"""``judge study report-bench``: time the study report on synthetic results
(:mod:`eval.studies.report.bench` does the work; this module only parses the options).

Example:
    $ judge study report-bench --rows 10000 --repeats 5
    $ judge study report-bench --rows 2000 --no-plots --json
"""

from __future__ import annotations

import argparse
import json
import sys

from eval.studies.report.options import DEFAULT_BOOT, DEFAULT_PERM


def register(actions: argparse._SubParsersAction) -> None:
    """Add the ``report-bench`` action under ``judge study``."""
    p = actions.add_parser("report-bench", help="time `judge study report` on synthetic results")
    p.add_argument("--rows", type=int, default=10_000, help="results lines to synthesise")
    p.add_argument("--prompters", type=int, default=10)
    p.add_argument("--backends", type=int, default=4)
    p.add_argument("--repeats", type=int, default=3, help="timed runs (the median is reported)")
    p.add_argument("--bootstrap", type=int, default=DEFAULT_BOOT)
    p.add_argument("--permutations", type=int, default=DEFAULT_PERM)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-plots", action="store_true", help="time the report without figures")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the timing (a line of text, or JSON)."""
    if min(args.rows, args.repeats, args.permutations, args.backends) < 1 or args.prompters < 2:
        print(
            "judge study report-bench: need rows, repeats, permutations, backends >= 1 and "
            "prompters >= 2",
            file=sys.stderr,
        )
        return 2
    if args.bootstrap < 0:
        print("judge study report-bench: --bootstrap must be 0 or more", file=sys.stderr)
        return 2
    from eval.studies.report.bench import run_bench

    out = run_bench(
        rows=args.rows,
        prompters=args.prompters,
        backends=args.backends,
        repeats=args.repeats,
        n_boot=args.bootstrap,
        n_perm=args.permutations,
        seed=args.seed,
        plots=not args.no_plots,
    )
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"report on {out['rows']} results ({out['prompters']} prompters × "
            f"{out['backends']} backends × {out['tasks']} tasks, bootstrap {out['bootstrap']}, "
            f"permutations {out['permutations']}, plots {'on' if out['plots'] else 'off'}): "
            f"median {out['median_wall_s']} s wall, {out['median_cpu_s']} s CPU over "
            f"{out['repeats']} runs; BT vs true skill ρ = {out['spearman_vs_truth']}"
        )
    return 0
