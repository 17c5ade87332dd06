"""The study runner: tasks × prompters × backends × n images → judge (top-1 of n) → results.

Each (task, prompter) pair is one pipeline: the prompter writes the prompt once, then every
backend renders it (n images in one request) and the judge scores the n images in one
submission, keeping the image its selection rule picks (the Result's ``selected_image``).
Pipelines run concurrently; each stage has its own cap (per prompter entry, per backend in the
image generator, and for the judge), so a slow stage never holds the others.

Every finished step is journalled (:mod:`eval.kit.journal`) before the next begins:
a run killed at any point resumes where it stopped and never asks for a prompt, an image set
or a judgment twice. ``results.jsonl`` is rewritten from the journal at the end of every run
(also one stopped by ``--max-cost`` or Ctrl-C), in task × prompter × backend order.

Example::

    cfg = load_study(Path("examples/study/study.toml"))
    summary = asyncio.run(StudyRunner(cfg, RunOptions(out=Path("/tmp/demo"))).run())
    summary.counts   # {"scored": 36, ...}
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel
from tqdm import tqdm

from eval.kit.client import JudgeCallError, JudgeClient, ResultT, expect
from eval.kit.journal import Journal
from eval.kit.journal import key as key_of
from eval.studies.config import StudyConfig, cfg_settings
from eval.studies.judged import LOCAL_JUDGE, record_judge
from eval.studies.prompters import PrompterSpec, PromptOutcome, write_prompt
from eval.studies.results import base_line, scored_line
from eval.studies.stages import STAGES, CostGate, StageUsage, study_record
from eval.studies.suite import SuiteTask, task_for_judge
from eval.t2i import BackendSpec, ImageGenerator
from judge.llm.batch.deferral import ItemWaiting
from memory.io.atomic import write_atomic

GEN_BLOCKED = {"refused", "blocked"}


DEFAULT_BACKEND_CONCURRENCY = 32
"""Image requests in flight per backend when the study file does not set ``concurrency``."""


S = TypeVar("S", bound=BaseModel)


def capped(spec: S, cap: int | None) -> S:
    """An image model entry (backend, editor) with its ``concurrency`` decided:
    ``--concurrency`` beats the study file, which beats the runner's default."""
    if cap:
        return spec.model_copy(update={"concurrency": cap})
    if "concurrency" not in spec.model_fields_set:
        return spec.model_copy(update={"concurrency": DEFAULT_BACKEND_CONCURRENCY})
    return spec


class StudyMismatch(ValueError):
    """The output folder holds a different study; say how to go on."""


@dataclass
class RunOptions:
    """What ``judge study run`` was asked: output folder, caps, budget, progress bars."""

    out: Path
    max_cost: float | None = None
    concurrency: int | None = None
    progress: bool = True
    judged_by: str = LOCAL_JUDGE  # or the URL of the service that judges (``--url``)


@dataclass
class RunSummary:
    """What a run did: items by status, usage per stage, whether it stopped early."""

    counts: dict[str, int]
    usage: dict[str, dict[str, Any]]
    stopped: str | None = None
    total: int = 0
    resumed: dict[str, int] = field(default_factory=dict)


def journal_path(out: Path) -> Path:
    """Where a study run's journal lives: ``OUT/journal/events.jsonl``."""
    return out / "journal" / "events.jsonl"


def check_study_folder(out: Path, record: dict[str, Any], judged_by: str, changed: str) -> None:
    """Refuse an ``out`` folder holding another study (``record["fingerprint"]`` differs:
    ``changed`` says what may have) or judged another way; then write ``study.json``."""
    path = out / "study.json"
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise StudyMismatch(
                f"{path}: unreadable ({exc}); move {out} aside to start this study "
                "afresh, or restore the file"
            ) from None
        if not isinstance(old, dict):
            raise StudyMismatch(f"{path}: expected a JSON object; move {out} aside")
        if old.get("fingerprint") != record["fingerprint"]:
            raise StudyMismatch(
                f"{out} holds a run of a different study ({changed} changed); use a new --out "
                f"folder, or delete {out} to start this study afresh"
            )
        before = old.get("judged_by", LOCAL_JUDGE)
        if before != judged_by:
            raise StudyMismatch(
                f"{out} was judged by {before}, this run would judge by "
                f"{judged_by}: one study's results come from one judge; resume "
                "with the same --url (or without it), or use a new --out folder"
            )
    record["judged_by"] = judged_by
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(record, indent=2, ensure_ascii=False).encode())


class PairRunner:
    """What every study runner shares: tasks × writers (prompters, instruction writers) ×
    image models (backends, editors), each (task, writer) pair one pipeline of three
    journalled steps (:attr:`KINDS`: the writing, the images, the judged item), each stage
    under its own cap, the whole under the cost gate. A subclass names its steps, bars and
    usage stages, writes ``study.json`` (:meth:`record`) and defines :meth:`_write` and
    :meth:`_item`."""

    KINDS: tuple[str, str, str] = ("prompt", "generation", "item")
    BARS: tuple[str, str, str] = ("prompts", "images", "judged")
    STAGES: tuple[str, str, str] = STAGES
    CHANGED = "tasks, prompters, backends, judge or images_per_prompt"

    def __init__(
        self, cfg: Any, opts: RunOptions, tasks: list[Any], judge: JudgeClient,
        writers: list[Any], models: list[Any],
    ):  # fmt: skip
        self.cfg, self.opts, self.tasks, self.judge = cfg, opts, tasks, judge
        self.out = Path(opts.out)
        cap = opts.concurrency
        self.writers = writers
        self.models = [capped(m, cap) for m in models]
        self._writer_sems = {
            w.id: asyncio.Semaphore(min(w.concurrency, cap or w.concurrency)) for w in writers
        }
        self._judge_sem = asyncio.Semaphore(cap or cfg.run.judge_concurrency)
        self.usage = StageUsage(self.STAGES)
        self.gate = CostGate(opts.max_cost)
        self.journal: Journal | None = None
        self._bars: dict[str, tqdm] = {}

    def record(self) -> dict[str, Any]:
        """``study.json``: what the report needs and the fingerprint a resume must match."""
        raise NotImplementedError

    async def _write(self, task: Any, writer: Any) -> PromptOutcome | None:
        """The writer's text for the task (journalled), or None when there is nothing to do."""
        raise NotImplementedError

    async def _item(
        self, index: int, task: Any, writer: Any, model: Any, outcome: PromptOutcome
    ) -> None:
        raise NotImplementedError

    # -- set-up --------------------------------------------------------------------------
    def _check_folder(self) -> None:
        record = self.record()  # who judged, for the reports (eval.studies.judged)
        record["judge_info"] = record_judge(cfg_settings(self.cfg), self.opts.judged_by)
        check_study_folder(self.out, record, self.opts.judged_by, self.CHANGED)

    def _bar(self, name: str, total: int, done: int) -> tqdm:
        return tqdm(
            total=total,
            initial=done,
            desc=name,
            unit="item",
            leave=True,
            disable=not self.opts.progress,
            dynamic_ncols=True,
        )

    # -- the pipeline ----------------------------------------------------------------------
    async def run(self) -> RunSummary:
        """Run (or resume) the study; returns the summary and writes ``results.jsonl``."""
        self._check_folder()
        self.journal = j = Journal(journal_path(self.out))
        self.gate.spent = self._journalled_cost()
        pairs = [(t, w) for t in self.tasks for w in self.writers]
        items = len(pairs) * len(self.models)
        resumed = {k: j.count(k) for k in self.KINDS}
        totals = (len(pairs), items, items)
        self._bars = {
            name: self._bar(name, total, resumed[kind])
            for name, total, kind in zip(self.BARS, totals, self.KINDS, strict=True)
        }
        try:
            await asyncio.gather(*(self._pair(i, t, w) for i, (t, w) in enumerate(pairs)))
        finally:
            for bar in self._bars.values():
                bar.close()
            lines = self.write_results()
            j.close()
        counts = Counter(line["status"] for line in lines)
        stopped = None
        if len(lines) < items:
            stopped = self.gate.reason or "not every item finished"
        return RunSummary(dict(counts), self.usage.as_dict(), stopped, items, resumed)

    def _journalled_cost(self) -> float:
        """What the journalled steps cost (a resumed run's budget starts from it)."""
        assert self.journal is not None
        total = 0.0
        for kind in self.KINDS:
            for data in self.journal.values(kind):
                usage = data.get("usage") or {}
                if kind == "item":
                    usage = usage.get("judge") or {}
                total += float(usage.get("cost_usd") or 0.0)
        return total

    async def _pair(self, index: int, task: Any, writer: Any) -> None:
        outcome = await self._write(task, writer)
        if outcome is None:
            return
        await asyncio.gather(*(self._item(index, task, writer, m, outcome) for m in self.models))

    async def _written(
        self, task: Any, writer: Any, write: Callable[[], Awaitable[PromptOutcome]]
    ) -> PromptOutcome | None:
        """The journalled text of (task, writer), else ``write()``'s under the writer's cap
        and the cost gate; None when every item of the pair is done or the gate is shut."""
        assert self.journal is not None
        pair = (task.id, writer.id)
        done = self.journal.get(key_of(self.KINDS[0], *pair))
        if done is not None:
            return PromptOutcome.model_validate(done)
        if all(self.journal.get(key_of("item", *pair, m.id)) for m in self.models):
            return None
        async with self._writer_sems[writer.id]:
            if not self.gate.open():
                return None
            outcome = await write()
        self.usage.add(self.STAGES[0], outcome.usage)
        self.gate.spend(outcome.usage.get("cost_usd", 0.0))
        self.journal.put(key_of(self.KINDS[0], *pair), outcome.model_dump(mode="json"))
        self._bars[self.BARS[0]].update(1)
        return outcome

    async def _attempt(
        self, call: Callable[[], Awaitable[Any]]
    ) -> tuple[Any, str, str | None, list[bytes], dict[str, Any]]:
        """``(generation, status, reason, images, usage)`` of ``call()``; an error it raises
        becomes a ``failed`` step with the error as reason (a model must not stop the study)."""
        try:
            gen = await call()
            return gen, gen.status, gen.reason, gen.images, dict(gen.usage)
        except Exception as exc:
            return None, "failed", f"{type(exc).__name__}: {exc}", [], {}

    async def _save_images(self, folder: Path, images: list[bytes]) -> list[str]:
        """Write ``folder/K.png`` for each image; their paths relative to the run folder."""
        paths = []
        for k, data in enumerate(images):
            await asyncio.to_thread(write_atomic, folder / f"{k}.png", data)
            paths.append(str((folder / f"{k}.png").relative_to(self.out)))
        return paths

    def _made(self, key: tuple[str, str, str], record: dict[str, Any]) -> dict[str, Any]:
        """Count and journal a finished images step; the record."""
        assert self.journal is not None
        self.usage.add(self.STAGES[1], record["usage"])
        self.gate.spend(record["usage"].get("cost_usd", 0.0))
        self.journal.put(key_of(self.KINDS[1], *key), record)
        self._bars[self.BARS[1]].update(1)
        return record

    async def _score(
        self,
        submission: dict[str, Any],
        key: tuple[str, str, str],
        line: dict[str, Any],
        kind: type[ResultT],
    ) -> ResultT | None:
        """The judge's result (of the mode ``kind``) for ``submission`` under the judge cap and
        the cost gate; None when the item is not judged now (gate shut, waiting in a provider
        batch, or the judge failed: then the item is finished as ``judge_failed``)."""
        async with self._judge_sem:
            if not self.gate.open():
                return None
            try:
                return expect(await self.judge.score(submission, self.out), kind)
            except ItemWaiting:  # provider-batch mode: judged on a later pass
                return None
            except JudgeCallError as exc:
                line.update(status="judge_failed", reason=f"judge: {exc}")
                self._finish(key, line)
                return None

    def _judged(self, key: tuple[str, str, str], line: dict[str, Any]) -> None:
        """Count the judge's usage of a judged line and finish the item."""
        self.usage.add("judge", line["usage"]["judge"])
        self.gate.spend(line["usage"]["judge"].get("cost_usd", 0.0))
        self._finish(key, line)

    def _finish(
        self, key: tuple[str, str, str], line: dict[str, Any], no_images: bool = False
    ) -> None:
        """Journal a finished item (``no_images``: it ended before its images step, which
        then counts as done too)."""
        assert self.journal is not None
        self.journal.put(key_of("item", *key), line)
        if no_images:
            self._bars[self.BARS[1]].update(1)
        self._bars[self.BARS[2]].update(1)

    # -- output ------------------------------------------------------------------------------
    def write_results(self) -> list[dict[str, Any]]:
        """``results.jsonl`` from the journal, in task × writer × model order."""
        assert self.journal is not None
        lines = [
            line
            for t in self.tasks
            for w in self.writers
            for m in self.models
            if (line := self.journal.get(key_of("item", t.id, w.id, m.id))) is not None
        ]
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        write_atomic(self.out / "results.jsonl", text.encode())
        return lines


class StudyRunner(PairRunner):
    """Runs one study into one output folder (resuming what the folder already holds)."""

    def __init__(
        self,
        cfg: StudyConfig,
        opts: RunOptions,
        tasks: list[SuiteTask],
        judge: JudgeClient,
        generator: ImageGenerator | None = None,
    ):
        super().__init__(cfg, opts, tasks, judge, cfg.prompters, cfg.backends)
        self.cfg: StudyConfig = cfg
        self.generator = generator or ImageGenerator()
        self.backends: list[BackendSpec] = self.models
        self._prompt_locks: dict[tuple[str, str], asyncio.Lock] = {}

    def record(self) -> dict[str, Any]:
        return study_record(self.cfg, self.tasks)

    async def _write(self, task: SuiteTask, spec: PrompterSpec) -> PromptOutcome | None:
        return await self._written(task, spec, lambda: write_prompt(spec, task, self.cfg.base_dir))

    async def _item(
        self,
        index: int,
        task: SuiteTask,
        spec: PrompterSpec,
        backend: BackendSpec,
        outcome: PromptOutcome,
    ) -> None:
        assert self.journal is not None
        key = (task.id, spec.id, backend.id)
        if self.journal.get(key_of("item", *key)) is not None:
            return
        line = base_line(task, spec, backend.id)
        line["prompt"] = outcome.prompt
        line["usage"]["prompter"] = outcome.usage
        if outcome.status != "ok":
            line.update(status="prompt_failed", reason=f"prompt {outcome.status}: {outcome.reason}")
            return self._finish(key, line, no_images=True)
        gen = self.journal.get(key_of("generation", *key))
        if gen is None:
            gen = await self._generate(index, task, spec, backend, outcome.prompt or "")
            if gen is None:
                return
        line["images"] = gen["images"]
        line["usage"]["generation"] = gen["usage"]
        if gen["status"] != "ok" or not gen["images"]:
            status = "blocked" if gen["status"] in GEN_BLOCKED else "generation_failed"
            line.update(status=status, reason=f"generation {gen['status']}: {gen['reason']}")
            return self._finish(key, line)
        await self._judge(task, spec, backend, line, gen)

    async def _generate(
        self, index: int, task: SuiteTask, spec: PrompterSpec, backend: BackendSpec, prompt: str
    ) -> dict[str, Any] | None:
        assert self.journal is not None
        if not self.gate.open():
            return None
        n = self.cfg.study.images_per_prompt
        seed = backend.seed if backend.seed is not None else self.cfg.run.seed + index
        gen, status, reason, images, usage = await self._attempt(
            lambda: self.generator.generate(backend, prompt, n, seed=seed)
        )
        folder = self.out / "generations" / backend.id / spec.id / task.id
        paths = await self._save_images(folder, images if status == "ok" else [])
        note = None
        if status == "ok" and (len(paths) < n or reason):
            note = reason or f"only {len(paths)} of {n} images were generated"
        record = {
            "status": status,
            "reason": reason,
            "note": note,
            "images": paths,
            "revised_prompt": getattr(gen, "revised_prompt", None) if status == "ok" else None,
            "usage": usage,
            "seed": seed,
        }
        return self._made((task.id, spec.id, backend.id), record)

    async def _judge(
        self,
        task: SuiteTask,
        spec: PrompterSpec,
        backend: BackendSpec,
        line: dict[str, Any],
        gen: dict[str, Any],
    ) -> None:
        submission = {
            "task": task_for_judge(task, self.cfg.tasks_path.parent),
            "prompt": line["prompt"],
            # absolute: a relative --out must not be resolved against the judge's base dir again
            "images": [str((self.out / p).resolve()) for p in gen["images"]],
            # a suite's briefs (``brief`` prompter) are prompts people wrote: the judge's "human"
            "prompter": {"id": spec.id, "kind": "mllm" if spec.kind == "mllm" else "human"},
            "backend": backend.id,
            "id": f"{task.id}.{spec.id}.{backend.id}",
        }
        key = (task.id, spec.id, backend.id)
        from judge.domain.result import Result

        result = await self._score(submission, key, line, Result)
        if result is None:
            return
        scored_line(line, result, gen.get("note"))
        self._judged(key, line)
