"""Weight-free traces a camera leaves in a photograph, read at the image's native resolution.

A photograph passes through a sensor (noise whose strength grows with brightness, a colour
filter array that makes neighbouring pixels share information, noise shared across the colour
channels after demosaicing) and usually a JPEG encoder (an 8×8 block grid). A generated image
has none of that history, or a different one. These statistics describe the history without
deciding anything: whether they help a given dimension is left to the nested cross-validation
of :mod:`skills.local.predictor` (the ``camera`` member), never to a fixed rule.

Features (see :data:`CAMERA_NAMES`): residual noise level and its kurtosis, cross-channel
correlations of the residual, the 2×2 colour-filter phase contrast, the power at the Nyquist
frequency, the 8×8 grid strength horizontally and vertically, and the slope of noise against
brightness.

Example:
    >>> from PIL import Image
    >>> camera_features(Image.new("RGB", (64, 64), "gray")).shape == (len(CAMERA_NAMES),)
    True
"""

from __future__ import annotations

import numpy as np
from PIL import Image
from scipy import ndimage

CAMERA_VERSION = "c1"  # bump whenever the features change: it keys on-disk caches
CROP = 512
CAMERA_NAMES = (
    "cam_log_noise",
    "cam_kurtosis",
    "cam_corr_rg",
    "cam_corr_gb",
    "cam_cfa_phase",
    "cam_nyquist",
    "cam_grid_h",
    "cam_grid_v",
    "cam_noise_slope",
)


def _crop(img: Image.Image) -> np.ndarray:
    """A centre crop of at most :data:`CROP` pixels a side, at native resolution, its corner
    on the 8-pixel grid of the full image (so a JPEG block grid stays aligned)."""
    rgb = np.asarray(img.convert("RGB"), dtype=np.float32) / 255
    h, w = rgb.shape[:2]
    ch, cw = min(h, CROP), min(w, CROP)
    y0, x0 = ((h - ch) // 2) // 8 * 8, ((w - cw) // 2) // 8 * 8
    return rgb[y0 : y0 + ch, x0 : x0 + cw]


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.ravel() - a.mean(), b.ravel() - b.mean()
    den = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / den) if den > 0 else 0.0


def _grid(gray: np.ndarray, axis: int) -> float:
    """Mean absolute step across 8-pixel block borders relative to the mean step elsewhere
    (log; 0 = no grid)."""
    d = np.abs(np.diff(gray, axis=axis))
    if d.shape[axis] < 16:
        return 0.0
    idx = np.arange(d.shape[axis])
    border = np.take(d, idx[idx % 8 == 7], axis=axis).mean()
    inner = np.take(d, idx[idx % 8 != 7], axis=axis).mean()
    return float(np.log((border + 1e-6) / (inner + 1e-6)))


def _noise_slope(gray: np.ndarray, res: np.ndarray, block: int = 8) -> float:
    """Slope of the residual's standard deviation against brightness over the flattest half
    of the 8×8 blocks (sensor shot noise grows with the light collected)."""
    h, w = (gray.shape[0] // block) * block, (gray.shape[1] // block) * block
    if h < 2 * block or w < 2 * block:
        return 0.0
    shape = (h // block, block, w // block, block)
    mean = gray[:h, :w].reshape(shape).mean((1, 3)).ravel()
    sd = res[:h, :w].reshape(shape).std((1, 3)).ravel()
    texture = np.abs(np.diff(gray[:h, :w], axis=1))[:, : w - 1]
    tex = np.pad(texture, ((0, 0), (0, 1))).reshape(shape).mean((1, 3)).ravel()
    flat = tex <= np.median(tex)
    if flat.sum() < 4 or np.std(mean[flat]) < 1e-6:
        return 0.0
    return float(np.polyfit(mean[flat], sd[flat], 1)[0])


def camera_features(img: Image.Image) -> np.ndarray:
    """A fixed-length float vector (see :data:`CAMERA_NAMES`)."""
    rgb = _crop(img).astype(np.float64)
    res = np.stack([c - ndimage.median_filter(c, size=3) for c in rgb.transpose(2, 0, 1)])
    gray = rgb @ np.array([0.299, 0.587, 0.114])
    rg = gray - ndimage.median_filter(gray, size=3)
    mad = float(np.median(np.abs(rg - np.median(rg)))) * 1.4826
    sd = float(rg.std())
    kurt = float(((rg - rg.mean()) ** 4).mean() / sd**4) if sd > 0 else 0.0
    g = res[1]
    phases = [g[i::2, j::2].var() for i in (0, 1) for j in (0, 1)]
    cfa = float(np.log((max(phases) + 1e-9) / (min(phases) + 1e-9)))
    power = np.abs(np.fft.fft2(g - g.mean())) ** 2
    ny, nx = power.shape
    nyq = np.concatenate([power[ny // 2, :], power[:, nx // 2]]).mean() if min(ny, nx) > 1 else 0
    nyquist = float(np.log((nyq + 1e-12) / (power.mean() + 1e-12)))
    return np.array(
        [
            np.log(mad + 1e-6),
            np.log(kurt + 1e-6),
            _corr(res[0], res[1]),
            _corr(res[1], res[2]),
            cfa,
            nyquist,
            _grid(gray, 1),
            _grid(gray, 0),
            _noise_slope(gray, rg),
        ],
        dtype=np.float32,
    )
