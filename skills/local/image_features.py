"""Image-quality features that need no model weights.

Sharpness (Laplacian), edge strength and density, frequency content (a radial power
spectrum at the working size and at native resolution, which exposes upscaling), noise,
exposure and clipping, contrast, colourfulness, saturation, luminance entropy, 8×8
blockiness (compression), the pixel count, and two classic no-reference quality models
whose packages ship their parameters (BRISQUE and NIQE, see :mod:`skills.local.nr_quality`).

Example:
    >>> from PIL import Image
    >>> f = image_features(Image.new("RGB", (64, 64), "gray"))
    >>> f.shape == (len(FEATURE_NAMES),)
    True
"""

from __future__ import annotations

import numpy as np
from PIL import Image
from scipy import ndimage

from skills.local.nr_quality import quality_scores

WORK = 512
BANDS = 16
VERSION = "f2"  # bump whenever the features change: it keys on-disk caches
_SCALAR = [
    "log_lap_var",
    "edge_mean",
    "edge_density",
    "hf_ratio",
    "mf_ratio",
    "log_noise",
    "colourfulness",
    "sat_mean",
    "sat_std",
    "brightness",
    "contrast",
    "entropy",
    "blockiness",
    "clip_dark",
    "clip_bright",
    "log_pixels",
]
FEATURE_NAMES = (
    _SCALAR
    + [f"spec_work_{i}" for i in range(BANDS)]
    + [f"spec_native_{i}" for i in range(BANDS)]
    + ["brisque", "niqe"]
)


def _spectrum(gray: np.ndarray) -> np.ndarray:
    n = min(gray.shape)
    g = gray[:n, :n] - gray[:n, :n].mean()
    win = np.hanning(n)[:, None] * np.hanning(n)[None, :]
    power = np.abs(np.fft.fftshift(np.fft.fft2(g * win))) ** 2
    yy, xx = np.mgrid[0:n, 0:n] - n // 2
    radius = np.hypot(yy, xx) / (n / 2)
    edges = np.linspace(0, 1, BANDS + 1)
    energy = np.array(
        [power[(radius >= edges[i]) & (radius < edges[i + 1])].mean() for i in range(BANDS)]
    )
    return np.log(energy + 1e-12) - np.log(energy[0] + 1e-12)


def _native_crop(img: Image.Image, size: int = WORK) -> np.ndarray:
    g = np.asarray(img.convert("L"), dtype=np.float32) / 255
    h, w = g.shape
    c = min(h, w, size)
    y0, x0 = (h - c) // 2, (w - c) // 2
    return g[y0 : y0 + c, x0 : x0 + c]


def image_features(img: Image.Image, classic: bool = True) -> np.ndarray:
    """A fixed-length float vector (see :data:`FEATURE_NAMES`); ``classic=False`` leaves out
    the two slower model scores (BRISQUE, NIQE: about 2 s per 1024-px image) at the end."""
    w, h = img.size
    rgb = (
        np.asarray(
            img.convert("RGB").resize((WORK, WORK), Image.Resampling.BILINEAR), dtype=np.float32
        )
        / 255
    )
    g = rgb @ np.array([0.299, 0.587, 0.114], dtype=np.float32)
    lap = ndimage.laplace(g)
    mag = np.hypot(ndimage.sobel(g, 0), ndimage.sobel(g, 1))
    power = np.abs(np.fft.fft2(g - g.mean()))
    fy, fx = np.meshgrid(np.fft.fftfreq(WORK), np.fft.fftfreq(WORK), indexing="ij")
    radius = np.hypot(fy, fx) / 0.5
    total = power.sum() + 1e-9
    hp = g - ndimage.gaussian_filter(g, 1.0)
    noise = np.median(np.abs(hp - np.median(hp))) * 1.4826
    r, gr, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    rg, yb = r - gr, 0.5 * (r + gr) - b
    colourful = np.hypot(rg.std(), yb.std()) + 0.3 * np.hypot(rg.mean(), yb.mean())
    mx, mn = rgb.max(-1), rgb.min(-1)
    sat = (mx - mn) / (mx + 1e-6)
    hist = np.histogram(g, bins=64, range=(0, 1))[0] / g.size
    entropy = -(hist[hist > 0] * np.log2(hist[hist > 0])).sum()
    d = np.abs(np.diff(g, axis=1))
    scalars = [
        np.log(lap.var() + 1e-9),
        mag.mean(),
        (mag > 0.1).mean(),
        power[radius > 0.5].sum() / total,
        power[(radius > 0.125) & (radius <= 0.5)].sum() / total,
        np.log(noise + 1e-6),
        colourful,
        sat.mean(),
        sat.std(),
        g.mean(),
        g.std(),
        entropy,
        d[:, 7::8].mean() / (d.mean() + 1e-9),
        (g < 0.02).mean(),
        (g > 0.98).mean(),
        np.log(float(w * h)),
    ]
    return np.concatenate(
        [
            np.asarray(scalars, dtype=np.float64),
            _spectrum(g),
            _spectrum(_native_crop(img)),
            np.asarray(quality_scores(img) if classic else (), dtype=np.float64),
        ]
    ).astype(np.float32)
