"""The ``mllm`` prompter: a multimodal model writes the prompt through the project's gateway.

One turn, no feedback: the system message is the condition card's instruction; the user
message carries the task brief inside a data block (the brief is untrusted text) and, for
tasks with a target image, the image. The reply is structured (a ``prompt`` field, preceded
by ``working_notes`` when the card asks for them), so retries, re-asks on unusable replies,
the response cache and cost accounting are the gateway's (:mod:`judge.llm.gateway`).

Example::

    spec = PrompterSpec(id="gpt-skilled", kind="mllm", model="openai/gpt-4o", condition="skilled")
    outcome = await mllm_prompt(spec, task, base_dir=Path("examples/study"))
"""

from __future__ import annotations

import asyncio
import os
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, SecretStr

from eval.studies.prompters.base import PrompterSpec, PromptOutcome, check_prompt
from eval.studies.prompters.conditions import ConditionCard, load_condition
from judge.config import JudgeSettings
from judge.errors import InputError
from judge.io.images import load_image
from judge.llm.gateway import LLMGateway
from judge.llm.usage import UsageMeter
from skills.rendering import data_block, image_part, messages, text_part
from skills.types import ModelCallError

MAX_REPLY_TOKENS = 2048


class PromptReply(BaseModel):
    """The reply of a condition without working notes."""

    prompt: str = Field(description="the finished text-to-image prompt, nothing else")


class NotedPromptReply(BaseModel):
    """The reply of a condition that works in notes first."""

    working_notes: str = Field(description="intent, constraint list and the check of the draft")
    prompt: str = Field(description="the finished text-to-image prompt, nothing else")


@lru_cache(maxsize=1)
def shared_gateway() -> LLMGateway:
    """One gateway for every prompter call of the process (one response cache)."""
    return LLMGateway(call_settings(model=None, api_base=None, api_key=None))


def call_settings(model: str | None, api_base: str | None, api_key: str | None) -> JudgeSettings:
    """Call options for one prompter, built without reading ``JUDGE_*`` (those configure the
    judge, not the prompters)."""
    defaults = {
        name: f.get_default(call_default_factory=True)
        for name, f in JudgeSettings.model_fields.items()
    }
    defaults.update(
        model=model,
        api_base=api_base,
        api_key=SecretStr(api_key) if api_key else None,
        max_tokens=MAX_REPLY_TOKENS,
        llm_concurrency=256,
    )
    return JudgeSettings.model_construct(**defaults)


def resolve_key(spec: PrompterSpec) -> str | None:
    """The key named by ``api_key_env``; raise when that variable is not set."""
    if not spec.api_key_env:
        return None
    key = os.environ.get(spec.api_key_env)
    if not key:
        raise ValueError(
            f"prompter {spec.id!r}: the variable {spec.api_key_env} (api_key_env) is not set"
        )
    return key


def build_messages(card: ConditionCard, brief: str, category: str, image: Any) -> list[dict]:
    """The chat for one task: the card's instruction, then the brief (and target) as data."""
    system = card.system.strip()
    if image is not None and card.image_note.strip():
        system += "\n\n" + card.image_note.strip()
    parts = [
        text_part(f"Task category: {category}. The request is in the data block below."),
        text_part(data_block("TASK BRIEF", brief)),
    ]
    if image is not None:
        parts += [text_part("Target image:"), image_part(image)]
    return messages(system, parts)


async def mllm_prompt(
    spec: PrompterSpec,
    task: Any,
    base_dir: Path,
    *,
    gateway: LLMGateway | None = None,
) -> PromptOutcome:
    """Ask ``spec.model`` for the prompt of ``task`` under ``spec.condition``."""
    assert spec.model and spec.condition  # PrompterSpec guarantees them for kind="mllm"
    card = load_condition(spec.condition)
    image = None
    if task.target_image:
        try:
            image = await asyncio.to_thread(
                load_image, task.target_image, field="target_image", base_dir=base_dir
            )
        except InputError as exc:
            return PromptOutcome(status="failed", reason=f"target image: {exc.message}")
    try:
        key = resolve_key(spec)
    except ValueError as exc:
        return PromptOutcome(status="failed", reason=str(exc))
    meter = UsageMeter()
    gw = gateway or shared_gateway()
    schema: type[PromptReply | NotedPromptReply]
    schema = NotedPromptReply if card.working_notes else PromptReply
    start = time.perf_counter()
    try:
        reply = await gw.structured(
            spec.model,
            build_messages(card, task.brief, str(task.category), image),
            schema,
            tag=f"prompter:{card.ref}",
            meter=meter,
            settings=call_settings(spec.model, spec.api_base, key),
        )
    except ModelCallError as exc:
        return PromptOutcome(
            status="failed", reason=f"prompter model: {exc}", usage=_usage(meter, start)
        )
    return check_prompt(reply.prompt, _usage(meter, start))


def _usage(meter: UsageMeter, start: float) -> dict:
    return {
        "calls": meter.llm_calls,
        "cost_usd": round(meter.cost_usd, 6),
        "latency_s": round(time.perf_counter() - start, 4),
        "cache_hits": meter.cache_hits,
    }
