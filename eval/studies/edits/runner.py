"""The edit-study runner: edit tasks × instruction writers × editors × n edits → the judge's
edit mode (best of n) → ``results.jsonl``.

Each (task, writer) pair is one pipeline: the writer writes the instruction once, then every
editor edits the task's source image with it (n edits in one request) and the judge grades the
n edits in one edit submission against the task's *request* (what the person wanted: a writer
that drops part of it is penalised with its editor). Pipelines run concurrently; each stage
has its own cap (per writer, per editor in :class:`eval.i2i.ImageEditor`, and the judge).

Every finished step (an instruction, a set of edits on disk, a judgment) is journalled
(:mod:`eval.kit.journal`) before the next begins: a run killed at any point resumes where it
stopped and never asks for an instruction, an edit or a judgment twice. ``results.jsonl`` is
rewritten from the journal at the end of every run, in task × writer × editor order.

Example::

    cfg = load_edit_study(Path("examples/edit_study/study.toml"))
    tasks = load_edit_tasks(cfg.tasks_path)
    summary = asyncio.run(EditStudyRunner(cfg, RunOptions(out=Path("/tmp/e")), tasks,
                                          make_client(cfg_settings(cfg))).run())
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from tqdm import tqdm

from eval.i2i import EditorSpec, ImageEditor
from eval.kit.client import JudgeCallError, JudgeClient
from eval.kit.journal import Journal
from eval.kit.journal import key as key_of
from eval.studies.edits.config import EditStudyConfig, WriterSpec
from eval.studies.edits.results import base_line, judged_line
from eval.studies.edits.tasks import EditTask
from eval.studies.edits.writers import write_instruction
from eval.studies.prompters import PromptOutcome
from eval.studies.runner import (
    DEFAULT_BACKEND_CONCURRENCY,
    LOCAL_JUDGE,
    RunOptions,
    RunSummary,
    StudyMismatch,
    journal_path,
)
from eval.studies.stages import CostGate, StageUsage
from memory.io.atomic import write_atomic

STAGES = ("writer", "edit", "judge")
EDIT_BLOCKED = {"refused", "blocked"}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def edit_study_record(cfg: EditStudyConfig, tasks: list[EditTask]) -> dict[str, Any]:
    """``study.json`` of an edit study: what the report needs, and the fingerprint of all
    that changes results (a folder resumes only a run with the same one)."""
    editors = [e.model_dump(mode="json", exclude={"concurrency"}) for e in cfg.editors]
    writers = [w.model_dump(mode="json", exclude={"concurrency"}) for w in cfg.writers]
    images = sorted({t.source_image for t in tasks} | {t.mask for t in tasks if t.mask})
    judged = {
        "study": {"name": cfg.study.name, "n": cfg.study.edits_per_instruction},
        "tasks_sha256": _sha256(cfg.tasks_path),
        "images_sha256": {p: _sha256(cfg.tasks_path.parent / p) for p in images},
        "writers": writers,
        "editors": editors,
        "judge": cfg.judge.model_dump(mode="json"),
        "seed": cfg.run.seed,
    }
    fingerprint = hashlib.sha256(json.dumps(judged, sort_keys=True).encode()).hexdigest()[:16]
    return {
        "kind": "edit",
        "name": cfg.study.name,
        "description": cfg.study.description,
        "file": str(cfg.file) if cfg.file else None,
        "tasks_file": str(cfg.tasks_path.resolve()),
        "edits_per_instruction": cfg.study.edits_per_instruction,
        "tasks": [t.model_dump(mode="json") for t in tasks],
        "writers": writers,
        "editors": editors,
        "judge": cfg.judge.model_dump(mode="json"),
        "run": cfg.run.model_dump(mode="json"),
        "fingerprint": fingerprint,
    }


def journalled_cost(journal: Journal) -> float:
    """What the journalled steps cost (a resumed run's budget starts from it)."""
    total = 0.0
    for kind in ("instruction", "edit", "item"):
        for value in journal.values(kind):
            usage = value.get("usage") or {}
            if kind == "item":
                usage = usage.get("judge") or {}
            total += float(usage.get("cost_usd") or 0.0)
    return total


def _editor_caps(spec: EditorSpec, cap: int | None) -> EditorSpec:
    if cap:
        return spec.model_copy(update={"concurrency": cap})
    if "concurrency" not in spec.model_fields_set:
        return spec.model_copy(update={"concurrency": DEFAULT_BACKEND_CONCURRENCY})
    return spec


class EditStudyRunner:
    """Runs one edit study into one output folder (resuming what the folder holds)."""

    def __init__(
        self,
        cfg: EditStudyConfig,
        opts: RunOptions,
        tasks: list[EditTask],
        judge: JudgeClient,
        editor: ImageEditor | None = None,
    ):
        self.cfg, self.opts, self.tasks, self.judge = cfg, opts, tasks, judge
        self.editor = editor or ImageEditor()
        self.out = Path(opts.out)
        cap = opts.concurrency
        self.editors = [_editor_caps(e, cap) for e in cfg.editors]
        self._writer_sems = {
            w.id: asyncio.Semaphore(min(w.concurrency, cap or w.concurrency)) for w in cfg.writers
        }
        self._judge_sem = asyncio.Semaphore(cap or cfg.run.judge_concurrency)
        self.usage = StageUsage(STAGES)
        self.gate = CostGate(opts.max_cost)
        self.journal: Journal | None = None
        self._bars: dict[str, tqdm] = {}

    def _check_folder(self) -> None:
        record = edit_study_record(self.cfg, self.tasks)
        path = self.out / "study.json"
        if path.exists():
            try:
                old = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise StudyMismatch(
                    f"{path}: unreadable ({exc}); move {self.out} aside to start afresh"
                ) from None
            if not isinstance(old, dict) or old.get("fingerprint") != record["fingerprint"]:
                raise StudyMismatch(
                    f"{self.out} holds a run of a different study (tasks, images, writers, "
                    "editors, judge or edits_per_instruction changed); use a new --out folder, "
                    f"or delete {self.out} to start this study afresh"
                )
            before = old.get("judged_by", LOCAL_JUDGE)
            if before != self.opts.judged_by:
                raise StudyMismatch(
                    f"{self.out} was judged by {before}, this run would judge by "
                    f"{self.opts.judged_by}; resume the same way, or use a new --out folder"
                )
        record["judged_by"] = self.opts.judged_by
        self.out.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(record, indent=2, ensure_ascii=False).encode())

    def _bar(self, name: str, total: int, done: int) -> tqdm:
        return tqdm(total=total, initial=done, desc=name, unit="item", leave=True,
                    disable=not self.opts.progress, dynamic_ncols=True)  # fmt: skip

    async def run(self) -> RunSummary:
        """Run (or resume) the study; returns the summary and writes ``results.jsonl``."""
        self._check_folder()
        self.journal = j = Journal(journal_path(self.out))
        self.gate.spent = journalled_cost(j)
        pairs = [(t, w) for t in self.tasks for w in self.cfg.writers]
        items = len(pairs) * len(self.editors)
        resumed = {k: j.count(k) for k in ("instruction", "edit", "item")}
        self._bars = {
            "instructions": self._bar("instructions", len(pairs), resumed["instruction"]),
            "edits": self._bar("edits", items, resumed["edit"]),
            "judged": self._bar("judged", items, resumed["item"]),
        }
        try:
            await asyncio.gather(*(self._pair(i, t, w) for i, (t, w) in enumerate(pairs)))
        finally:
            for bar in self._bars.values():
                bar.close()
            lines = self.write_results()
            j.close()
        counts = Counter(line["status"] for line in lines)
        stopped = None if len(lines) >= items else (self.gate.reason or "not every item finished")
        return RunSummary(dict(counts), self.usage.as_dict(), stopped, items, resumed)

    async def _pair(self, index: int, task: EditTask, writer: WriterSpec) -> None:
        outcome = await self._instruction(task, writer)
        if outcome is None:
            return
        await asyncio.gather(*(self._item(index, task, writer, e, outcome) for e in self.editors))

    async def _instruction(self, task: EditTask, writer: WriterSpec) -> PromptOutcome | None:
        assert self.journal is not None
        done = self.journal.get(key_of("instruction", task.id, writer.id))
        if done is not None:
            return PromptOutcome.model_validate(done)
        if all(self.journal.get(key_of("item", task.id, writer.id, e.id)) for e in self.editors):
            return None
        async with self._writer_sems[writer.id]:
            if not self.gate.open():
                return None
            outcome = await write_instruction(writer, task, self.cfg.tasks_path.parent)
        self.usage.add("writer", outcome.usage)
        self.gate.spend(outcome.usage.get("cost_usd", 0.0))
        self.journal.put(key_of("instruction", task.id, writer.id), outcome.model_dump(mode="json"))
        self._bars["instructions"].update(1)
        return outcome

    async def _item(
        self, index: int, task: EditTask, writer: WriterSpec, editor: EditorSpec,
        outcome: PromptOutcome,
    ) -> None:  # fmt: skip
        assert self.journal is not None
        ids = (task.id, writer.id, editor.id)
        if self.journal.get(key_of("item", *ids)) is not None:
            return
        line = base_line(*ids, category=task.category, family=task.family, request=task.request,
                         instruction=outcome.prompt, source_image=task.source_image)  # fmt: skip
        line["usage"]["writer"] = outcome.usage
        if outcome.status != "ok":
            reason = f"instruction {outcome.status}: {outcome.reason}"
            line.update(status="writer_failed", reason=reason)
            return self._finish(ids, line, edited=True)
        done = self.journal.get(key_of("edit", *ids))
        if done is None:
            done = await self._edit(index, task, editor, outcome.prompt or "", ids)
            if done is None:
                return
        line["images"] = done["images"]
        line["usage"]["edit"] = done["usage"]
        if done["status"] != "ok" or not done["images"]:
            status = "blocked" if done["status"] in EDIT_BLOCKED else "edit_failed"
            line.update(status=status, reason=f"edit {done['status']}: {done['reason']}")
            return self._finish(ids, line)
        await self._judge(task, editor, line, ids)

    async def _edit(
        self, index: int, task: EditTask, editor: EditorSpec, instruction: str,
        ids: tuple[str, str, str],
    ) -> dict[str, Any] | None:  # fmt: skip
        assert self.journal is not None
        if not self.gate.open():
            return None
        n = self.cfg.study.edits_per_instruction
        seed = editor.seed if editor.seed is not None else self.cfg.run.seed + index
        base = self.cfg.tasks_path.parent
        try:
            source = await asyncio.to_thread((base / task.source_image).read_bytes)
            mask = await asyncio.to_thread((base / task.mask).read_bytes) if task.mask else None
            gen = await self.editor.edit(editor, source, instruction, n, mask=mask, seed=seed)
            status, reason, images, usage = gen.status, gen.reason, gen.images, dict(gen.usage)
        except Exception as exc:  # an editor must not stop the study; the reason is kept
            status, reason, images, usage = "failed", f"{type(exc).__name__}: {exc}", [], {}
        folder = self.out / "edits" / editor.id / ids[1] / task.id
        paths = []
        for k, data in enumerate(images if status == "ok" else []):
            await asyncio.to_thread(write_atomic, folder / f"{k}.png", data)
            paths.append(str((folder / f"{k}.png").relative_to(self.out)))
        record = {"status": status, "reason": reason, "images": paths, "usage": usage,
                  "seed": seed}  # fmt: skip
        self.usage.add("edit", usage)
        self.gate.spend(usage.get("cost_usd", 0.0))
        self.journal.put(key_of("edit", *ids), record)
        self._bars["edits"].update(1)
        return record

    async def _judge(
        self, task: EditTask, editor: EditorSpec, line: dict[str, Any], ids: tuple[str, str, str]
    ) -> None:
        base = self.cfg.tasks_path.parent
        submission = {
            "mode": "edit",
            "id": ".".join(ids),
            "instruction": task.request,
            "source_image": str((base / task.source_image).resolve()),
            "images": [str((self.out / p).resolve()) for p in line["images"]],
            "editor": editor.id,
        }
        async with self._judge_sem:
            if not self.gate.open():
                return
            try:
                result = await self.judge.score(submission, self.out)
            except JudgeCallError as exc:
                line.update(status="judge_failed", reason=f"judge: {exc}")
                return self._finish(ids, line)
        judged_line(line, result)
        self.usage.add("judge", line["usage"]["judge"])
        self.gate.spend(line["usage"]["judge"].get("cost_usd", 0.0))
        self._finish(ids, line)

    def _finish(
        self, ids: tuple[str, str, str], line: dict[str, Any], edited: bool = False
    ) -> None:
        assert self.journal is not None
        self.journal.put(key_of("item", *ids), line)
        if edited:
            self._bars["edits"].update(1)
        self._bars["judged"].update(1)

    def write_results(self) -> list[dict[str, Any]]:
        """``results.jsonl`` from the journal, in task × writer × editor order."""
        assert self.journal is not None
        lines = [
            line
            for t in self.tasks
            for w in self.cfg.writers
            for e in self.editors
            if (line := self.journal.get(key_of("item", t.id, w.id, e.id))) is not None
        ]
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        write_atomic(self.out / "results.jsonl", text.encode())
        return lines
