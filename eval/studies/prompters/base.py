"""What every prompter shares: its study-file entry, its outcome and output validation.

A prompter's text is untrusted: it goes to image models and to the judge as data, never as
instructions. Validation only decides whether there is a usable prompt at all:

- nothing but whitespace → ``empty``;
- text that reads as a refusal (a short reply opening with "I can't help…", "I'm sorry, but…",
  …) → ``refused``;
- longer than :data:`MAX_PROMPT_CHARS` → cut at that length on a word boundary and kept as
  ``ok`` with a note in ``reason`` (image models truncate long prompts themselves; keeping the
  head is what a person pasting it into a T2I tool would get).

Example:
    >>> check_prompt("  ").status, check_prompt("I'm sorry, but I can't do that.").status
    ('empty', 'refused')
    >>> out = check_prompt("word " * 2000); out.status, len(out.prompt) <= MAX_PROMPT_CHARS
    ('ok', True)
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

MAX_PROMPT_CHARS = 4000
"""Longest prompt kept; longer ones are truncated (see the module docstring)."""

REFUSAL_MAX_CHARS = 400
"""Only replies this short can read as a refusal (a long prompt may contain "I can't")."""

_REFUSAL = re.compile(
    r"^\W*(i('| a)?m (sorry|afraid|unable|not able)|sorry(,|\.|!| but| i\b)|"
    r"i (can('|no)?t|cannot|won'?t|will not|am unable to|must decline|"
    r"do not feel comfortable)|as an ai\b|unfortunately,? i)",
    re.IGNORECASE,
)

Status = Literal["ok", "refused", "empty", "missing", "failed"]


class PrompterSpec(BaseModel):
    """A ``[[prompters]]`` entry of a study file (docs/design.md#studies).

    ``human``: prompts come from ``prompts`` (a JSONL of ``{"task_id", "prompt"}``, relative to
    the study file). ``mllm``: ``model`` (a litellm string) writes them under ``condition`` (a
    card in ``eval/studies/conditions/``); ``api_base`` and ``api_key_env`` (the name of the
    variable holding the key) reach a provider of your own; ``concurrency`` caps calls in flight.
    ``brief``: the task's brief is the prompt, as written (suites whose briefs are prompts
    people already used, such as ``judge tasks from-posts`` output); it takes no other key.

    Example:
        >>> PrompterSpec(id="gpt-novice", kind="mllm", model="openai/gpt-4o",
        ...              condition="novice").condition
        'novice'
    """

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    kind: Literal["human", "mllm", "brief"]
    model: str | None = None
    condition: str | None = None
    prompts: str | None = None
    api_base: str | None = None
    api_key_env: str | None = None
    concurrency: int = Field(default=16, ge=1, le=256)

    @model_validator(mode="after")
    def _fields_of_kind(self) -> PrompterSpec:
        if self.kind == "brief":
            extra = [k for k in ("model", "condition", "prompts", "api_base", "api_key_env")
                     if getattr(self, k)]
            if extra:
                raise ValueError(f"a brief prompter takes no {', '.join(extra)}")
        elif self.kind == "human":
            if not self.prompts:
                raise ValueError("a human prompter needs `prompts` (a JSONL file of prompts)")
            extra = [
                k for k in ("model", "condition", "api_base", "api_key_env") if getattr(self, k)
            ]
            if extra:
                raise ValueError(f"a human prompter takes no {', '.join(extra)}")
        else:
            if not self.model:
                raise ValueError("an mllm prompter needs `model` (a litellm model string)")
            if not self.condition:
                raise ValueError("an mllm prompter needs `condition` (e.g. novice or skilled)")
            if self.prompts:
                raise ValueError("an mllm prompter takes no `prompts` file")
        return self


class PromptOutcome(BaseModel):
    """What a prompter produced for one task: a prompt, or why there is none."""

    status: Status
    prompt: str | None = None
    reason: str | None = None
    usage: dict = Field(default_factory=lambda: {"calls": 0, "cost_usd": 0.0, "latency_s": 0.0})


def check_prompt(text: str | None, usage: dict | None = None) -> PromptOutcome:
    """Classify a prompter's raw text (see the module docstring)."""
    used = usage or {"calls": 0, "cost_usd": 0.0, "latency_s": 0.0}
    body = (text or "").strip()
    if not body:
        return PromptOutcome(status="empty", reason="the prompter returned no text", usage=used)
    if len(body) <= REFUSAL_MAX_CHARS and _REFUSAL.match(body):
        return PromptOutcome(
            status="refused", prompt=body, reason="the reply reads as a refusal", usage=used
        )
    if len(body) > MAX_PROMPT_CHARS:
        cut = body[:MAX_PROMPT_CHARS]
        space = cut.rfind(" ")
        cut = cut[:space] if space > MAX_PROMPT_CHARS // 2 else cut
        note = f"truncated from {len(body)} to {len(cut)} characters"
        return PromptOutcome(status="ok", prompt=cut, reason=note, usage=used)
    return PromptOutcome(status="ok", prompt=body, usage=used)
