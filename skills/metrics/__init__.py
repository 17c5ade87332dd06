"""Model-free shift metrics for image edits (docs/design.md#edit-submission-and-result).

``color_shift`` (CIELAB sliced Wasserstein, ΔE units), ``structure_distance`` (deep patch
self-similarity), ``face_identity`` (dlib descriptors, best cosine) and ``text_rendering``
(OCR character accuracy), each with rule-based applicability from the instruction, plus
heuristic local estimates of image consistency and visual quality
(:mod:`skills.metrics.estimates`). A new metric is one module with a
:class:`~skills.metrics.registry.Metric` subclass, registered in
:data:`~skills.metrics.registry.METRICS` (a plugin: an entry point in ``t2i_judge.metrics``).

Example::

    from skills.metrics import compute_all
    values = compute_all(source_img, edited_img, 'Add a sign that says "OPEN".')
    values["text_rendering"].value   # character accuracy 0–1
"""

from __future__ import annotations

from skills.metrics.compute import compute_all
from skills.metrics.registry import (
    METRICS,
    Metric,
    MetricOptions,
    get_metric,
    metric_names,
    register,
)
from skills.metrics.types import ImagePair, MetricValue

__all__ = [
    "METRICS",
    "ImagePair",
    "Metric",
    "MetricOptions",
    "MetricValue",
    "compute_all",
    "get_metric",
    "metric_names",
    "register",
]
