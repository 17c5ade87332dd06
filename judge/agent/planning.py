"""Routing: which skills and checkpoints run for a submission, by task category.

- prompt-side subjective cards that list the category run once;
- image-side subjective cards run per image, for the categories they list (OE and CO by
  default: imitation tasks get no subjective image scores);
- every checkpoint runs on the prompt (QA) and on each image (VQA), one call each or one
  call per modality when batching is ``per_modality``.

Example:
    >>> from skills.registry import default_registry
    >>> from judge.domain.task import Task
    >>> t = Task.model_validate({"id": "t", "category": "IM", "brief": "b", "checklist": [
    ...     {"id": "c1", "primitive": "quantity", "prompt_check": "p", "image_check": "i"}]})
    >>> items = plan_work(t, default_registry(), n_images=1, batching="per_checkpoint")
    >>> sorted({i.skill for i in items if i.modality == "image"})
    ['image_check']
"""

from __future__ import annotations

from collections.abc import Sequence

from judge.agent.work import WorkItem
from judge.domain.task import Task
from skills.card import SkillCard
from skills.registry import SkillRegistry


def _check_items(
    task: Task, skill: str, modality: str, image: int | None, batching: str
) -> list[WorkItem]:
    ids = tuple(
        cp.id
        for cp in task.checklist
        if (cp.prompt_check if modality == "prompt" else cp.image_check)
    )
    where = "prompt" if image is None else f"img{image}"
    if not ids:
        return []
    if batching == "per_modality":
        return [WorkItem(f"{skill}/{where}/*", skill, modality, image, ids)]
    return [WorkItem(f"{skill}/{where}/{cid}", skill, modality, image, (cid,)) for cid in ids]


def subjective_cards(
    registry: SkillRegistry,
    skills: Sequence[str],
    modality: str,
    category: str | None = None,
) -> list[SkillCard]:
    """The subjective cards in play: the named ones, else every enabled card."""
    if not skills:
        return registry.cards(kind="subjective-rubric", modality=modality, category=category)
    cards = [registry.card(name) for name in registry.expand(skills)]
    for c in cards:
        if c.kind != "subjective-rubric":
            raise KeyError(
                f"skill {c.name!r} is a {c.kind} card; only subjective-rubric cards can be selected"
            )
    return sorted(
        (
            c
            for c in cards
            if c.modality == modality and (category is None or category in c.categories)
        ),
        key=lambda c: c.name,
    )


def plan_work(
    task: Task,
    registry: SkillRegistry,
    *,
    n_images: int,
    batching: str,
    skills: Sequence[str] = (),
) -> list[WorkItem]:
    """Every work item for one submission, in a stable order."""
    category = task.category.value
    items: list[WorkItem] = []
    for card in subjective_cards(registry, skills, "prompt", category):
        items.append(WorkItem(f"{card.name}/prompt", card.name, "prompt"))
    image_cards = subjective_cards(registry, skills, "image", category)
    for i in range(n_images):
        for card in image_cards:
            items.append(WorkItem(f"{card.name}/img{i}", card.name, "image", i))
    for card in registry.cards(kind="objective-checklist", category=category):
        if card.modality == "prompt":
            items += _check_items(task, card.name, "prompt", None, batching)
        else:
            for i in range(n_images):
                items += _check_items(task, card.name, "image", i, batching)
    return items
