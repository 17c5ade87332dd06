"""Edit instructions for a folder of source images, one per edit type of each image's category.

For every image: its category (from the user's CSV, or a vision model picks one of the
cards), then one call writing an instruction per edit type of that category, duplicates
dropped (same words once case, spacing and punctuation are ignored), then one check call per
instruction against its type's definition (failures dropped). Output lines are edit tasks
``{"id", "instruction", "source_image", "category", "edit_type"}``.

Example::

    tasks, report = asyncio.run(generate(Path("photos"), Path("edits.jsonl"), settings))
"""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from eval.edit_tasks.cards import CategoryCard, load_categories
from eval.edit_tasks.prompts import (
    CheckAnswer,
    category_schema,
    render,
    versions,
    writing_schema,
)
from judge.config import JudgeSettings
from judge.errors import InputError
from judge.io.images import load_image
from judge.llm.gateway import LLMGateway
from judge.llm.usage import UsageMeter
from skills.rendering import data_block, image_part, messages, text_part
from skills.types import ImagePayload, ModelCallError, ModelClient

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif"}


@dataclass
class EditReport:
    """What happened per image."""

    images: int = 0
    written: int = 0
    duplicates: list[str] = field(default_factory=list)
    rejected: list[dict[str, str]] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    categories: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def normalise(text: str) -> str:
    """Lowercase words only: the key duplicates are found by."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def task_id(image: Path, edit_type: str) -> str:
    """``<image stem>-<edit type>``."""
    return f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', image.stem)}-{edit_type}"


async def _classify(client: ModelClient, cards: dict[str, CategoryCard], name: str,
                    img: ImagePayload) -> str:
    listing = "\n".join(f"- `{c.name}`: {c.description}" for c in cards.values())
    parts = [text_part(data_block("IMAGE ID", name)), image_part(img),
             text_part("Which category is this image?")]
    schema = category_schema(tuple(cards))
    answer = await client.structured(messages(render("classify", categories=listing), parts),
                                     schema, tag=versions()["classify"])
    return answer.category  # type: ignore[attr-defined]  # a model built at run time (create_model)


async def _write(client: ModelClient, card: CategoryCard, name: str,
                 img: ImagePayload) -> list[tuple[str, str]]:
    types = card.types
    listing = "\n".join(f"- `{t}`: {d}" for t, d in types.items())
    system = render("write", category=card.name, description=card.description, types=listing)
    parts = [text_part(data_block("IMAGE ID", name)), image_part(img),
             text_part("Write the instructions.")]
    answer = await client.structured(messages(system, parts), writing_schema(tuple(types)),
                                     tag=f"{versions()['write']}/{card.tag}")
    return [(it.edit_type, it.instruction.strip()) for it in answer.items]  # type: ignore[attr-defined]  # a model built at run time (create_model)


async def _check(client: ModelClient, card: CategoryCard, edit_type: str, instruction: str,
                 img: ImagePayload) -> CheckAnswer:
    parts = [text_part(f"Edit type `{edit_type}`: {card.types[edit_type]}"),
             text_part(data_block("INSTRUCTION", instruction)), image_part(img),
             text_part("Does the instruction fit the edit type?")]
    return await client.structured(messages(render("check"), parts), CheckAnswer,
                                   tag=f"{versions()['check']}/{card.tag}")


def list_images(folder: Path) -> list[Path]:
    """The images of a folder (not recursive), sorted by name."""
    if not folder.is_dir():
        raise ValueError(f"{folder}: not a folder of images")
    found = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not found:
        raise ValueError(f"{folder}: holds no image ({', '.join(sorted(IMAGE_SUFFIXES))})")
    return found


async def generate(
    folder: Path, out: Path, settings: JudgeSettings, *, types_dir: Path | None = None,
    categories: dict[str, str] | None = None, progress: bool = True,
) -> tuple[list[dict[str, str]], EditReport]:
    """Edit tasks for every image of ``folder`` (``source_image`` relative to ``out``'s
    folder) and a report; an image that fails is reported, the others go on."""
    cards = load_categories(types_dir)
    images = list_images(folder)
    given = categories or {}
    for name, cat in given.items():
        if cat not in cards:
            raise ValueError(f"--categories: {name}: unknown category {cat!r}; "
                             f"known: {sorted(cards)}")
    client = LLMGateway(settings).client(settings.model or "", UsageMeter())
    report = EditReport(images=len(images))
    bar = tqdm(total=len(images), desc="images", unit="image", disable=not progress)
    async def one(path: Path) -> list[dict[str, str]]:
        try:
            img = await asyncio.to_thread(load_image, str(path), field="image",
                                          settings=JudgeSettings(allow_local_paths=True))
            cat = given.get(path.name) or await _classify(client, cards, path.name, img)
            card = cards[cat]
            written = await _write(client, card, path.name, img)
        except (InputError, ModelCallError) as exc:
            report.failed[path.name] = str(exc)
            return []
        finally:
            bar.update()
        report.categories[cat] = report.categories.get(cat, 0) + 1
        seen: set[str] = set()
        kept: list[tuple[str, str]] = []
        for edit_type, text in written:
            key = normalise(text)
            if key in seen or edit_type in {t for t, _ in kept}:
                report.duplicates.append(f"{path.name}: {edit_type}")
                continue
            seen.add(key)
            kept.append((edit_type, text))
        checks = await asyncio.gather(*(_check(client, card, t, x, img) for t, x in kept),
                                      return_exceptions=True)
        rel = Path(os.path.relpath(path.resolve(), out.parent.resolve())).as_posix()
        rows = []
        for (edit_type, text), verdict in zip(kept, checks, strict=True):
            if isinstance(verdict, BaseException) or not verdict.matches:
                why = str(verdict) if isinstance(verdict, BaseException) else verdict.reason
                report.rejected.append({"image": path.name, "edit_type": edit_type,
                                        "instruction": text, "reason": why})
                continue
            rows.append({"id": task_id(path, edit_type), "instruction": text,
                         "source_image": rel, "category": card.name, "edit_type": edit_type})
        return rows

    try:
        per_image = await asyncio.gather(*(one(p) for p in images))
    finally:
        bar.close()
    tasks = [row for rows in per_image for row in rows]
    report.written = len(tasks)
    return tasks, report
