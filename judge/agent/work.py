"""Units of work the router fans out, and what comes back from them.

Example:
    >>> item = WorkItem(key="image_check/img0/c1", skill="image_check", modality="image",
    ...                 image=0, checks=("c1",))
    >>> item.is_image_side
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field

from skills.types import SafetyValue, SkillOutput


@dataclass(frozen=True)
class WorkItem:
    """One skill invocation: a card, a modality, maybe an image index and checkpoint ids."""

    key: str
    skill: str
    modality: str
    image: int | None = None
    checks: tuple[str, ...] = ()

    @property
    def is_image_side(self) -> bool:
        """True when the item looks at a generated image."""
        return self.image is not None


@dataclass
class WorkOutcome:
    """The (panel-combined) output of one work item."""

    item: WorkItem
    output: SkillOutput
    votes_scores: dict[str, dict[str, int | None]] = field(default_factory=dict)
    votes_verdicts: dict[str, dict[str, bool | None]] = field(default_factory=dict)
    agreement: dict[str, float] = field(default_factory=dict)


@dataclass
class SafetyOutcome:
    """The safety gate's verdicts: prompt, then one per image."""

    prompt: SafetyValue | None
    images: list[SafetyValue] = field(default_factory=list)
    skills: dict[str, str] = field(default_factory=dict)

    @property
    def blocked_by(self) -> str | None:
        """``"prompt"`` or ``"image[i]"`` for the first flagged target, else None."""
        if self.prompt is not None and self.prompt.passed is False:
            return "prompt"
        for i, v in enumerate(self.images):
            if v.passed is False:
                return f"image[{i}]"
        return None
