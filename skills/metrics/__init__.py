"""Model-free shift metrics for image edits (docs/design.md#edit-submission-and-result).

``color_shift`` (CIELAB sliced Wasserstein, ΔE units), ``structure_distance`` (deep patch
self-similarity), ``face_identity`` (dlib descriptors, best cosine) and ``text_rendering``
(OCR character accuracy), each with rule-based applicability from the instruction, plus
heuristic local estimates of image consistency and visual quality
(:mod:`skills.metrics.estimates`). A new metric is one module registering a
:class:`~skills.metrics.registry.Metric` subclass, imported below.

Example::

    from skills.metrics import compute_all
    values = compute_all(source_img, edited_img, 'Add a sign that says "OPEN".')
    values["text_rendering"].value   # character accuracy 0–1
"""

from __future__ import annotations

from skills.metrics import color_shift, face_identity, structure_distance, text_rendering
from skills.metrics.compute import compute_all
from skills.metrics.registry import Metric, MetricOptions, get_metric, metric_names, register
from skills.metrics.types import ImagePair, MetricValue

__all__ = [
    "ImagePair",
    "Metric",
    "MetricOptions",
    "MetricValue",
    "color_shift",
    "compute_all",
    "face_identity",
    "get_metric",
    "metric_names",
    "register",
    "structure_distance",
    "text_rendering",
]
