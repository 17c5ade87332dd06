"""Instruction writers of an edit study: who turns a task's request into the instruction
every editor gets. Kinds are registered in :data:`WRITER_KINDS`:

- ``as_written`` — the request, unchanged (what people typed, or what ``judge tasks edits``
  wrote);
- ``mllm`` — a model rewrites the request as one clear editing instruction (the rewrite card
  is ``rewrite.md`` beside this module; the request goes in a data block, the source image
  is shown). Calls go through the project's gateway (retries, re-asks, cache, cost);
- ``human`` — what a person wrote for the task, read from the writer's ``instructions`` file
  (the JSONL ``judge study import-prompts`` writes from the participant page; ``base_dir``
  is then the study file's folder); a task with no line is ``missing``.

Outcomes are values, never exceptions (``PromptOutcome``: ``ok``/``failed``, the text in
``prompt``, the usage).

Example:
    >>> import asyncio
    >>> from eval.studies.edits.tasks import EditTask
    >>> t = EditTask(id="t", request="Make the door red.", source_image="a.png")
    >>> w = WriterSpec(id="w", kind="as_written")
    >>> asyncio.run(write_instruction(w, t, Path("."))).prompt
    'Make the door red.'
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

from eval.studies.edits.config import WriterSpec
from eval.studies.edits.tasks import EditTask
from eval.studies.prompters.base import PromptOutcome, check_prompt
from eval.studies.prompters.human import PromptFileError, read_prompt_file
from eval.studies.prompters.mllm import call_settings, shared_gateway
from judge.errors import InputError
from judge.io.images import load_image
from judge.llm.usage import UsageMeter
from skills.rendering import data_block, image_part, messages, text_part
from skills.types import ModelCallError

CARD = Path(__file__).with_name("rewrite.md")


class RewriteReply(BaseModel):
    """The rewriter's structured answer."""

    instruction: str = Field(description="the editing instruction, nothing else")


@lru_cache(maxsize=1)
def rewrite_card() -> str:
    """The rewriter's system message (data, not code)."""
    return CARD.read_text(encoding="utf-8").strip()


async def _as_written(spec: WriterSpec, task: EditTask, base_dir: Path) -> PromptOutcome:
    return PromptOutcome(status="ok", prompt=task.request, usage={"calls": 0, "cost_usd": 0.0})


async def _mllm(spec: WriterSpec, task: EditTask, base_dir: Path) -> PromptOutcome:
    assert spec.model  # WriterSpec guarantees it for kind="mllm"
    key = None
    if spec.api_key_env:
        key = os.environ.get(spec.api_key_env)
        if not key:
            reason = f"writer {spec.id!r}: the variable {spec.api_key_env} (api_key_env) is not set"
            return PromptOutcome(status="failed", reason=reason)
    try:
        image = await asyncio.to_thread(
            load_image, task.source_image, field="source_image", base_dir=base_dir
        )
    except InputError as exc:
        return PromptOutcome(status="failed", reason=f"source image: {exc.message}")
    parts = [
        text_part("The person's request is in the data block below; the picture follows."),
        text_part(data_block("EDIT REQUEST", task.request)),
        image_part(image),
    ]
    meter = UsageMeter()
    start = time.perf_counter()
    try:
        reply = await shared_gateway().structured(
            spec.model,
            messages(rewrite_card(), parts),
            RewriteReply,
            tag="edit-writer:rewrite",
            meter=meter,
            settings=call_settings(spec.model, spec.api_base, key),
        )
    except ModelCallError as exc:
        usage = {"calls": meter.llm_calls, "cost_usd": round(meter.cost_usd, 6)}
        return PromptOutcome(status="failed", reason=f"writer model: {exc}", usage=usage)
    usage = {
        "calls": meter.llm_calls,
        "cost_usd": round(meter.cost_usd, 6),
        "latency_s": round(time.perf_counter() - start, 4),
    }
    return check_prompt(reply.instruction, usage)


async def _human(spec: WriterSpec, task: EditTask, base_dir: Path) -> PromptOutcome:
    assert spec.instructions  # WriterSpec guarantees it for kind="human"
    path = base_dir / spec.instructions
    try:
        written = await asyncio.to_thread(read_prompt_file, path)
    except PromptFileError as exc:
        return PromptOutcome(status="failed", reason=str(exc))
    if task.id not in written:
        reason = f"no instruction for task {task.id!r} in {spec.instructions}"
        return PromptOutcome(status="missing", reason=reason)
    return check_prompt(written[task.id], {"calls": 0, "cost_usd": 0.0})


Writer = Callable[[WriterSpec, EditTask, Path], Awaitable[PromptOutcome]]
WRITER_KINDS: dict[str, Writer] = {"as_written": _as_written, "mllm": _mllm, "human": _human}
"""Writer kind → async function ``(spec, task, base_dir) -> PromptOutcome``."""


async def write_instruction(spec: WriterSpec, task: EditTask, base_dir: Path) -> PromptOutcome:
    """The instruction ``spec`` writes for ``task`` (never raises for model trouble)."""
    return await WRITER_KINDS[spec.kind](spec, task, base_dir)
