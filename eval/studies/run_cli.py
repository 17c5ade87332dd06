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
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from eval.studies import run_common as common

if TYPE_CHECKING:
    from eval.kit.client import JudgeClient


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


def run(args: argparse.Namespace) -> int:
    """Load, check, then run (or dry-run) the study (an edit study: :mod:`eval.studies.edits`)."""
    from eval.studies.edits.config import is_edit_study

    if is_edit_study(args.study):
        from eval.studies.edits.run_cli import run_edit_study

        return run_edit_study(args)
    from eval.studies.config import StudyError, cfg_settings, load_study
    from eval.studies.prompters import PromptFileError, read_prompt_file
    from eval.studies.suite import SuiteError, load_suite

    if (code := common.flag_problem(args)) is not None:
        return code
    if args.provider_batch and args.url:
        return common.fail("--provider-batch batches this process's judge calls; drop --url")
    if (args.wait or args.provider_batch_fallback != "batch") and not args.provider_batch:
        return common.fail("--wait and --provider-batch-fallback apply to --provider-batch")
    if args.batch_poll_s <= 0:
        return common.fail("--batch-poll-s must be positive")
    try:
        cfg = load_study(args.study)
        # targets are checked per item: a missing one fails that task's items, not the run
        tasks = load_suite(cfg.tasks_path, check_images=False)
        for p in cfg.prompters:
            if p.kind == "human":
                read_prompt_file(cfg.prompts_path(p))
    except (StudyError, SuiteError, PromptFileError) as exc:
        return common.fail(str(exc))
    if not tasks:
        return common.fail(f"{cfg.tasks_path}: the task suite is empty")
    out: Path = args.out
    if args.dry_run:
        from eval.studies.costs import estimate, render_plan

        local = False if args.url else None
        return common.dry_run(
            out, lambda journal: render_plan(estimate(cfg, tasks, journal, local_judge=local))
        )
    try:
        settings = cfg_settings(cfg, api_key=common.judge_key(cfg, ("prompters", "backends")))
    except ValueError as exc:
        return common.fail(f"{args.study}: {exc}")
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
        return await common.run_with_client(
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
        return common.fail(str(exc))
    except KeyboardInterrupt:
        return common.interrupted(out)
    print(common.render_run(common.write_run_report(out, summary)))
    return common.EXIT_STOPPED if summary.stopped else 0  # type: ignore[attr-defined]  # the summary has stopped


async def _in_batches(cfg, tasks_opts, tasks, settings, args, out: Path) -> object:
    """Passes of the runner until every judgment is answered (judge.llm.batch)."""
    from eval.kit.batch_rounds import in_batch_rounds
    from eval.studies.runner import StudyRunner

    async def one_pass(client: JudgeClient) -> object:
        return await StudyRunner(cfg, tasks_opts, tasks, client).run()

    return await in_batch_rounds(
        out / "provider-batch",
        settings,
        one_pass,
        poll_s=args.batch_poll_s,
        fallback=args.provider_batch_fallback,
        wait=args.wait,
    )
