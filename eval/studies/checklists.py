"""Checklist generation: DSG-style yes/no checks for a task that has none.

An LLM reads the brief (inside a data block) and, for an IM task, the target image, and
answers with atomic paired checks (``prompt_check`` / ``image_check``), a challenge primitive
each, and ``depends_on`` edges (child → parent; a child counts as failed when its parent fails,
see :func:`apply_dependencies`). The answer is validated (unique ids, parents that exist, no
cycle, primitives an IM image can show); an invalid answer is asked again through the
gateway's re-ask loop, and a task that still has none gets an error, not a checklist.

The instructions are data: ``templates/checklist.md`` and ``templates/checklist.toml`` (the
version recorded with every generated checklist).

Example:
    >>> card = load_card()
    >>> card.tag.startswith("checklist@"), "quantity" in card.primitives
    (True, True)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from string import Template

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from eval.studies.suite import NOT_OBSERVABLE, SuiteTask, resolve_target
from judge.domain.dependencies import apply_dependencies, dependency_problem
from judge.domain.task import MAX_CHECK_CHARS, MAX_CHECKPOINTS, Category, Checkpoint, Primitive
from judge.errors import InputError
from judge.io.images import load_image
from skills.kinds.common import CATEGORY_NAMES
from skills.rendering import data_block, image_part, messages, text_part
from skills.types import ModelCallError, ModelClient

__all__ = ["ChecklistCard", "GeneratedChecklist", "apply_dependencies", "generate_checklist"]

TEMPLATES = Path(__file__).parent / "templates"


class ChecklistCard(BaseModel):
    """The generator's wording and limits (``templates/checklist.toml``)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    version: str
    template: str
    min_checks: int = Field(ge=1)
    max_checks: int = Field(le=MAX_CHECKPOINTS)
    primitives: dict[Primitive, str]
    category_rules: dict[Category, str]

    @property
    def tag(self) -> str:
        """``name@version``, recorded with every checklist this card produced."""
        return f"{self.name}@{self.version}"

    def system(self, category: Category) -> str:
        """The system message for one task category."""
        text = (TEMPLATES / self.template).read_text(encoding="utf-8")
        listing = "\n".join(f"  - `{p.value}`: {d}" for p, d in self.primitives.items())
        return (
            Template(text)
            .substitute(
                primitives=listing,
                category_rule=self.category_rules[category],
                min_checks=self.min_checks,
                max_checks=self.max_checks,
            )
            .strip()
        )


@lru_cache(maxsize=1)
def load_card(path: Path = TEMPLATES / "checklist.toml") -> ChecklistCard:
    """The checklist card (read once)."""
    return ChecklistCard.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))


class GeneratedCheck(BaseModel):
    """One check as the model writes it."""

    id: str = Field(min_length=1, max_length=64)
    primitive: Primitive
    prompt_check: str = Field(min_length=3, max_length=MAX_CHECK_CHARS)
    image_check: str = Field(min_length=3, max_length=MAX_CHECK_CHARS)


class Dependency(BaseModel):
    """``child`` only makes sense when ``parent`` holds."""

    child: str
    parent: str


class GeneratedChecklist(BaseModel):
    """The model's answer; invalid structure is a validation error (so the model is re-asked)."""

    checks: list[GeneratedCheck] = Field(min_length=1, max_length=MAX_CHECKPOINTS)
    depends_on: list[Dependency] = Field(default_factory=list)

    @model_validator(mode="after")
    def _structure(self) -> GeneratedChecklist:
        ids = [c.id for c in self.checks]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"check ids must be unique; repeated: {dup}")
        parents: dict[str, str | None] = dict.fromkeys(ids)
        for dep in self.depends_on:
            if dep.child not in parents:
                raise ValueError(f"depends_on names {dep.child!r}, which is not a check id")
            if parents[dep.child] is not None:
                raise ValueError(f"check {dep.child!r} has more than one parent; keep one")
            parents[dep.child] = dep.parent
        problem = dependency_problem(parents)
        if problem:
            raise ValueError(problem)
        return self

    def checkpoints(self) -> list[Checkpoint]:
        """The checks as task checkpoints, renumbered ``c1``, ``c2``, … in order."""
        new = {c.id: f"c{k}" for k, c in enumerate(self.checks, start=1)}
        parent = {d.child: new[d.parent] for d in self.depends_on}
        return [
            Checkpoint(
                id=new[c.id],
                primitive=c.primitive,
                prompt_check=c.prompt_check,
                image_check=c.image_check,
                parent=parent.get(c.id),
            )
            for c in self.checks
        ]


class GeneratedImitationChecklist(GeneratedChecklist):
    """For IM tasks: only primitives a picture can show."""

    @model_validator(mode="after")
    def _observable(self) -> GeneratedImitationChecklist:
        bad = sorted({c.primitive.value for c in self.checks if c.primitive in NOT_OBSERVABLE})
        if bad:
            raise ValueError(
                f"an imitation task's checks come from the image, which cannot show {bad}; "
                "relabel or drop those checks"
            )
        return self


@dataclass
class Generated:
    """A checklist, or why there is none."""

    checklist: list[Checkpoint] | None = None
    error: str | None = None


def build_messages(task: SuiteTask, base_dir: Path, card: ChecklistCard) -> list[dict]:
    """Trusted instructions in the system message; the brief only inside a data block."""
    cat = task.category
    parts = [
        text_part(f"Task category: {cat.value} ({CATEGORY_NAMES[cat.value]})."),
        text_part(data_block("TASK BRIEF", task.brief)),
    ]
    target = resolve_target(task, base_dir)
    if target is not None:
        parts.append(text_part("Target image (the checks describe what it shows):"))
        parts.append(image_part(load_image(str(target), field="target_image")))
    if task.tags.primitives:
        named = ", ".join(p.value for p in task.tags.primitives)
        parts.append(text_part(f"The task was written to exercise these primitives: {named}."))
    parts.append(text_part("Write the checklist for this task."))
    return messages(card.system(cat), parts)


async def generate_checklist(
    task: SuiteTask, base_dir: Path, client: ModelClient, card: ChecklistCard | None = None
) -> Generated:
    """Ask ``client`` for a checklist for ``task``; an error (never an exception) on failure."""
    card = card or load_card()
    schema = GeneratedImitationChecklist if task.category == Category.IM else GeneratedChecklist
    try:
        msgs = build_messages(task, base_dir, card)
        answer = await client.structured(msgs, schema, tag=card.tag)
    except InputError as exc:
        return Generated(error=f"cannot send the target image: {exc}")
    except ModelCallError as exc:
        return Generated(error=f"no usable checklist from {client.model}: {exc}")
    checks = answer.checkpoints()
    if len(checks) > card.max_checks:  # the minimum is advice to the model, not a rule
        return Generated(
            error=f"the model wrote {len(checks)} checks; {card.tag} allows at most "
            f"{card.max_checks}"
        )
    try:  # the task's own rules (lengths, ids, parents) decide, as for hand-written ones
        data = task.model_dump(exclude={"checklist"})
        SuiteTask.model_validate({**data, "checklist": [c.model_dump() for c in checks]})
    except ValidationError as exc:
        return Generated(error=f"the generated checklist is not a valid task checklist: {exc}")
    return Generated(checklist=checks)
