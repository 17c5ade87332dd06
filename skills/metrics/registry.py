"""The metric registry: a new shift metric is one module with one registered class.

:data:`METRICS` holds the classes by name: the built-ins as lazy ``"module:Class"`` entries
(imported when a metric is first asked for), a class decorated with :func:`register` at run
time, and a plugin's through an entry point in ``t2i_judge.metrics`` naming its class
(docs/extending.md).

A metric has a ``name`` (the key in results), a ``direction`` (what a larger value means),
rule-based :meth:`Metric.applicability` from the instruction text and :meth:`Metric.compute`
on a prepared :class:`~skills.metrics.types.ImagePair`.

Example:
    >>> from skills.metrics import metric_names
    >>> metric_names()
    ['color_shift', 'structure_distance', 'face_identity', 'text_rendering']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from registry import Registry
from skills.metrics.applicability import rule_applies
from skills.metrics.types import ImagePair, MetricValue


@dataclass(frozen=True)
class MetricOptions:
    """Options shared by all metrics.

    ``dinov2``: a local DINOv2 folder (or cached hub id) for ``structure_distance``; without it
    the packaged EfficientNet-Lite0 features are used.
    """

    dinov2: str | None = None


class Metric:
    """Base class of a shift metric (subclass, set the class attributes, register)."""

    name: ClassVar[str]
    direction: ClassVar[str]
    # position in results (the built-ins in the order of docs/design.md#edit-submission-and-result)
    order: ClassVar[int] = 100

    def applicability(self, instruction: str) -> tuple[bool, str | None, dict[str, Any]]:
        """Whether the metric applies to ``instruction``: ``(applies, reason, facts)``. By
        default the not-applicable rules of the metric's section of ``rules.toml``
        (:func:`~skills.metrics.applicability.rule_applies`; a metric without one always
        applies).

        ``facts`` carries what the rules found (e.g. the requested text) for :meth:`compute`.
        """
        ok, reason = rule_applies(self.name, instruction)
        return ok, reason, {}

    def compute(
        self, pair: ImagePair, options: MetricOptions, facts: dict[str, Any]
    ) -> MetricValue:
        """The metric on a prepared pair."""
        raise NotImplementedError


METRICS = Registry[type[Metric]](
    "metric",
    group="t2i_judge.metrics",
    lazy={
        "color_shift": "skills.metrics.color_shift:ColorShift",
        "structure_distance": "skills.metrics.structure_distance:StructureDistance",
        "face_identity": "skills.metrics.face_identity:FaceIdentity",
        "text_rendering": "skills.metrics.text_rendering:TextRendering",
    },
)
_INSTANCES: dict[str, Metric] = {}
M = TypeVar("M", bound=type[Metric])


def register(cls: M) -> M:
    """Class decorator: add a metric to the registry (one instance per process)."""
    if cls.name in METRICS:
        raise ValueError(f"metric {cls.name!r} is registered twice")
    METRICS.add(cls.name, cls)
    return cls


def get_metric(name: str) -> Metric:
    """The registered metric called ``name`` (one instance per process); an unknown name is
    a :class:`registry.UnknownName` with the closest names."""
    cls = METRICS.get(name)
    if not isinstance(_INSTANCES.get(name), cls):
        _INSTANCES[name] = cls()
    return _INSTANCES[name]


def metric_names() -> list[str]:
    """Registered metric names by ``order``, then registration order."""
    ranked = sorted(enumerate(METRICS.items()), key=lambda ic: (ic[1][1].order, ic[0]))
    return [name for _, (name, _) in ranked]
