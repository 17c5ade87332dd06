"""Planning for the ``score`` mode: which skills and checkpoints run, by task category.

- prompt-side subjective cards that list the category run once;
- image-side subjective cards run per image, for the categories they list (OE and CO by
  default: imitation tasks get no subjective image scores);
- every checkpoint runs on the prompt (QA) and on each image (VQA), by exactly one checklist
  card per side: the card routed to its primitive (:meth:`SkillRegistry.checklist_card`),
  one call each or one call per card and side when batching is ``per_modality``.

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
from skills.kinds import scores_dimensions
from skills.registry import SkillRegistry


def _check_items(
    task: Task, registry: SkillRegistry, skill: str, modality: str, image: int | None, batching: str
) -> list[WorkItem]:
    """The items of checklist card ``skill``: the checkpoints routed to it on its side."""
    category = task.category.value
    ids = tuple(
        cp.id
        for cp in task.checklist
        if (cp.prompt_check if modality == "prompt" else cp.image_check)
        and registry.checklist_card(modality, cp.primitive.value, category) == skill
    )
    where = "prompt" if image is None else f"img{image}"
    views = image_views(image)
    if not ids:
        return []
    if batching == "per_modality":
        return [WorkItem(f"{skill}/{where}/*", skill, modality, image, ids, views)]
    return [
        WorkItem(f"{skill}/{where}/{cid}", skill, modality, image, (cid,), views) for cid in ids
    ]


def image_view(index: int) -> str:
    """The view name of a submission's image ``index`` (its field path).

    Example:
        >>> image_view(2)
        'images[2]'
    """
    return f"images[{index}]"


def image_views(image: int | None) -> tuple[tuple[str, str], ...]:
    """The ``image`` role bound to image ``image`` (nothing for prompt-side items)."""
    return () if image is None else (("image", image_view(image)),)


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
        if not scores_dimensions(c.kind):
            raise KeyError(
                f"skill {c.name!r} is a {c.kind} card; only subjective-rubric cards (or cards "
                "of a kind a plugin adds) can be selected"
            )
    return sorted(
        (
            c
            for c in cards
            if c.modality == modality and (category is None or category in c.categories)
        ),
        key=lambda c: c.name,
    )


def _grouped(registry: SkillRegistry, cards: list[SkillCard], mode: str) -> list[str]:
    """Card names to run: one per card, or (``per_modality``) one combined card per memory."""
    if mode != "per_modality":
        return [c.name for c in cards]
    groups: dict[tuple[str | None, str], list[str]] = {}
    for c in cards:
        groups.setdefault((c.memory, c.template), []).append(c.name)
    return [registry.combine(names) for names in groups.values()]


def plan_work(
    task: Task,
    registry: SkillRegistry,
    *,
    n_images: int,
    batching: str,
    skills: Sequence[str] = (),
    subjective_batching: str = "per_dimension",
) -> list[WorkItem]:
    """Every work item for one submission, in a stable order."""
    category = task.category.value
    items: list[WorkItem] = []
    prompt_cards = _grouped(
        registry, subjective_cards(registry, skills, "prompt", category), subjective_batching
    )
    for name in prompt_cards:
        items.append(WorkItem(f"{name}/prompt", name, "prompt"))
    image_cards = _grouped(
        registry, subjective_cards(registry, skills, "image", category), subjective_batching
    )
    for i in range(n_images):
        for name in image_cards:
            items.append(WorkItem(f"{name}/img{i}", name, "image", i, views=image_views(i)))
    for card in registry.cards(kind="objective-checklist", category=category):
        if card.modality == "prompt":
            items += _check_items(task, registry, card.name, "prompt", None, batching)
        else:
            for i in range(n_images):
                items += _check_items(task, registry, card.name, "image", i, batching)
    return items
