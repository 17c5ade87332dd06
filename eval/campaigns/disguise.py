"""A spoiled validation image made to look, by the numbers, like the image it spoils: its
grey-level distribution and colourfulness are the original's (so its brightness, contrast
and grey-level entropy too), each moved within :data:`JITTER` either way by a coin flip, and
its fine detail and stored size (which follows the detail) land near the original's. So
no single pixel statistic, nor the file size, says which side of a validation task is the
spoiled one.

A spoiled image that stores too large is blurred, one too small gets fine grain, by the
amount a bisection finds (on crops); each candidate's grey levels are mapped onto the
original's (quantile to quantile) and its chroma scaled to the original's, then brightness, contrast
and colourfulness jittered.

Example:
    >>> rng = np.random.default_rng(0)
    >>> ramp = np.linspace(40, 200, 64)[None, :, None] + rng.normal(0, 6, (48, 64, 3))
    >>> img = Image.fromarray(np.clip(ramp, 0, 255).astype(np.uint8), "RGB")
    >>> out = disguised(img.filter(ImageFilter.GaussianBlur(4)), img, 3)  # a blurred copy
    >>> abs(detail(out) / detail(img) - 1) <= JITTER + 0.05
    True
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PIL import Image, ImageFilter

JITTER = 0.12
"""How far each statistic lands from the original's, either way."""
_STEPS = 9  # bisection steps of the detail search
WORKING_SIDE = 512
"""The longest side of the copies the blur or grain amount is searched on."""


def _grey(x: np.ndarray) -> np.ndarray:
    return x.mean(axis=2)


def detail(img: Image.Image) -> float:
    """Mean absolute difference between neighbouring pixels (grey levels)."""
    g = _grey(np.asarray(img.convert("RGB"), dtype=float))
    return float(np.abs(np.diff(g, axis=0)).mean() + np.abs(np.diff(g, axis=1)).mean())


def _matched(out: np.ndarray, src: np.ndarray) -> np.ndarray:
    """``out`` with ``src``'s grey-level distribution (quantile to quantile over 1,024
    levels: linear time at any size) and ``src``'s mean colourfulness (chroma scaled around
    the grey)."""
    grey_o, grey_s = src.mean(axis=2), out.mean(axis=2)
    bins_s = np.minimum((grey_s * 4).astype(np.int32), 1023)
    have = np.bincount(bins_s.ravel(), minlength=1024).cumsum()
    want = np.bincount(np.minimum((grey_o * 4).astype(np.int32), 1023).ravel(),
                       minlength=1024).cumsum()  # fmt: skip
    table = np.interp(have / have[-1], want / want[-1], np.arange(1024) / 4)
    grey = table[bins_s]
    chroma = out - grey_s[..., None]
    col_o, col_s = np.abs(src - grey_o[..., None]).mean(), np.abs(chroma).mean()
    return np.clip(grey[..., None] + chroma * (col_o / col_s if col_s > 1e-6 else 1.0), 0, 255)


def _levels(x: np.ndarray, jitter: np.ndarray) -> np.ndarray:
    """Brightness, contrast and colourfulness of ``x`` times ``jitter`` (grey level around
    its mean, chroma around the grey)."""
    grey = x.mean(axis=2, keepdims=True)
    mean = float(grey.mean())
    level = (grey - mean) * jitter[1] + mean * jitter[0]
    return np.clip(level + (x - grey) * jitter[2], 0, 255)


def disguised(
    spoiled: Image.Image,
    original: Image.Image,
    seed: int,
    encode: Callable[[Image.Image], bytes] | None = None,
) -> Image.Image:
    """``spoiled`` with ``original``'s statistics, each within :data:`JITTER` either way:
    its grey-level distribution and colourfulness (hence brightness, contrast, entropy), then
    its fine detail and its size as ``encode`` stores it (both at once: their geometric
    mean lands within :data:`JITTER`; without ``encode``, the detail alone). The amount of
    blur or grain is searched on full-resolution crops (:func:`_sample`, at most
    :data:`WORKING_SIDE` pixels on a side) and applied to the whole image (a search on the
    whole took tens of seconds a megapixel)."""
    rng = np.random.default_rng(seed)
    jitter = 1 + rng.uniform(-JITTER, JITTER, 4)
    base, src_img = spoiled.convert("RGB"), original.convert("RGB")
    work, work_src = _sample(base), _sample(src_img)

    def maker(img: Image.Image, src: Image.Image) -> Callable[[float], Image.Image]:
        pixels, target_px = np.asarray(img, dtype=float), np.asarray(src, dtype=float)
        grain = np.random.default_rng(seed).standard_normal((img.size[1], img.size[0], 1))

        def made(amount: float) -> Image.Image:
            """Blurred (``amount`` < 0: radius) or grained (> 0: strength), then given the
            original's distributions, jittered."""
            if amount < 0:
                x = np.asarray(img.filter(ImageFilter.GaussianBlur(-amount)), dtype=float)
            else:
                x = pixels + amount * grain
            return _image(_levels(_matched(np.clip(x, 0, 255), target_px), jitter))

        return made

    def measure(img: Image.Image) -> float:  # both grow with fine detail
        return detail(img) * (len(encode(img)) if encode else detail(img))

    made = maker(work, work_src)
    target = measure(work_src) * jitter[3] ** 2
    lo, hi = (-max(work.size) / 8, 0.0) if measure(made(0.0)) > target else (0.0, 80.0)
    for _ in range(_STEPS):  # both measures grow with the amount (less blur, more grain)
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if measure(made(mid)) > target else (mid, hi)
    amount = (lo + hi) / 2
    return made(amount) if work is base else maker(base, src_img)(amount)


def _sample(img: Image.Image) -> Image.Image:
    """``img`` itself when small, else four full-resolution crops of it (around the
    quarters' centres) side by side: fine detail and bytes a pixel are local, so the amount
    of blur or grain found on them holds for the whole image."""
    w, h = img.size
    if max(w, h) <= WORKING_SIDE:
        return img
    c = WORKING_SIDE // 2
    cw, ch = min(c, w // 2), min(c, h // 2)
    out = Image.new("RGB", (2 * cw, 2 * ch))
    for k, (fx, fy) in enumerate(((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75))):
        x, y = int(fx * w) - cw // 2, int(fy * h) - ch // 2
        out.paste(img.crop((x, y, x + cw, y + ch)), ((k % 2) * cw, (k // 2) * ch))
    return out


def _image(x: np.ndarray) -> Image.Image:
    return Image.fromarray(x.round().astype(np.uint8), "RGB")
