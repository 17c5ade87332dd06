"""What both kinds of study share in ``judge study run`` (a T2I study in
:mod:`eval.studies.run_cli`, an edit study in :mod:`eval.studies.edits.run_cli`): the exit
codes, how a failure is said, the checks of the flags and the API keys, the dry run, the judge
client's lifetime, and the report written and printed after a run.

Its own module so the edit study's CLI does not import the T2I study's, which dispatches to it.

Example:
    >>> report = {"out": "runs/a", "items": 2, "statuses": {"ok": 2}, "usage": {},
    ...           "stopped": None}
    >>> print(render_run(report))
    2/2 items in runs/a/results.jsonl
      ok: 2
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

EXIT_INPUT, EXIT_STOPPED, EXIT_INTERRUPTED = 2, 5, 130


def fail(message: str, code: int = EXIT_INPUT) -> int:
    """Say ``judge study run: MESSAGE`` on stderr; the exit code."""
    print(f"judge study run: {message}", file=sys.stderr)
    return code


def judge_key(cfg: Any, sections: tuple[str, ...]) -> str | None:
    """Check every ``api_key_env`` of the entries in ``sections`` (and the judge's) names a
    set variable (``ValueError`` naming the entry otherwise); the judge's key."""
    for section in sections:
        for i, entry in enumerate(getattr(cfg, section)):
            var = entry.api_key_env
            if var and not os.environ.get(var):
                raise ValueError(f"{section}[{i}].api_key_env: the variable {var} is not set")
    env = cfg.judge.api_key_env
    if env and not os.environ.get(env):
        raise ValueError(f"judge.api_key_env: the variable {env} is not set")
    return os.environ.get(env) if env else None


def flag_problem(args: argparse.Namespace) -> int | None:
    """The exit code after saying what is wrong with ``--max-cost``/``--concurrency``, or
    None when both are fine."""
    if args.max_cost is not None and args.max_cost <= 0:
        return fail("--max-cost must be more than 0")
    if args.concurrency is not None and args.concurrency < 1:
        return fail("--concurrency must be 1 or more")
    return None


def interrupted(out: Path) -> int:
    """Say where a run stopped by Ctrl-C keeps its work; the exit code."""
    return fail(
        f"interrupted; finished steps are kept in {out}/journal; run the same command "
        "again to resume",
        EXIT_INTERRUPTED,
    )


def dry_run(out: Path, plan: Callable[[Any], str]) -> int:
    """Print ``plan(journal)`` for a dry run: the journal of ``out``'s run so far (a
    ``Journal``, None for a new folder); exit code 2 when it cannot be read."""
    from eval.kit.journal import Journal, JournalError
    from eval.studies.runner import journal_path

    try:
        path = journal_path(out)
        journal = Journal(path) if path.exists() else None
    except JournalError as exc:
        return fail(str(exc))
    print(plan(journal))
    return 0


async def run_with_client(
    runner: Callable[[Any], Any],
    settings: Any,
    *,
    url: str | None = None,
    options: dict[str, Any] | None = None,
) -> Any:
    """``runner(client).run()`` with a judge client (:func:`eval.kit.client.make_client`)
    opened for the run and closed after it; the run's summary."""
    from eval.kit.client import make_client

    client = make_client(settings, url=url, options=options)
    try:
        return await runner(client).run()
    finally:
        await client.aclose()


def write_run_report(out: Path, summary: Any) -> dict[str, Any]:
    """``OUT/run.json`` from a run's summary (``RunSummary``); the report written."""
    report = {
        "out": str(out),
        "items": summary.total,
        "statuses": summary.counts,
        "usage": summary.usage,
        "stopped": summary.stopped,
    }
    (out / "run.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def render_run(report: dict[str, Any], *, stage_width: int = 10, ended: bool = True) -> str:
    """The lines ``judge study run`` prints after a run: items done, statuses, usage per stage
    (``ended``: when each stage ended), and why it stopped early."""
    done = sum(report["statuses"].values())
    lines = [f"{done}/{report['items']} items in {report['out']}/results.jsonl"]
    lines.append("  " + ", ".join(f"{k}: {v}" for k, v in sorted(report["statuses"].items())))
    for stage, u in report["usage"].items():
        busy = f"  busy {u['busy_s']:.1f} s (a step in flight"
        if ended:
            busy += f"; the stage ended {u.get('last_done_s', 0.0):.1f} s into the run"
        lines.append(
            f"  {stage:<{stage_width}} {u['steps']:>5} steps {u['calls']:>6} calls  "
            f"${u['cost_usd']:.4f}{busy})"
        )
    if report["stopped"]:
        lines.append(f"stopped: {report['stopped']}; run again to go on")
    return "\n".join(lines)
