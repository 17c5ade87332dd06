"""``judge study run EDIT_STUDY.toml --out DIR`` for an edit study (``[study] kind = "edit"``):
the same verb, flags and exit codes as a T2I study (0 done, 2 bad input, 5 stopped by
``--max-cost``, 130 interrupted; rerun the same command to resume).

Example:
    $ judge study run examples/edit_study/study.toml --out runs/edits
    $ judge study run examples/edit_study/study.toml --out runs/edits --dry-run
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from eval.studies.edits.config import EditStudyConfig

EXIT_INPUT, EXIT_STOPPED, EXIT_INTERRUPTED = 2, 5, 130


def _fail(message: str, code: int = EXIT_INPUT) -> int:
    print(f"judge study run: {message}", file=sys.stderr)
    return code


def _judge_key(cfg: EditStudyConfig) -> str | None:
    """Check every ``api_key_env`` names a set variable; the judge's key."""
    for section, entries in (("writers", cfg.writers), ("editors", cfg.editors)):
        for i, e in enumerate(entries):
            if e.api_key_env and not os.environ.get(e.api_key_env):
                var = e.api_key_env
                raise ValueError(f"{section}[{i}].api_key_env: the variable {var} is not set")
    env = cfg.judge.api_key_env
    if env and not os.environ.get(env):
        raise ValueError(f"judge.api_key_env: the variable {env} is not set")
    return os.environ.get(env) if env else None


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
    return "\n".join(lines)


def run_edit_study(args: argparse.Namespace) -> int:
    """Load, check, then run (or dry-run) an edit study."""
    from eval.kit.journal import Journal, JournalError
    from eval.studies.config import StudyError, cfg_settings
    from eval.studies.edits.config import load_edit_study
    from eval.studies.edits.tasks import load_edit_tasks
    from eval.studies.runner import journal_path
    from eval.studies.suite import SuiteError

    if args.provider_batch or args.url:
        return _fail(
            "--provider-batch and --url are not available for edit studies yet; the edits are "
            "judged in this process (drop the flag)"
        )
    if args.max_cost is not None and args.max_cost <= 0:
        return _fail("--max-cost must be more than 0")
    if args.concurrency is not None and args.concurrency < 1:
        return _fail("--concurrency must be 1 or more")
    try:
        cfg = load_edit_study(args.study)
        tasks = load_edit_tasks(cfg.tasks_path)
    except (StudyError, SuiteError) as exc:
        return _fail(str(exc))
    if not tasks:
        return _fail(f"{cfg.tasks_path}: there are no edit tasks in it")
    out: Path = args.out
    if args.dry_run:
        try:
            path = journal_path(out)
            journal = Journal(path) if path.exists() else Journal()
        except JournalError as exc:
            return _fail(str(exc))
        done = {k: journal.count(k) for k in ("instruction", "edit", "item")}
        print(plan(cfg, len(tasks), done))
        return 0
    try:
        settings = cfg_settings(cfg, api_key=_judge_key(cfg))  # type: ignore[arg-type]
    except ValueError as exc:
        return _fail(f"{args.study}: {exc}")
    max_cost = args.max_cost if args.max_cost is not None else cfg.run.max_cost_usd
    return _execute(cfg, tasks, settings, args, out, max_cost)


def _execute(cfg, tasks, settings, args, out: Path, max_cost: float | None) -> int:
    from eval.kit.client import make_client
    from eval.kit.journal import JournalError
    from eval.studies.edits.runner import EditStudyRunner
    from eval.studies.runner import RunOptions, StudyMismatch
    from judge.errors import JudgeError

    opts = RunOptions(out=out, max_cost=max_cost, concurrency=args.concurrency,
                      progress=not args.no_progress)  # fmt: skip

    async def main() -> object:
        client = make_client(settings, options=cfg.judge.options)
        try:
            return await EditStudyRunner(cfg, opts, tasks, client).run()
        finally:
            await client.aclose()

    try:
        summary = asyncio.run(main())
    except (StudyMismatch, JournalError, JudgeError, ValueError) as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return _fail(
            f"interrupted; finished steps are kept in {out}/journal; run the same command "
            "again to resume",
            EXIT_INTERRUPTED,
        )
    s = summary  # a RunSummary
    report = {"out": str(out), "items": s.total, "statuses": s.counts, "usage": s.usage,  # type: ignore[attr-defined]
              "stopped": s.stopped}  # type: ignore[attr-defined]  # fmt: skip
    (out / "run.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    done = sum(report["statuses"].values())
    print(f"{done}/{report['items']} items in {out}/results.jsonl")
    print("  " + ", ".join(f"{k}: {v}" for k, v in sorted(report["statuses"].items())))
    for stage, u in report["usage"].items():
        print(f"  {stage:<7} {u['steps']:>5} steps {u['calls']:>6} calls  ${u['cost_usd']:.4f}"
              f"  busy {u['busy_s']:.1f} s (a step in flight)")  # fmt: skip
    if report["stopped"]:
        print(f"stopped: {report['stopped']}; run again to go on")
        return EXIT_STOPPED
    return 0
