"""The ``human`` prompter: prompts people wrote, read from a JSONL file.

One object per line, ``{"task_id": "...", "prompt": "..."}`` (other keys, such as a participant
code, are kept out of the way and ignored). Blank lines are skipped. A malformed line, a
missing field or a task id given twice is an error naming ``FILE:LINE``; a task with no line
is not an error: its outcome is ``missing``.

Example:
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "p.jsonl"
    >>> _ = f.write_text('{"task_id": "oe_1", "prompt": "a lighthouse at dusk"}\\n')
    >>> read_prompt_file(f)["oe_1"]
    'a lighthouse at dusk'
"""

from __future__ import annotations

from pathlib import Path

from eval.studies.prompters.base import PrompterSpec, PromptOutcome, check_prompt
from memory.io.jsonl import read_jsonl, where

_CACHE: dict[tuple[str, float, int], dict[str, str]] = {}


class PromptFileError(ValueError):
    """A prompts file that cannot be read; the message starts with ``FILE:LINE:``."""


def read_prompt_file(path: Path) -> dict[str, str]:
    """``task_id → prompt`` from a JSONL file (read once per file version)."""
    try:
        stat = path.stat()
    except OSError as exc:
        raise PromptFileError(f"{path}: cannot read the prompts file ({exc.strerror})") from None
    key = (str(path.resolve()), stat.st_mtime, stat.st_size)
    if key in _CACHE:
        return _CACHE[key]
    prompts: dict[str, str] = {}
    numbered = read_jsonl(path, error=PromptFileError)
    for n, row in numbered:
        at = where(path, n)
        if not isinstance(row, dict):
            raise PromptFileError(f"{at}: expected a JSON object with task_id and prompt")
        task_id, prompt = row.get("task_id"), row.get("prompt")
        if not isinstance(task_id, str) or not task_id:
            raise PromptFileError(f"{at}: task_id: a non-empty string is required")
        if not isinstance(prompt, str):
            raise PromptFileError(f"{at}: prompt: a string is required")
        if task_id in prompts:
            raise PromptFileError(f"{at}: task_id: {task_id!r} appears more than once")
        prompts[task_id] = prompt
    _CACHE[key] = prompts
    return prompts


async def human_prompt(spec: PrompterSpec, task_id: str, base_dir: Path) -> PromptOutcome:
    """The person's prompt for ``task_id`` (validated like any prompter's text)."""
    assert spec.prompts is not None  # PrompterSpec guarantees it for kind="human"
    path = Path(spec.prompts)
    prompts = read_prompt_file(path if path.is_absolute() else base_dir / path)
    if task_id not in prompts:
        return PromptOutcome(status="missing", reason=f"no prompt for task {task_id!r} in {path}")
    return check_prompt(prompts[task_id])
