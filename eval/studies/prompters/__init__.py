"""Prompters write the prompt of a task: people (a JSONL file), an MLLM under a condition, or
the task's own brief taken as the prompt (``brief``).

The kinds are registered in :data:`PROMPTER_KINDS`; :func:`write_prompt` dispatches on
``spec.kind``. Outcomes are values, never exceptions: ``ok``, ``refused``, ``empty``,
``missing`` (no prompt for that task) or ``failed`` (with the reason).

Example::

    spec = PrompterSpec(id="p1", kind="human", prompts="human_prompts.jsonl")
    outcome = await write_prompt(spec, task, base_dir=Path("examples/study"))
    outcome.status, outcome.prompt
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from eval.studies.prompters.base import (
    MAX_PROMPT_CHARS,
    PrompterSpec,
    PromptOutcome,
    check_prompt,
)
from eval.studies.prompters.human import PromptFileError, human_prompt, read_prompt_file
from eval.studies.prompters.mllm import mllm_prompt

PrompterFn = Callable[[PrompterSpec, Any, Path], Awaitable[PromptOutcome]]


async def _human(spec: PrompterSpec, task: Any, base_dir: Path) -> PromptOutcome:
    return await human_prompt(spec, task.id, base_dir)


async def _brief(spec: PrompterSpec, task: Any, base_dir: Path) -> PromptOutcome:
    return check_prompt(task.brief)


PROMPTER_KINDS: dict[str, PrompterFn] = {"human": _human, "mllm": mllm_prompt, "brief": _brief}
"""Prompter kind → async function ``(spec, task, base_dir) -> PromptOutcome``."""


async def write_prompt(spec: PrompterSpec, task: Any, base_dir: Path) -> PromptOutcome:
    """The prompt ``spec`` writes for ``task`` (a SuiteTask); relative paths (prompts file,
    target image) resolve against ``base_dir``. Never raises for a per-task problem."""
    fn = PROMPTER_KINDS.get(spec.kind)
    if fn is None:
        known = ", ".join(sorted(PROMPTER_KINDS))
        return PromptOutcome(
            status="failed", reason=f"unknown prompter kind {spec.kind!r}; known: {known}"
        )
    try:
        return await fn(spec, task, base_dir)
    except PromptFileError as exc:
        return PromptOutcome(status="failed", reason=str(exc))


__all__ = [
    "MAX_PROMPT_CHARS",
    "PROMPTER_KINDS",
    "PromptFileError",
    "PromptOutcome",
    "PrompterSpec",
    "check_prompt",
    "read_prompt_file",
    "write_prompt",
]
