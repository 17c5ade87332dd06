"""``judge study run EDIT_STUDY.toml --out DIR`` for an edit study (``[study] kind = "edit"``):
the same verb, flags and exit codes as a T2I study (0 done, 2 bad input, 5 stopped by
``--max-cost``, 130 interrupted; rerun the same command to resume).

Example:
    $ judge study run examples/edit_study/study.toml --out runs/edits
    $ judge study run examples/edit_study/study.toml --out runs/edits --dry-run
    $ judge study run examples/edit_study/study.toml --out runs/edits --url http://127.0.0.1:8000
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from eval.studies.edits.config import EditStudyConfig
from eval.studies.run_common import (
    EXIT_STOPPED,
    dry_run,
    fail,
    flag_problem,
    interrupted,
    judge_key,
    render_run,
    run_with_client,
    write_run_report,
)


def plan(cfg: EditStudyConfig, n_tasks: int, done: dict[str, int]) -> str:
    """What a run would still call, and what the edits would cost where litellm prices them."""
    from eval.t2i import estimate_cost_usd

    pairs = n_tasks * len(cfg.writers)
    items = pairs * len(cfg.editors)
    mllm = sum(1 for w in cfg.writers if w.kind == "mllm") * n_tasks
    lines = [
        f"{items} items ({n_tasks} tasks x {len(cfg.writers)} writers x {len(cfg.editors)} "
        f"editors), {items - done.get('item', 0)} still to finish",
        f"  instructions by a model: {max(0, mllm - done.get('instruction', 0))} at most",
    ]
    n = cfg.study.edits_per_instruction
    for e in cfg.editors:
        cost = estimate_cost_usd(e, n * pairs)
        price = "free (built-in demo)" if e.is_builtin else (
            f"~${cost:.4f} at generation prices" if cost is not None else "not priced by litellm"
        )  # fmt: skip
        lines.append(f"  editor {e.id}: {pairs} requests of {n} edit(s), {price}")
    lines.append(f"  judge: {items - done.get('item', 0)} edit submissions at most")
    if cfg.study.compare:
        k = len(cfg.editors)
        compared = pairs * k * (k - 1) // 2
        lines.append(f"  judge: {compared - done.get('comparison', 0)} comparisons of two edits "
                     "at most (compare = true)")  # fmt: skip
    return "\n".join(lines)


async def _run_closing(runner: Any, client: Any) -> Any:
    """``runner(client).run()``, the client closed after it."""
    try:
        return await runner(client).run()
    finally:
        await client.aclose()


def run_edit_study(args: argparse.Namespace) -> int:
    """Load, check, then run (or dry-run) an edit study."""
    from eval.studies.config import StudyError, cfg_settings
    from eval.studies.edits.config import load_edit_study
    from eval.studies.edits.tasks import load_edit_tasks
    from eval.studies.suite import SuiteError

    if args.provider_batch:
        return fail(
            "--provider-batch is not available for edit studies yet; the edits are judged in "
            "this process or by the service at --url (drop the flag)"
        )
    if (code := flag_problem(args)) is not None:
        return code
    try:
        cfg = load_edit_study(args.study)
        tasks = load_edit_tasks(cfg.tasks_path)
    except (StudyError, SuiteError) as exc:
        return fail(str(exc))
    if not tasks:
        return fail(f"{cfg.tasks_path}: there are no edit tasks in it")
    out: Path = args.out
    if args.dry_run:
        kinds = ("instruction", "edit", "item", "comparison")
        return dry_run(
            out, lambda j: plan(cfg, len(tasks), {k: j.count(k) for k in kinds} if j else {})
        )
    try:
        settings = cfg_settings(cfg, api_key=judge_key(cfg, ("writers", "editors")))  # type: ignore[arg-type]  # judge_key takes a study config
    except ValueError as exc:
        return fail(f"{args.study}: {exc}")
    max_cost = args.max_cost if args.max_cost is not None else cfg.run.max_cost_usd
    return _execute(cfg, tasks, settings, args, out, max_cost)


def _execute(cfg, tasks, settings, args, out: Path, max_cost: float | None) -> int:
    from eval.kit.journal import JournalError
    from eval.studies.edits.runner import EditStudyRunner
    from eval.studies.edits.service_judge import EditServiceJudge
    from eval.studies.runner import LOCAL_JUDGE, RunOptions, StudyMismatch
    from judge.errors import JudgeError

    opts = RunOptions(out=out, max_cost=max_cost, concurrency=args.concurrency,
                      progress=not args.no_progress,
                      judged_by=args.url.rstrip("/") if args.url else LOCAL_JUDGE)  # fmt: skip

    def runner(client: Any) -> EditStudyRunner:
        return EditStudyRunner(cfg, opts, tasks, client)

    try:
        if args.url:
            client = EditServiceJudge(args.url, options=cfg.judge.options)
            summary = asyncio.run(_run_closing(runner, client))
        else:
            summary = asyncio.run(run_with_client(runner, settings, options=cfg.judge.options))
    except (StudyMismatch, JournalError, JudgeError, ValueError) as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        return interrupted(out)
    report = write_run_report(out, summary)
    print(render_run(report, stage_width=7, ended=False))
    return EXIT_STOPPED if report["stopped"] else 0
