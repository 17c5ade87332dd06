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

With ``[study] compare = true``, once every editor of a (task, writer) pair is judged, each
two editors whose edits were both judged are compared by the judge's ``edit_compare`` mode
(:mod:`eval.studies.edits.comparisons`), journalled the same way, into ``comparisons.jsonl``.
``compare`` is not part of the fingerprint: turning it on for a finished run adds the
comparisons and repeats nothing.

Example::

    cfg = load_edit_study(Path("examples/edit_study/study.toml"))
    tasks = load_edit_tasks(cfg.tasks_path)
    summary = asyncio.run(EditStudyRunner(cfg, RunOptions(out=Path("/tmp/e")), tasks,
                                          make_client(cfg_settings(cfg))).run())
"""

from __future__ import annotations

import asyncio
import json
from itertools import combinations
from typing import Any

from eval.i2i import EditorSpec, ImageEditor
from eval.kit.client import JudgeCallError, JudgeClient, expect
from eval.kit.journal import key as key_of
from eval.studies.edits import comparisons as cmp
from eval.studies.edits.config import EditStudyConfig, WriterSpec
from eval.studies.edits.results import base_line, judged_line
from eval.studies.edits.tasks import EditTask
from eval.studies.edits.writers import write_instruction
from eval.studies.prompters import PromptOutcome
from eval.studies.runner import PairRunner, RunOptions, RunSummary
from eval.studies.stages import file_sha256, fingerprint
from eval.t2i import Generation
from memory.io.atomic import write_atomic

STAGES = ("writer", "edit", "judge")
EDIT_BLOCKED = {"refused", "blocked"}


def edit_study_record(cfg: EditStudyConfig, tasks: list[EditTask]) -> dict[str, Any]:
    """``study.json`` of an edit study: what the report needs, and the fingerprint of all
    that changes results (a folder resumes only a run with the same one)."""
    editors = [e.model_dump(mode="json", exclude={"concurrency"}) for e in cfg.editors]
    writers = [w.model_dump(mode="json", exclude={"concurrency"}) for w in cfg.writers]
    for w, spec in zip(writers, cfg.writers, strict=True):
        if spec.kind == "human":  # what people wrote is part of what was studied
            w["instructions_sha256"] = file_sha256(cfg.instructions_path(spec))
    images = sorted({t.source_image for t in tasks} | {t.mask for t in tasks if t.mask})
    judged = {
        "study": {"name": cfg.study.name, "n": cfg.study.edits_per_instruction},
        "tasks_sha256": file_sha256(cfg.tasks_path),
        "images_sha256": {p: file_sha256(cfg.tasks_path.parent / p) for p in images},
        "writers": writers,
        "editors": editors,
        "judge": cfg.judge.model_dump(mode="json"),
        "seed": cfg.run.seed,
    }
    return {
        "kind": "edit",
        "name": cfg.study.name,
        "description": cfg.study.description,
        "file": str(cfg.file) if cfg.file else None,
        "tasks_file": str(cfg.tasks_path.resolve()),
        "edits_per_instruction": cfg.study.edits_per_instruction,
        "compare": cfg.study.compare,
        "tasks": [t.model_dump(mode="json") for t in tasks],
        "writers": writers,
        "editors": editors,
        "judge": cfg.judge.model_dump(mode="json"),
        "run": cfg.run.model_dump(mode="json"),
        "fingerprint": fingerprint(judged),
    }


class EditStudyRunner(PairRunner):
    """Runs one edit study into one output folder (resuming what the folder holds)."""

    KINDS = ("instruction", "edit", "item")
    BARS = ("instructions", "edits", "judged")
    STAGES = STAGES
    CHANGED = "tasks, images, writers, editors, judge or edits_per_instruction"

    def __init__(
        self,
        cfg: EditStudyConfig,
        opts: RunOptions,
        tasks: list[EditTask],
        judge: JudgeClient,
        editor: ImageEditor | None = None,
    ):
        super().__init__(cfg, opts, tasks, judge, cfg.writers, cfg.editors)
        self.cfg: EditStudyConfig = cfg
        self.editor = editor or ImageEditor()
        self.editors: list[EditorSpec] = self.models
        self._open_comparisons = 0

    def record(self) -> dict[str, Any]:
        return edit_study_record(self.cfg, self.tasks)

    async def _write(self, task: EditTask, writer: WriterSpec) -> PromptOutcome | None:
        # a human writer's file is named relative to the study file, images to the tasks file
        base = self.cfg.base_dir if writer.kind == "human" else self.cfg.tasks_path.parent
        return await self._written(task, writer, lambda: write_instruction(writer, task, base))

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
            return self._finish(ids, line, no_images=True)
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

        async def edit() -> Generation:
            source = await asyncio.to_thread((base / task.source_image).read_bytes)
            mask = await asyncio.to_thread((base / task.mask).read_bytes) if task.mask else None
            return await self.editor.edit(editor, source, instruction, n, mask=mask, seed=seed)

        _, status, reason, images, usage = await self._attempt(edit)
        folder = self.out / "edits" / editor.id / ids[1] / task.id
        paths = await self._save_images(folder, images if status == "ok" else [])
        record = {"status": status, "reason": reason, "images": paths, "usage": usage,
                  "seed": seed}  # fmt: skip
        return self._made(ids, record)

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
        from judge.modes.edit.result import EditResult

        result = await self._score(submission, ids, line, EditResult)
        if result is None:
            return
        judged_line(line, result)
        self._judged(ids, line)

    # -- the judge's comparisons of two edits ([study] compare = true) ----------------------
    async def run(self) -> RunSummary:
        summary = await super().run()
        if summary.stopped is None and self._open_comparisons:
            summary.stopped = self.gate.reason or "not every comparison finished"
        return summary

    async def _pair(self, index: int, task: EditTask, writer: WriterSpec) -> None:
        await super()._pair(index, task, writer)
        if self.cfg.study.compare:
            await self._compare_pair(task, writer)

    def _judged_items(self, task_id: str, writer_id: str) -> list[dict[str, Any]]:
        assert self.journal is not None
        lines = [self.journal.get(key_of("item", task_id, writer_id, e.id)) for e in self.editors]
        return [x for x in lines if x and x.get("status") in cmp.JUDGED and x.get("images")]

    async def _compare_pair(self, task: EditTask, writer: WriterSpec) -> None:
        pairs = list(combinations(self._judged_items(task.id, writer.id), 2))
        if "compared" not in self._bars:
            self._bars["compared"] = self._bar("compared", 0, 0)
        bar = self._bars["compared"]
        bar.total = (bar.total or 0) + len(pairs)
        bar.refresh()
        await asyncio.gather(*(self._compare(task, a, b) for a, b in pairs))

    async def _compare(self, task: EditTask, a: dict[str, Any], b: dict[str, Any]) -> None:
        assert self.journal is not None
        ids = (task.id, a["writer"], a["editor"], b["editor"])
        if self.journal.get(key_of("comparison", *ids)) is not None:
            self._bars["compared"].update(1)
            return
        line = cmp.comparison_line(*ids)
        edits = (cmp.selected_edit(a), cmp.selected_edit(b))
        same = await asyncio.to_thread(
            lambda: file_sha256(self.out / edits[0]) == file_sha256(self.out / edits[1])
        )
        if same:
            cmp.identical(line)
        else:
            source = self.cfg.tasks_path.parent / task.source_image
            request = cmp.submission(line, task.request, source, self.out, edits)
            async with self._judge_sem:
                if not self.gate.open():
                    return
                try:
                    from judge.modes.edit_compare.result import EditComparisonResult

                    answer = await self.judge.score(request, self.out)
                    cmp.from_result(line, expect(answer, EditComparisonResult))
                except JudgeCallError as exc:
                    line.update(status="judge_failed", reason=f"judge: {exc}")
            self.usage.add("judge", line["usage"])
            self.gate.spend(line["usage"].get("cost_usd", 0.0))
        self.journal.put(key_of("comparison", *ids), line)
        self._bars["compared"].update(1)

    def _journalled_cost(self) -> float:
        assert self.journal is not None
        spent = sum(float((x.get("usage") or {}).get("cost_usd") or 0.0)
                    for x in self.journal.values("comparison"))  # fmt: skip
        return super()._journalled_cost() + spent

    def write_results(self) -> list[dict[str, Any]]:
        """``results.jsonl`` and (with ``compare``) ``comparisons.jsonl`` from the journal."""
        lines = super().write_results()
        if not self.cfg.study.compare:
            return lines
        assert self.journal is not None
        out, self._open_comparisons = [], 0
        for t in self.tasks:
            for w in self.writers:
                for a, b in combinations(self._judged_items(t.id, w.id), 2):
                    got = self.journal.get(
                        key_of("comparison", t.id, w.id, a["editor"], b["editor"])
                    )
                    if got is None:
                        self._open_comparisons += 1
                    else:
                        out.append(got)
        text = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in out)
        write_atomic(self.out / "comparisons.jsonl", text.encode())
        return lines
