"""``color_shift``: how far the colour distribution moved, in CIELAB ΔE units.

Space: CIELAB (D65), computed from sRGB at a working size of at most :data:`WORK` px on the
longer side (colour distributions do not need more). Distance: the sliced Wasserstein-1
(earth mover's) distance between the two images' pixel distributions in (L*, a*, b*): both
pixel clouds are projected on :data:`DIRECTIONS` fixed unit directions spread over the
sphere, each 1-D distance is the mean absolute difference of :data:`QUANTILES` matched
quantiles, and the mean over directions is divided by the mean |cosine| of the directions
with a translation, so that shifting every pixel by ΔE gives ≈ ΔE.

Scale and direction: ≥ 0, larger = more colour change, in ΔE*ab units (about 2 is the
just-noticeable difference). Re-encoding a photo gives well under 1; a visible yellow
tint or a hue rotation gives 5–30. Lightness is included, so over-exposure and darkening
count as colour shift, as users report them. ``details`` carries the chroma-only distance
(a*, b*) and the mean change per channel (``mean_delta``: +b* is yellower, +a* redder).

Not applicable when the instruction asks for a colour, style, lighting or season change
(rules in ``rules.toml``).

Example:
    >>> from PIL import Image
    >>> round(lab_distance(Image.new("RGB", (8, 8), "gray"), Image.new("RGB", (8, 8), "gray")), 3)
    0.0
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image

from skills.metrics.cache import memo
from skills.metrics.registry import Metric, MetricOptions
from skills.metrics.types import ImagePair, MetricValue

WORK = 128
DIRECTIONS = 32
DIRECTIONS_AB = 16
QUANTILES = 128
_WHITE = np.array([0.95047, 1.0, 1.08883])
_RGB_TO_XYZ = np.array(
    [
        [0.4124564, 0.3575761, 0.1804375],
        [0.2126729, 0.7151522, 0.0721750],
        [0.0193339, 0.1191920, 0.9503041],
    ]
)


def _directions(n: int) -> np.ndarray:
    """``n`` unit vectors on a Fibonacci half-sphere (deterministic)."""
    i = np.arange(n) + 0.5
    z = i / n  # z in (0, 1): a half-sphere suffices, opposite directions give the same 1-D W1
    r = np.sqrt(1 - z**2)
    phi = np.pi * (1 + 5**0.5) * i
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)


_DIRS = _directions(DIRECTIONS)
_ANGLES = np.linspace(0, np.pi, DIRECTIONS_AB, endpoint=False)
_DIRS_AB = np.stack([np.cos(_ANGLES), np.sin(_ANGLES)], axis=1)
# mean |u·t| over directions u for a unit translation t is 1/2 on the sphere, 2/pi on the circle
_SCALE_3D, _SCALE_2D = 0.5, 2 / np.pi


def srgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """sRGB values in [0, 1], shape ``(..., 3)``, to CIELAB (D65)."""
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = lin @ _RGB_TO_XYZ.T / _WHITE
    eps, kappa = 216 / 24389, 24389 / 27
    f = np.where(xyz > eps, np.cbrt(xyz), (kappa * xyz + 16) / 116)
    return np.stack(
        [116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])],
        axis=-1,
    )


def lab_pixels(image: Image.Image) -> np.ndarray:
    """The image's pixels in CIELAB, ``(n, 3)``, at the working size."""
    img = image.convert("RGB")
    if max(img.size) > WORK:
        img = img.copy()
        img.thumbnail((WORK, WORK), Image.Resampling.BOX)
    return srgb_to_lab(np.asarray(img, dtype=np.float64) / 255.0).reshape(-1, 3)


def sliced_w1(x: np.ndarray, y: np.ndarray, dirs: np.ndarray, scale: float) -> float:
    """Sliced Wasserstein-1 between point clouds ``x`` and ``y`` along ``dirs``."""
    q = (np.arange(QUANTILES) + 0.5) / QUANTILES
    # (directions, pixels) in float32: contiguous rows sort fast
    px = np.sort((dirs @ x.T).astype(np.float32), axis=1)
    py = np.sort((dirs @ y.T).astype(np.float32), axis=1)
    qx = px[:, (q * px.shape[1]).astype(int)]
    qy = py[:, (q * py.shape[1]).astype(int)]
    return float(np.abs(qx - qy).mean() / scale)


def lab_distance(a: Image.Image, b: Image.Image) -> float:
    """The colour shift between two images (ΔE units, see the module notes)."""
    return sliced_w1(lab_pixels(a), lab_pixels(b), _DIRS, _SCALE_3D)


class ColorShift(Metric):
    """Sliced Wasserstein distance of CIELAB pixel distributions (ΔE units)."""

    name = "color_shift"
    direction = "≥ 0, larger = more colour change (CIELAB ΔE units)"
    order = 1

    def compute(
        self, pair: ImagePair, options: MetricOptions, facts: dict[str, Any]
    ) -> MetricValue:
        src, edt = memo("lab", pair.source, lab_pixels), memo("lab", pair.edited, lab_pixels)
        value = sliced_w1(src, edt, _DIRS, _SCALE_3D)
        chroma = sliced_w1(src[:, 1:], edt[:, 1:], _DIRS_AB, _SCALE_2D)
        delta = edt.mean(axis=0) - src.mean(axis=0)
        return MetricValue(
            value=round(value, 4),
            details={
                "space": "CIELAB (D65)",
                "distance": "sliced Wasserstein-1, ΔE units",
                "chroma_only": round(chroma, 4),
                "mean_delta": {k: round(float(v), 3) for k, v in zip("Lab", delta, strict=True)},
                "working_size": WORK,
            },
        )
