"""A small labelled image set whose labels are known by construction, for trying
``judge meta-eval`` on "your own" CSV without any data of your own.

Eight photographs that ship with scikit-image are each saved at five quality levels: level 5 is
the picture itself, and each lower level adds more blur, sensor-like noise and JPEG
compression. The label ``quality`` is that level (1–5); ``source`` names the photograph, so
leave-one-group-out cross-validation leaves all five versions of a photograph out together.

    python examples/own_labels/make_dataset.py OUT_DIR      # writes OUT_DIR/labels.csv + images

No network: the photographs are inside the scikit-image wheel.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter
from skimage import data

SOURCES = ("astronaut", "coffee", "chelsea", "rocket", "immunohistochemistry", "hubble_deep_field",
           "camera", "brick")
# level → (blur radius in px, noise standard deviation in 0..255, JPEG quality or None)
LEVELS = {5: (0.0, 0.0, None), 4: (0.8, 4.0, 70), 3: (1.6, 9.0, 40), 2: (2.6, 15.0, 22),
          1: (3.8, 24.0, 10)}
SIZE = 256


def photograph(name: str) -> Image.Image:
    """One of scikit-image's bundled photographs as an RGB square of SIZE pixels."""
    img = Image.fromarray(getattr(data, name)()).convert("RGB")
    side = min(img.size)
    left, top = (img.width - side) // 2, (img.height - side) // 2
    return img.crop((left, top, left + side, top + side)).resize((SIZE, SIZE), Image.LANCZOS)


def degrade(img: Image.Image, level: int, seed: int) -> Image.Image:
    """The picture at a quality level: blur, then noise, then JPEG round trip."""
    radius, noise, jpeg = LEVELS[level]
    out = img.filter(ImageFilter.GaussianBlur(radius)) if radius else img
    if noise:
        arr = np.asarray(out, dtype=np.float32)
        arr += np.random.default_rng(seed).normal(0.0, noise, arr.shape)
        out = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    if jpeg is not None:
        buf = io.BytesIO()
        out.save(buf, format="JPEG", quality=jpeg)
        out = Image.open(io.BytesIO(buf.getvalue())).convert("RGB")
    return out


def build(out: Path, sources: tuple[str, ...] = SOURCES) -> Path:
    """Write the images and ``labels.csv`` (file, source, quality) into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for s, name in enumerate(sources):
        base = photograph(name)
        for level in LEVELS:
            file = f"{name}-q{level}.png"
            degrade(base, level, seed=100 * s + level).save(out / file)
            rows.append({"file": file, "source": name, "quality": level})
    path = out / "labels.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["file", "source", "quality"])
        writer.writeheader()
        writer.writerows(rows)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python examples/own_labels/make_dataset.py OUT_DIR")
    print(build(Path(sys.argv[1])))
