"""The value every shift metric returns, and the prepared image pair metrics read.

Example:
    >>> MetricValue.not_applicable("no face in the source image").as_dict()
    {'value': None, 'applicable': False, 'reason': 'no face in the source image', 'details': {}}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PIL import Image


@dataclass(frozen=True)
class MetricValue:
    """One metric's outcome: ``value`` is ``None`` exactly when there is nothing to report."""

    value: float | None
    applicable: bool = True
    reason: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def not_applicable(cls, reason: str, **details: Any) -> MetricValue:
        """A metric that does not apply to this edit, with the reason why."""
        return cls(value=None, applicable=False, reason=reason, details=dict(details))

    @classmethod
    def failed(cls, reason: str, **details: Any) -> MetricValue:
        """An applicable metric that could not be computed (``value`` is ``None``)."""
        return cls(value=None, applicable=True, reason=reason, details=dict(details))

    def as_dict(self) -> dict[str, Any]:
        """The JSON form used in edit results (docs/design.md#edit-submission-and-result)."""
        return {
            "value": self.value,
            "applicable": self.applicable,
            "reason": self.reason,
            "details": dict(self.details),
        }


@dataclass(frozen=True)
class ImagePair:
    """Source and edited image as RGB at one common working size, with notes on what was done.

    ``notes`` says every conversion or resize applied (different sizes, grayscale, alpha,
    downscaling) so a result can state how the inputs were handled.
    """

    source: Image.Image
    edited: Image.Image
    source_size: tuple[int, int]
    edited_size: tuple[int, int]
    source_mode: str
    edited_mode: str
    notes: tuple[str, ...] = ()

    @property
    def size(self) -> tuple[int, int]:
        """The common working size ``(width, height)``."""
        return self.source.size
