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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from eval.kit.client import JudgeCallError, JudgeClient
from eval.kit.journal import Journal
from eval.kit.journal import key as key_of
from eval.studies.config import StudyConfig
from eval.studies.prompters import PrompterSpec, PromptOutcome, write_prompt
from eval.studies.results import base_line, scored_line
from eval.studies.stages import CostGate, StageUsage, study_record
from eval.studies.suite import SuiteTask, task_for_judge
from eval.t2i import BackendSpec, ImageGenerator
from judge.llm.batch.deferral import ItemWaiting
from memory.io.atomic import write_atomic

GEN_BLOCKED = {"refused", "blocked"}


DEFAULT_BACKEND_CONCURRENCY = 32
"""Image requests in flight per backend when the study file does not set ``concurrency``."""


def _backend_caps(spec: BackendSpec, cap: int | None) -> BackendSpec:
    """``--concurrency`` beats the study file, which beats the runner's default."""
    if cap:
        return spec.model_copy(update={"concurrency": cap})
    if "concurrency" not in spec.model_fields_set:
        return spec.model_copy(update={"concurrency": DEFAULT_BACKEND_CONCURRENCY})
    return spec


class StudyMismatch(ValueError):
    """The output folder holds a different study; say how to go on."""


LOCAL_JUDGE = "this process"


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


class StudyRunner:
    """Runs one study into one output folder (resuming what the folder already holds)."""

    def __init__(
        self,
        cfg: StudyConfig,
        opts: RunOptions,
        tasks: list[SuiteTask],
        judge: JudgeClient,
        generator: ImageGenerator | None = None,
    ):
        self.cfg, self.opts, self.tasks = cfg, opts, tasks
        self.judge = judge
        self.generator = generator or ImageGenerator()
        self.out = Path(opts.out)
        cap = opts.concurrency
        self.backends = [_backend_caps(b, cap) for b in cfg.backends]
        self._prompt_sems = {
            p.id: asyncio.Semaphore(min(p.concurrency, cap or p.concurrency)) for p in cfg.prompters
        }
        self._judge_sem = asyncio.Semaphore(cap or cfg.run.judge_concurrency)
        self.usage = StageUsage()
        self.gate = CostGate(opts.max_cost)
        self.journal: Journal | None = None
        self._prompt_locks: dict[tuple[str, str], asyncio.Lock] = {}
        self._bars: dict[str, tqdm] = {}

    # -- set-up --------------------------------------------------------------------------
    def _check_folder(self) -> None:
        record = study_record(self.cfg, self.tasks)
        path = self.out / "study.json"
        if path.exists():
            try:
                old = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise StudyMismatch(
                    f"{path}: unreadable ({exc}); move {self.out} aside to start this study "
                    "afresh, or restore the file"
                ) from None
            if not isinstance(old, dict):
                raise StudyMismatch(f"{path}: expected a JSON object; move {self.out} aside")
            if old.get("fingerprint") != record["fingerprint"]:
                raise StudyMismatch(
                    f"{self.out} holds a run of a different study (tasks, prompters, backends, "
                    "judge or images_per_prompt changed); use a new --out folder, or delete "
                    f"{self.out} to start this study afresh"
                )
            before = old.get("judged_by", LOCAL_JUDGE)
            if before != self.opts.judged_by:
                raise StudyMismatch(
                    f"{self.out} was judged by {before}, this run would judge by "
                    f"{self.opts.judged_by}: one study's results come from one judge; resume "
                    "with the same --url (or without it), or use a new --out folder"
                )
        record["judged_by"] = self.opts.judged_by
        self.out.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(record, indent=2, ensure_ascii=False).encode())

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
        pairs = [(t, p) for t in self.tasks for p in self.cfg.prompters]
        items = len(pairs) * len(self.backends)
        resumed = {k: j.count(k) for k in ("prompt", "generation", "item")}
        self._bars = {
            "prompts": self._bar("prompts", len(pairs), resumed["prompt"]),
            "images": self._bar("images", items, resumed["generation"]),
            "judged": self._bar("judged", items, resumed["item"]),
        }
        try:
            await asyncio.gather(*(self._pair(i, t, p) for i, (t, p) in enumerate(pairs)))
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
        assert self.journal is not None
        total = 0.0
        for kind in ("prompt", "generation", "item"):
            for data in self.journal.values(kind):
                usage = data.get("usage") or {}
                if kind == "item":
                    usage = usage.get("judge") or {}
                total += float(usage.get("cost_usd") or 0.0)
        return total

    async def _pair(self, index: int, task: SuiteTask, spec: PrompterSpec) -> None:
        outcome = await self._prompt(task, spec)
        if outcome is None:
            return
        await asyncio.gather(*(self._item(index, task, spec, b, outcome) for b in self.backends))

    async def _prompt(self, task: SuiteTask, spec: PrompterSpec) -> PromptOutcome | None:
        assert self.journal is not None
        pair = (task.id, spec.id)
        done = self.journal.get(key_of("prompt", *pair))
        if done is not None:
            return PromptOutcome.model_validate(done)
        if all(self.journal.get(key_of("item", *pair, b.id)) for b in self.backends):
            return None
        async with self._prompt_sems[spec.id]:
            if not self.gate.open():
                return None
            outcome = await write_prompt(spec, task, self.cfg.base_dir)
        self.usage.add("prompter", outcome.usage)
        self.gate.spend(outcome.usage.get("cost_usd", 0.0))
        self.journal.put(key_of("prompt", *pair), outcome.model_dump(mode="json"))
        self._bars["prompts"].update(1)
        return outcome

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
            return self._finish(key, line, generated=True)
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
        try:
            gen = await self.generator.generate(backend, prompt, n, seed=seed)
            status, reason, images, usage = gen.status, gen.reason, gen.images, dict(gen.usage)
        except Exception as exc:  # a backend must not stop the study; the reason is kept
            status, reason, images, usage = "failed", f"{type(exc).__name__}: {exc}", [], {}
        folder = self.out / "generations" / backend.id / spec.id / task.id
        paths = []
        for k, data in enumerate(images if status == "ok" else []):
            await asyncio.to_thread(write_atomic, folder / f"{k}.png", data)
            paths.append(str((folder / f"{k}.png").relative_to(self.out)))
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
        self.usage.add("generation", usage)
        self.gate.spend(usage.get("cost_usd", 0.0))
        self.journal.put(key_of("generation", task.id, spec.id, backend.id), record)
        self._bars["images"].update(1)
        return record

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
        async with self._judge_sem:
            if not self.gate.open():
                return
            try:
                result = await self.judge.score(submission, self.out)
            except ItemWaiting:  # provider-batch mode: judged on a later pass
                return
            except JudgeCallError as exc:
                line.update(status="judge_failed", reason=f"judge: {exc}")
                return self._finish((task.id, spec.id, backend.id), line)
        scored_line(line, result, gen.get("note"))
        self.usage.add("judge", line["usage"]["judge"])
        self.gate.spend(line["usage"]["judge"].get("cost_usd", 0.0))
        self._finish((task.id, spec.id, backend.id), line)

    def _finish(
        self, key: tuple[str, str, str], line: dict[str, Any], generated: bool = False
    ) -> None:
        assert self.journal is not None
        self.journal.put(key_of("item", *key), line)
        if generated:
            self._bars["images"].update(1)
        self._bars["judged"].update(1)

    # -- output ------------------------------------------------------------------------------
    def write_results(self) -> list[dict[str, Any]]:
        """``results.jsonl`` from the journal, in task × prompter × backend order."""
        assert self.journal is not None
        lines = [
            line
            for t in self.tasks
            for p in self.cfg.prompters
            for b in self.backends
            if (line := self.journal.get(key_of("item", t.id, p.id, b.id))) is not None
        ]
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        write_atomic(self.out / "results.jsonl", text.encode())
        return lines
