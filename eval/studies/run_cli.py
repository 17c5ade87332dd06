"""``judge study run STUDY.toml --out DIR``: run (or resume) a study.

Exit codes: 0 every item finished; 2 bad study file, task suite, prompts file or option (the
message names the file and the key or line); 5 stopped early by ``--max-cost`` (rerun without
it, or with a higher one, to go on); 130 interrupted (rerun the same command to resume).

Example:
    $ judge study run examples/study/study.toml --out runs/demo
    $ judge study run study.toml --out runs/s1 --dry-run
    $ judge study run study.toml --out runs/s1 --max-cost 5 --concurrency 8
    $ judge study run study.toml --out runs/s1 --url http://127.0.0.1:8000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

EXIT_INPUT, EXIT_STOPPED, EXIT_INTERRUPTED = 2, 5, 130


def register(actions: argparse._SubParsersAction) -> None:
    """Add ``judge study run``."""
    p = actions.add_parser("run", help="run a study: prompts → images → judge → results.jsonl")
    p.add_argument("study", type=Path, help="study file (TOML, docs/design.md#studies)")
    p.add_argument("--out", type=Path, required=True, help="output folder (resumed if it exists)")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="count the calls still to make and estimate their cost; call nothing",
    )
    p.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="stop starting new calls once this much is spent (in-flight calls finish)",
    )
    p.add_argument("--url", help="judge through a running service (POST URL/v1/score)")
    p.add_argument(
        "--concurrency",
        type=int,
        metavar="N",
        help="cap every stage (each prompter, each backend, the judge) at N calls in flight",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument(
        "--provider-batch",
        action="store_true",
        help="judge calls through the provider's batch API (exit 75 until collected)",
    )
    p.add_argument("--wait", action="store_true", help="with --provider-batch: poll until done")
    p.add_argument("--batch-poll-s", type=float, default=30.0, help="seconds between polls")
    p.add_argument(
        "--provider-batch-fallback",
        choices=["batch", "direct"],
        default="batch",
        help="failed or expired batch lines: a new batch (default) or direct calls",
    )
    p.set_defaults(handler=run)


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


def run(args: argparse.Namespace) -> int:
    """Load, check, then run (or dry-run) the study (an edit study: :mod:`eval.studies.edits`)."""
    from eval.studies.edits.config import is_edit_study

    if is_edit_study(args.study):
        from eval.studies.edits.run_cli import run_edit_study

        return run_edit_study(args)
    from eval.studies.config import StudyError, cfg_settings, load_study
    from eval.studies.prompters import PromptFileError, read_prompt_file
    from eval.studies.suite import SuiteError, load_suite

    if (code := flag_problem(args)) is not None:
        return code
    if args.provider_batch and args.url:
        return fail("--provider-batch batches this process's judge calls; drop --url")
    if (args.wait or args.provider_batch_fallback != "batch") and not args.provider_batch:
        return fail("--wait and --provider-batch-fallback apply to --provider-batch")
    if args.batch_poll_s <= 0:
        return fail("--batch-poll-s must be positive")
    try:
        cfg = load_study(args.study)
        # targets are checked per item: a missing one fails that task's items, not the run
        tasks = load_suite(cfg.tasks_path, check_images=False)
        for p in cfg.prompters:
            if p.kind == "human":
                read_prompt_file(cfg.prompts_path(p))
    except (StudyError, SuiteError, PromptFileError) as exc:
        return fail(str(exc))
    if not tasks:
        return fail(f"{cfg.tasks_path}: the task suite is empty")
    out: Path = args.out
    if args.dry_run:
        from eval.studies.costs import estimate, render_plan

        local = False if args.url else None
        return dry_run(
            out, lambda journal: render_plan(estimate(cfg, tasks, journal, local_judge=local))
        )
    try:
        settings = cfg_settings(cfg, api_key=judge_key(cfg, ("prompters", "backends")))
    except ValueError as exc:
        return fail(f"{args.study}: {exc}")
    max_cost = args.max_cost if args.max_cost is not None else cfg.run.max_cost_usd
    return _execute(cfg, tasks, settings, args, out, max_cost)


def _execute(cfg, tasks, settings, args, out: Path, max_cost: float | None) -> int:
    from eval.kit.journal import JournalError
    from eval.studies.runner import LOCAL_JUDGE, RunOptions, StudyMismatch, StudyRunner

    opts = RunOptions(
        out=out,
        max_cost=max_cost,
        concurrency=args.concurrency,
        progress=not args.no_progress,
        judged_by=args.url.rstrip("/") if args.url else LOCAL_JUDGE,
    )

    async def main() -> object:
        if args.provider_batch:
            return await _in_batches(cfg, opts, tasks, settings, args, out)
        return await run_with_client(
            lambda client: StudyRunner(cfg, opts, tasks, client),
            settings,
            url=args.url,
            options=cfg.judge.options,
        )

    from judge.errors import JudgeError
    from judge.llm.batch.rounds import EXIT_BATCH_PENDING, BatchPending

    try:
        summary = asyncio.run(main())
    except BatchPending as pending:
        print(f"judge study run: {pending}", file=sys.stderr)
        return EXIT_BATCH_PENDING
    except (StudyMismatch, JournalError, JudgeError, ValueError) as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        return interrupted(out)
    print(render_run(write_run_report(out, summary)))
    return EXIT_STOPPED if summary.stopped else 0  # type: ignore[attr-defined]


async def _in_batches(cfg, tasks_opts, tasks, settings, args, out: Path) -> object:
    """Passes of the runner until every judgment is answered (judge.llm.batch)."""
    from eval.kit.client import make_client
    from eval.studies.runner import StudyRunner
    from judge.llm.batch.deferral import ProviderBatch
    from judge.llm.batch.rounds import run_in_rounds

    pb = ProviderBatch(
        out / "provider-batch",
        settings,
        poll_s=args.batch_poll_s,
        fallback="direct" if args.provider_batch_fallback == "direct" else "batch",
    )
    client = make_client(settings, batch=pb)
    summary: object = None

    async def one_pass() -> int:
        nonlocal summary
        pb.begin_pass()
        summary = await StudyRunner(cfg, tasks_opts, tasks, client).run()
        return pb.waiting_items

    try:
        await run_in_rounds(pb, one_pass, wait=args.wait)
    finally:
        pb.close()
    return summary


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
