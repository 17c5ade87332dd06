"""Naming the colours of pixels, and the colour of an object inside its box.

The naming rule over HSV (hue in degrees, saturation and value in 0–1):

- value < 0.22 → black; saturation < 0.18 → white (value > 0.8) or grey;
- otherwise by hue: red < 15° or ≥ 345°, orange 15–40°, yellow 40–70°, green 70–165°,
  cyan 165–200°, blue 200–260°, purple 260–300°, pink 300–345°;
- warm hues (red/orange/yellow) that are dark (value < 0.55) are brown; a light, weakly
  saturated red (value > 0.75, saturation < 0.5) is pink.

An object's colour is the histogram of names over the central half of its box (width and
height), after dropping the names that dominate the image border (background-ish pixels)
unless that name is the one claimed. Names listed as neighbours in ``colour_words.json`` never
count against each other.

Example:
    >>> import numpy as np
    >>> name_pixels(np.array([[[220, 20, 30], [250, 250, 250]]], dtype=np.uint8)).tolist()
    [['red', 'white']]
"""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image

BORDER = 0.05  # share of the image's width/height read as its border
BACKGROUND_SHARE = 0.5  # a name this common on the border counts as background
SIDE = 256  # images are shrunk to at most this side before naming pixels


@lru_cache(maxsize=1)
def vocabulary() -> dict:
    """``{"words": {name: [word, ...]}, "neighbours": {name: [name, ...]}}``."""
    return json.loads((Path(__file__).with_name("colour_words.json")).read_text())


@lru_cache(maxsize=1)
def word_to_name() -> dict[str, str]:
    """Each colour word → its colour name (``"gray"`` → ``"grey"``)."""
    return {w: name for name, words in vocabulary()["words"].items() for w in words}


def related(a: str, b: str) -> bool:
    """Whether two names are the same or neighbours."""
    return a == b or b in vocabulary()["neighbours"].get(a, [])


def name_pixels(rgb: np.ndarray) -> np.ndarray:
    """The colour name of every pixel of an ``H×W×3`` uint8 RGB array."""
    x = rgb.astype(np.float32) / 255.0
    mx, mn = x.max(-1), x.min(-1)
    delta = mx - mn
    sat = np.where(mx > 0, delta / np.maximum(mx, 1e-6), 0.0)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    d = np.maximum(delta, 1e-6)
    hue = (
        np.where(mx == r, ((g - b) / d) % 6, np.where(mx == g, (b - r) / d + 2, (r - g) / d + 4))
        * 60.0
    )
    bins = np.array([15, 40, 70, 165, 200, 260, 300, 345])
    hues = np.array(["red", "orange", "yellow", "green", "cyan", "blue", "purple", "pink", "red"])
    names = hues[np.searchsorted(bins, hue, side="right")]
    warm = np.isin(names, ["red", "orange", "yellow"])
    names = np.where(warm & (mx < 0.55), "brown", names)
    names = np.where((names == "red") & (mx > 0.75) & (sat < 0.5), "pink", names)
    grey = np.where(mx > 0.8, "white", "grey")
    names = np.where(sat < 0.18, grey, names)
    return np.where(mx < 0.22, "black", names).astype("<U6")


def _small(image: Image.Image) -> np.ndarray:
    img = image.convert("RGB")
    if max(img.size) > SIDE:  # nearest neighbour: shrinking must not invent blended colours
        scale = SIDE / max(img.size)
        size = (max(1, round(img.width * scale)), max(1, round(img.height * scale)))
        img = img.resize(size, Image.Resampling.NEAREST)
    return np.asarray(img)


def shares(names: np.ndarray) -> dict[str, float]:
    """Share of each name, largest first."""
    counts = Counter(names.reshape(-1).tolist())
    total = sum(counts.values()) or 1
    return {k: v / total for k, v in counts.most_common()}


def background_names(image: Image.Image) -> set[str]:
    """Names covering at least half of the image's border strip."""
    names = name_pixels(_small(image))
    h, w = names.shape
    bh, bw = max(1, int(h * BORDER)), max(1, int(w * BORDER))
    ring = np.concatenate(
        [names[:bh].ravel(), names[-bh:].ravel(), names[:, :bw].ravel(), names[:, -bw:].ravel()]
    )
    return {k for k, v in shares(ring).items() if v >= BACKGROUND_SHARE}


def box_colours(image: Image.Image, box: tuple[float, float, float, float], claimed: str) -> dict:
    """Colour shares in the centre of ``box`` (fractions x0, y0, x1, y1), background dropped.

    Returns ``{"shares": {name: share}, "dropped": [names], "pixels": n}``.
    """
    w, h = image.size
    x0, y0, x1, y1 = box
    qx, qy = (x1 - x0) / 4, (y1 - y0) / 4
    crop = image.crop(
        (int((x0 + qx) * w), int((y0 + qy) * h), int((x1 - qx) * w) + 1, int((y1 - qy) * h) + 1)
    )
    names = name_pixels(_small(crop)).reshape(-1)
    dropped = sorted(n for n in background_names(image) if n != claimed)
    kept = names[~np.isin(names, dropped)] if dropped else names
    return {"shares": shares(kept), "dropped": dropped, "pixels": int(kept.size)}


def palette_shares(image: Image.Image) -> dict[str, float]:
    """Share of each colour name over the whole image."""
    return shares(name_pixels(_small(image)))
