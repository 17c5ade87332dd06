"""Heuristic local estimates (1–5) for edits judged without a model (issue 10 item 4).

These are *local estimates*, not judgments: fixed formulas over the shift metrics and the
weight-free image-quality features of :mod:`skills.local.image_features`. Every estimate
says so (``local_estimate: True``) and carries its formula and inputs.

``image_consistency`` — each applicable metric becomes a penalty in [0, 1] by a linear
ramp between a "no visible change" and a "clearly changed" point (:data:`CONSISTENCY_RAMPS`):
colour shift 2 → 20 ΔE, structure distance 0.03 → 0.20, face identity cosine 0.96 → 0.88
(lower is worse). Score = 5 − 4 × max(penalties): one clearly broken aspect is enough to
make an edit inconsistent.

``visual_quality`` — penalties from the edit's features, relative to the source when one
is given (an edit should keep the source's quality): loss of sharpness (log Laplacian
variance drop 0.7 → 3.0), added noise (log noise rise 0.5 → 2.0), 8×8 blockiness 1.3 → 2.5,
and extra clipped pixels 0.05 → 0.30 of the image (without a source only blockiness and the
clipped fraction itself, 0.25 → 0.60, can be judged). Score = 5 − 4 × max(penalties).

``instruction_following`` — only for text edits: 1 + 4 × OCR character accuracy.

Example:
    >>> from skills.metrics.types import MetricValue
    >>> image_consistency_estimate({"color_shift": MetricValue(2.0)})["score"]
    5.0
    >>> image_consistency_estimate({"color_shift": MetricValue(20.0)})["score"]
    1.0
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from PIL import Image

from skills.metrics.types import MetricValue

# metric: (value with no penalty, value with full penalty); a lower "bad" means lower is worse
CONSISTENCY_RAMPS: dict[str, tuple[float, float]] = {
    "color_shift": (2.0, 20.0),
    "structure_distance": (0.03, 0.20),
    "face_identity": (0.96, 0.88),
}
QUALITY_RAMPS: dict[str, tuple[float, float]] = {
    "sharpness_loss": (0.7, 3.0),
    "noise_gain": (0.5, 2.0),
    "blockiness": (1.3, 2.5),
    "clipping_gain": (0.05, 0.30),
    "clipping": (0.25, 0.60),  # without a source: the clipped fraction itself
}
NOTE = "heuristic local estimate (no model): see the formula"


def ramp(value: float, good: float, bad: float) -> float:
    """0 at ``good``, 1 at ``bad``, linear between, clipped (works either direction)."""
    return float(np.clip((value - good) / (bad - good), 0.0, 1.0))


def _score(penalties: dict[str, float]) -> float:
    return round(5.0 - 4.0 * max(penalties.values()), 2)


def image_consistency_estimate(metrics: Mapping[str, MetricValue]) -> dict[str, Any]:
    """1–5 consistency from the applicable shift metrics (``score`` ``None`` if none)."""
    penalties = {
        name: round(ramp(m.value, *CONSISTENCY_RAMPS[name]), 3)
        for name, m in metrics.items()
        if name in CONSISTENCY_RAMPS and m.applicable and m.value is not None
    }
    out: dict[str, Any] = {
        "local_estimate": True,
        "note": NOTE,
        "formula": "5 - 4 * max(penalty); penalty = linear ramp of each metric",
        "ramps": {k: CONSISTENCY_RAMPS[k] for k in penalties},
        "penalties": penalties,
    }
    if not penalties:
        return {**out, "score": None, "reason": "no applicable shift metric to estimate from"}
    return {**out, "score": _score(penalties)}


def _features(image: Image.Image) -> dict[str, float]:
    from skills.local.image_features import FEATURE_NAMES, image_features

    values = image_features(image, classic=False)  # BRISQUE/NIQE are not used here
    return {name: float(v) for name, v in zip(FEATURE_NAMES, values, strict=False)}


def visual_quality_estimate(
    edited: Image.Image, source: Image.Image | None = None
) -> dict[str, Any]:
    """1–5 visual quality of ``edited`` from weight-free features (relative to ``source``)."""
    e = _features(edited)
    s = _features(source) if source is not None else None
    clipped = e["clip_dark"] + e["clip_bright"]
    raw = {"blockiness": e["blockiness"]}
    if s is None:
        raw["clipping"] = clipped
    else:
        raw["clipping_gain"] = clipped - s["clip_dark"] - s["clip_bright"]
        raw["sharpness_loss"] = s["log_lap_var"] - e["log_lap_var"]
        raw["noise_gain"] = e["log_noise"] - s["log_noise"]
    penalties = {k: round(ramp(v, *QUALITY_RAMPS[k]), 3) for k, v in raw.items()}
    return {
        "score": _score(penalties),
        "local_estimate": True,
        "note": NOTE,
        "formula": "5 - 4 * max(penalty); penalty = linear ramp of each feature",
        "relative_to_source": source is not None,
        "features": {k: round(v, 4) for k, v in raw.items()},
        "penalties": penalties,
    }


def instruction_following_estimate(metrics: Mapping[str, MetricValue]) -> dict[str, Any]:
    """1–5 instruction following, decidable locally only for text edits (OCR accuracy)."""
    text = metrics.get("text_rendering")
    if text is None or not text.applicable or text.value is None:
        return {
            "score": None,
            "local_estimate": True,
            "reason": "instruction following needs a model unless the edit asks for text",
        }
    return {
        "score": round(1.0 + 4.0 * text.value, 2),
        "local_estimate": True,
        "note": NOTE,
        "formula": "1 + 4 * text_rendering",
    }
