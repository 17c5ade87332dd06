"""Units of work the router fans out, and what comes back from them.

Example:
    >>> item = WorkItem(key="image_check/img0/c1", skill="image_check", modality="image",
    ...                 image=0, checks=("c1",), views=(("image", "images[0]"),))
    >>> item.is_image_side, item.view_map
    (True, {'image': 'images[0]'})
"""

from __future__ import annotations

from dataclasses import dataclass, field

from judge.confidence.ballot import Ballot
from skills.types import SafetyValue, SkillOutput


@dataclass(frozen=True)
class WorkItem:
    """One skill invocation: a card, the views it sees by role, maybe checkpoint ids.

    ``views`` maps the roles the skill knows (``image``, ``first``, ``second``, …) to the
    request's view names (``images[0]``, ``a``, ``b``, …). ``image`` is the index of the
    candidate image a ``score`` item belongs to (best-of-n bookkeeping); ``tags`` carry
    whatever else the mode's aggregator needs (e.g. which contender was shown first).
    """

    key: str
    skill: str
    modality: str
    image: int | None = None
    checks: tuple[str, ...] = ()
    views: tuple[tuple[str, str], ...] = ()
    tags: tuple[tuple[str, str], ...] = ()

    @property
    def is_image_side(self) -> bool:
        """True when the item looks at a generated image."""
        return self.image is not None

    @property
    def view_map(self) -> dict[str, str]:
        """``views`` as a dict (role → view name)."""
        return dict(self.views)

    @property
    def tag_map(self) -> dict[str, str]:
        """``tags`` as a dict."""
        return dict(self.tags)


@dataclass
class WorkOutcome:
    """The (panel-combined) output of one work item."""

    item: WorkItem
    output: SkillOutput
    votes_scores: dict[str, dict[str, int | float | None]] = field(default_factory=dict)
    votes_verdicts: dict[str, dict[str, bool | None]] = field(default_factory=dict)
    votes_choices: dict[str, dict[str, str | None]] = field(default_factory=dict)
    agreement: dict[str, float] = field(default_factory=dict)
    ballots: dict[str, Ballot] = field(default_factory=dict)
    """per key, the votes a confidence method collected (empty without one)"""


@dataclass
class SafetyOutcome:
    """The safety gate's verdicts by target label (``prompt``, ``images[0]``, ``a``, …)."""

    verdicts: dict[str, SafetyValue] = field(default_factory=dict)
    skills: dict[str, str] = field(default_factory=dict)

    @property
    def prompt(self) -> SafetyValue | None:
        """The prompt filter's verdict, if the prompt was screened."""
        return self.verdicts.get("prompt")

    def others(self) -> list[tuple[str, SafetyValue]]:
        """Every non-prompt target with its verdict, in screening order."""
        return [(k, v) for k, v in self.verdicts.items() if k != "prompt"]

    @property
    def blocked_by(self) -> str | None:
        """The label of the first flagged target (prompt first), else None."""
        for label, v in self.verdicts.items():
            if v.passed is False:
                return label
        return None

    @property
    def undecided(self) -> bool:
        """True when some filter could not decide."""
        return any(v.passed is None for v in self.verdicts.values())
