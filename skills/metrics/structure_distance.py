"""``structure_distance``: change of the patch self-similarity (Gram) matrix.

For each image the patch features (:mod:`skills.metrics.structure_features`: DINOv2 keys
when a local model is given, else packaged EfficientNet-Lite0 maps) are L2-normalised per
patch and their cosine self-similarity matrix ``S`` (patches × patches) is formed. The
value is the root-mean-square entry of ``S_source − S_edited`` — the Frobenius norm used by
Tumanyan et al. and ECHO, divided by the number of patches so it does not depend on the
grid size. Range 0–2, larger = more structural change. With the packaged encoder (measured
on scikit-image's photos): re-encodes ≈ 0.01, few-pixel crops ≈ 0.03–0.04, a pasted patch
≈ 0.08, a different scene ≥ 0.2. Both images are resized to the encoder's square input,
so the same stretch applies to both.

Not applicable when the instruction asks to change the layout, viewpoint or framing, or
for a new scene (rules in ``rules.toml``).

Example:
    >>> import numpy as np
    >>> f = np.random.default_rng(0).normal(size=(2, 9, 4))
    >>> gram_distance(f[0], f[0])
    0.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from skills.metrics.registry import Metric, MetricOptions
from skills.metrics.structure_features import encoder_id, patch_features
from skills.metrics.types import ImagePair, MetricValue


def self_similarity(features: np.ndarray) -> np.ndarray:
    """Cosine similarity between all patch features, ``(n, n)``."""
    f = features.astype(np.float64)
    f = f / (np.linalg.norm(f, axis=1, keepdims=True) + 1e-8)
    return f @ f.T


def gram_distance(a: np.ndarray, b: np.ndarray) -> float:
    """RMS difference of the self-similarity matrices of two patch-feature sets."""
    diff = self_similarity(a) - self_similarity(b)
    return float(np.sqrt(np.mean(diff**2)))


class StructureDistance(Metric):
    """Distance between self-similarity matrices of deep patch features."""

    name = "structure_distance"
    direction = "≥ 0 (at most 2), larger = more structural change"
    order = 2

    def compute(
        self, pair: ImagePair, options: MetricOptions, facts: dict[str, Any]
    ) -> MetricValue:
        feats = patch_features([pair.source, pair.edited], options.dinov2)
        return MetricValue(
            value=round(gram_distance(feats[0], feats[1]), 4),
            details={
                "encoder": encoder_id(options.dinov2),
                "patches": int(feats.shape[1]),
                "distance": "RMS of the cosine self-similarity difference",
            },
        )
