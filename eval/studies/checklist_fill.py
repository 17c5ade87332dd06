"""Fill in missing checklists of a suite, keeping every checklist that already exists.

A task's checklist is *hand-written* (no ``checklist_source``: never replaced), *generated*
(kept on later runs; replaced only with ``regenerate=True``, and never once a reviewer set
``checklist_source.reviewed``) or missing (generated now). Checklists generated earlier are
found in the task itself or in the previous output file. A kept checklist whose brief (or IM
target) changed since it was generated is reported as stale, not silently replaced.

Example:
    >>> plan_task(SuiteTask(id="t", category="OE", brief="b"), None, regenerate=False)
    'generate'
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from eval.studies.checklists import ChecklistCard, generate_checklist, load_card
from eval.studies.suite import ChecklistSource, SuiteTask, brief_sha256, resolve_target
from judge.config import JudgeSettings
from judge.llm.gateway import LLMGateway
from judge.llm.usage import UsageMeter

Plan = Literal["generate", "hand_written", "kept", "reviewed"]


@dataclass
class FillReport:
    """What happened to each task (ids), plus model usage."""

    generated: list[str] = field(default_factory=list)
    hand_written: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    reviewed: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    usage: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        """JSON-ready summary."""
        return {
            "generated": self.generated,
            "hand_written": self.hand_written,
            "kept": self.kept,
            "reviewed": self.reviewed,
            "stale": self.stale,
            "failed": self.failed,
            "usage": self.usage,
        }


def target_sha256(task: SuiteTask, base_dir: Path) -> str | None:
    """sha256 of the target image file (IM), or ``None``."""
    path = resolve_target(task, base_dir)
    return hashlib.sha256(path.read_bytes()).hexdigest() if path is not None else None


def existing(task: SuiteTask, previous: SuiteTask | None) -> SuiteTask | None:
    """The task whose checklist counts as this task's current one, if any."""
    if task.checklist:
        return task
    if previous is not None and previous.checklist:
        return previous
    return None


def plan_task(task: SuiteTask, previous: SuiteTask | None, *, regenerate: bool) -> Plan:
    """What to do with one task's checklist."""
    have = existing(task, previous)
    if have is None:
        return "generate"
    source = have.checklist_source
    if source is None:
        return "hand_written"
    if source.reviewed:
        return "reviewed"
    return "generate" if regenerate else "kept"


def is_stale(have: SuiteTask, task: SuiteTask, base_dir: Path) -> bool:
    """Whether the brief or target changed since ``have``'s checklist was generated."""
    src = have.checklist_source
    if src is None:
        return False
    return src.brief_sha256 != brief_sha256(task) or src.target_sha256 != target_sha256(
        task, base_dir
    )


def _with_checklist(task: SuiteTask, donor: SuiteTask) -> SuiteTask:
    """``task`` with ``donor``'s checklist (validated again: untagged primitives follow it)."""
    if donor is task:
        return task
    data = task.model_dump(exclude={"checklist", "checklist_source"})
    return SuiteTask.model_validate(
        {
            **data,
            "checklist": [c.model_dump() for c in donor.checklist],
            "checklist_source": donor.checklist_source,
        }
    )


async def fill_checklists(
    tasks: list[SuiteTask],
    base_dir: Path,
    settings: JudgeSettings,
    *,
    previous: dict[str, SuiteTask] | None = None,
    regenerate: bool = False,
    card: ChecklistCard | None = None,
    progress: bool = True,
) -> tuple[list[SuiteTask], FillReport]:
    """Every task with its checklist (kept or newly generated) and a report.

    ``settings.model`` writes the checklists. A task whose generation failed keeps what it had
    (nothing, or the checklist it was to replace) and its reason is in ``report.failed``.
    """
    from tqdm import tqdm

    card = card or load_card()
    previous = previous or {}
    report = FillReport()
    out: list[SuiteTask] = list(tasks)
    todo: list[int] = []
    for k, task in enumerate(tasks):
        prev = previous.get(task.id)
        plan = plan_task(task, prev, regenerate=regenerate)
        have = existing(task, prev)
        if have is not None:  # kept as it is until a new one is made (and if that fails)
            out[k] = _with_checklist(task, have)
        if plan == "generate":
            todo.append(k)
            continue
        getattr(report, plan).append(task.id)
        if have is not None and is_stale(have, task, base_dir):
            report.stale.append(task.id)

    meter = UsageMeter()
    client = LLMGateway(settings).client(settings.model or "", meter)
    bar = tqdm(total=len(todo), desc="checklists", unit="task", disable=not progress or not todo)

    async def one(k: int) -> None:
        task = tasks[k]
        made = await generate_checklist(task, base_dir, client, card)
        bar.update(1)
        if made.checklist is None:
            report.failed[task.id] = made.error or "unknown error"
            return
        source = ChecklistSource(
            generator=card.tag,
            model=client.model,
            brief_sha256=brief_sha256(task),
            target_sha256=target_sha256(task, base_dir),
            generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        data = task.model_dump(exclude={"checklist", "checklist_source"})
        out[k] = SuiteTask.model_validate(
            {
                **data,
                "checklist": [c.model_dump() for c in made.checklist],
                "checklist_source": source.model_dump(),
            }
        )
        report.generated.append(task.id)

    try:
        await asyncio.gather(*(one(k) for k in todo))
    finally:
        bar.close()
    order = {t.id: k for k, t in enumerate(tasks)}
    report.generated.sort(key=order.__getitem__)
    report.usage = meter.snapshot()
    return out, report
