"""Pieces every skill kind shares: data blocks for the submission and unscored values."""

from __future__ import annotations

import json

from skills.rendering import data_block, image_part, text_part
from skills.types import Exemplar, SkillInput

CATEGORY_NAMES = {"OE": "open-ended creation", "CO": "constrained creation", "IM": "imitation"}


def task_parts(inp: SkillInput, *, with_brief: bool = True) -> list[dict]:
    """The task context: category (trusted enum) and brief (untrusted data)."""
    parts = []
    if inp.category:  # modes without task categories (compare) have none to state
        label = CATEGORY_NAMES.get(inp.category, inp.category)
        parts.append(text_part(f"Task category: {inp.category} ({label})."))
    if with_brief:
        parts.append(text_part(data_block("TASK BRIEF", inp.brief)))
    if inp.target_image is not None and with_brief:
        parts.append(text_part("Target image the prompter was asked to reproduce:"))
        parts.append(image_part(inp.target_image))
    return parts


def prompt_part(inp: SkillInput, label: str = "EVALUATED PROMPT") -> dict:
    """The evaluated prompt as a data block."""
    return text_part(data_block(label, inp.prompt))


def exemplar_parts(exemplars: tuple[Exemplar, ...], modality: str) -> list[dict]:
    """Expert-scored exemplars as data: brief, the prompt or image, scores and rationales."""
    parts: list[dict] = []
    for k, ex in enumerate(exemplars, start=1):
        sim = f"{ex.similarity:.2f}" if ex.similarity is not None else "n/a"
        parts.append(text_part(f"Exemplar {k} (id {ex.id}, similarity {sim}):"))
        if ex.task_brief:
            parts.append(text_part(data_block(f"EXEMPLAR {k} TASK BRIEF", ex.task_brief)))
        if modality == "image" and ex.image is not None:
            parts.append(image_part(ex.image))
        elif ex.prompt is not None:
            parts.append(text_part(data_block(f"EXEMPLAR {k} PROMPT", ex.prompt)))
        expert = {
            d: {"score": s, "rationale": ex.rationales.get(d, "")} for d, s in ex.scores.items()
        }
        parts.append(text_part(data_block(f"EXEMPLAR {k} EXPERT SCORES", json.dumps(expert))))
    return parts


def bullet_list(items: list[str]) -> str:
    """Markdown bullets, or a dash when empty."""
    return "\n".join(f"- {i}" for i in items) if items else "-"
