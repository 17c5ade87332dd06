"""Input handling: RGB conversion, a bounded working size and a common size for both images.

* Alpha (RGBA, LA, palette with transparency) is composited over white.
* Grayscale and other modes are converted to RGB (a grayscale source stays gray in RGB).
* Images larger than :data:`MAX_SIDE` are downscaled first (area resampling), so a 6000 px
  photo costs no more than a 1024 px one.
* An edited image of another size is resized to the source's working size (bilinear); if
  the aspect ratios differ the edit is stretched, and the notes say so.

Example:
    >>> from PIL import Image
    >>> pair = prepare_pair(Image.new("L", (2048, 1024)), Image.new("RGBA", (300, 150)))
    >>> pair.size, pair.source.mode, pair.edited.mode
    ((1024, 512), 'RGB', 'RGB')
    >>> len(pair.notes)
    4
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from skills.metrics.types import ImagePair

MAX_SIDE = 1024
_ALPHA_MODES = {"RGBA", "LA", "PA", "RGBa", "La"}


def to_rgb(image: Image.Image, label: str, notes: list[str]) -> Image.Image:
    """``image`` as RGB, noting any conversion."""
    if not isinstance(image, Image.Image):
        raise TypeError(f"the {label} image must be a PIL.Image.Image, got {type(image).__name__}")
    if image.width < 1 or image.height < 1:
        raise ValueError(f"the {label} image is empty ({image.width}x{image.height})")
    mode = image.mode
    if mode == "RGB":
        return image
    has_alpha = mode in _ALPHA_MODES or (mode == "P" and "transparency" in image.info)
    if has_alpha:
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        notes.append(f"{label} image has transparency ({mode}): composited over white")
        return Image.alpha_composite(white, rgba).convert("RGB")
    if mode in {"L", "1", "I", "I;16", "F"}:
        notes.append(f"{label} image is grayscale ({mode}): converted to RGB")
        if mode in {"I", "I;16", "F"}:
            arr = np.asarray(image, dtype=np.float64)
            top = float(arr.max()) if arr.size else 0.0
            arr = arr * (255.0 / top) if top > 255 else arr
            image = Image.fromarray(arr.clip(0, 255).astype(np.uint8))
        return image.convert("RGB")
    notes.append(f"{label} image mode {mode} converted to RGB")
    return image.convert("RGB")


def bounded(image: Image.Image, label: str, max_side: int, notes: list[str]) -> Image.Image:
    """``image`` downscaled so its longer side is at most ``max_side``."""
    w, h = image.size
    if max(w, h) <= max_side:
        return image
    scale = max_side / max(w, h)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    notes.append(f"{label} image downscaled from {w}x{h} to {size[0]}x{size[1]}")
    return image.resize(size, Image.Resampling.BOX)


def prepare_pair(
    source: Image.Image, edited: Image.Image, *, max_side: int = MAX_SIDE
) -> ImagePair:
    """Both images as RGB at the source's bounded working size (see the module notes)."""
    notes: list[str] = []
    src = bounded(to_rgb(source, "source", notes), "source", max_side, notes)
    edt = to_rgb(edited, "edited", notes)
    if edt.size != src.size:
        ew, eh = edt.size
        sw, sh = src.size
        stretched = abs(ew / eh - sw / sh) > 0.01 * (sw / sh)
        notes.append(
            f"edited image resized from {ew}x{eh} to {sw}x{sh} to match the source"
            + (" (aspect ratios differ: stretched)" if stretched else "")
        )
        edt = edt.resize(
            src.size,
            Image.Resampling.BILINEAR if max(ew, eh) <= 2 * max(sw, sh) else Image.Resampling.BOX,
        )
    return ImagePair(
        source=src,
        edited=edt,
        source_size=source.size,
        edited_size=edited.size,
        source_mode=source.mode,
        edited_mode=edited.mode,
        notes=tuple(notes),
    )
