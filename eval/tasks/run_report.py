"""``judge tasks run-report``: win rates and rank agreement of a suite's judged run.

Example:
    $ judge tasks run-report judged.jsonl --out run --human-rankings humans.jsonl
"""

from __future__ import annotations

import argparse
import json

from eval.tasks.fail import fail


def run_report_cmd(args: argparse.Namespace) -> int:
    """Win rates (bootstrap CIs) and Kendall's tau_b against human rankings."""
    from eval.evidence.run_report import RunReportError, build_run_report

    try:
        report = build_run_report(args.results, args.out, human=args.human_rankings,
                                  n_boot=args.bootstrap, metric=args.metric,
                                  suite_dir=args.suite_dir)
    except RunReportError as exc:
        return fail("run-report", str(exc))
    if args.json:
        print(json.dumps(report))
    else:
        for split, board in report["leaderboards"].items():
            rows = ", ".join(f"{m['model']} {m['score']} {m['ci95']}" for m in board["models"])
            print(f"{split}: win rate % (95% CI): {rows}")
        if report.get("kendall_tau_b"):
            print(f"Kendall tau_b vs humans: {report['kendall_tau_b']}")
        print(f"wrote {args.out / 'run_report.json'}")
    return 0
