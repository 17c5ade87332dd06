"""Helpers for the checklist routing tests: extra checklist cards written to a folder."""

from __future__ import annotations

import json
from pathlib import Path

from judge.domain.task import Task
from tests.conftest import EXAMPLE


def write_card(
    folder: Path,
    name: str,
    side: str = "image",
    primitives: list[str] | None = None,
    categories: list[str] | None = None,
) -> Path:
    """Write a checklist card ``name`` for ``side`` to ``folder`` (built-in templates)."""
    lines = [
        f'name = "{name}"',
        'kind = "objective-checklist"',
        'version = "1.0.0"',
        f'modality = "{side}"',
        f'template = "objective_{side}.md"',
        f'batch_template = "objective_{side}_batch.md"',
    ]
    if primitives is not None:
        lines.append(f"primitives = {json.dumps(primitives)}")
    if categories is not None:
        lines.append(f"categories = {json.dumps(categories)}")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def example_submission() -> dict:
    """examples/co_106: a CO task of 12 checkpoints, each checked on both sides."""
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))


def example_task() -> Task:
    """The task of examples/co_106."""
    return Task.model_validate(example_submission()["task"])
