"""Built-in demo editors: deterministic PIL operations for offline runs, docs and tests.
They are NOT models, and what they do to an image says nothing about any real editor.

- ``builtin/editor`` reads the instruction for a few words and applies one fixed operation to
  a region (the mask's opaque-to-transparent area when a mask is given, else a centre box that
  moves a little with the image index): a colour word (``red``, ``blue``, ...) tints the
  region, ``remove``/``erase``/``delete`` blurs it away, ``brighter``/``darker`` changes the
  whole image's light, ``sketch``/``painting``/``style`` posterises it; any other instruction
  pastes a small card with its first words into the region.
- ``builtin/no-edit`` returns the source as it is (as PNG, unlabelled: it is the input
  picture, nobody's output): the baseline every editor should beat on instruction following
  (and none can beat on consistency).

``builtin/editor`` draws the band ``NOT A MODEL — demo editor`` along the bottom edge. The
same source, instruction, mask, seed and index give the same PNG bytes.

Example:
    >>> import io
    >>> from PIL import Image
    >>> buf = io.BytesIO(); Image.new("RGB", (96, 64), "white").save(buf, "PNG")
    >>> out = demo_edit(buf.getvalue(), "Make the wall blue.", None, seed=0, index=0)
    >>> Image.open(io.BytesIO(out)).size
    (96, 64)
    >>> out == demo_edit(buf.getvalue(), "Make the wall blue.", None, seed=0, index=0)
    True
"""

from __future__ import annotations

import hashlib
import io
import random
import re
from collections.abc import Callable
from functools import lru_cache

from PIL import Image, ImageDraw, ImageEnhance, ImageFilter, ImageFont, ImageOps

from eval.kit.in_process import add_in_process
from registry import Registry

LABEL = "NOT A MODEL — demo editor"
"""The text every built-in edit carries."""

Editor = Callable[[bytes, str, "bytes | None", int, int], bytes]
"""``(source PNG/JPEG bytes, instruction, mask bytes or None, seed, index) → PNG bytes``."""

COLOURS = {
    "red": (220, 40, 40), "blue": (40, 80, 220), "green": (40, 170, 70),
    "yellow": (240, 210, 40), "orange": (245, 140, 30), "purple": (140, 60, 180),
    "pink": (240, 130, 180), "black": (20, 20, 20), "white": (245, 245, 245),
    "brown": (120, 80, 40), "grey": (128, 128, 128), "gray": (128, 128, 128),
}  # fmt: skip
_WORDS = re.compile(r"[a-z]+")
_REMOVE = {"remove", "erase", "delete", "take", "without"}
_LIGHT = {"brighter": 1.5, "lighter": 1.5, "darker": 0.55, "night": 0.45, "dim": 0.6}
_STYLE = {"sketch", "painting", "cartoon", "style", "watercolour", "watercolor", "poster"}
MAX_SIDE = 2048
"""Sources are shrunk to this side first (the demo is about speed, not resolution)."""


def _rng(source: bytes, instruction: str, seed: int, index: int) -> random.Random:
    h = hashlib.sha256(source)
    h.update(f"\x00{seed}\x00{index}\x00{instruction}".encode())
    return random.Random(int.from_bytes(h.digest()[:8], "big"))


def _region(img: Image.Image, mask: bytes | None, rng: random.Random) -> Image.Image:
    """An ``L`` mask of the region to edit: white where the edit goes."""
    w, h = img.size
    if mask is not None:
        m = Image.open(io.BytesIO(mask))
        m.load()
        alpha = m.getchannel("A") if "A" in m.getbands() else ImageOps.invert(m.convert("L"))
        # OpenAI's convention: transparent areas of the mask are the ones to edit
        return ImageOps.invert(alpha.resize((w, h))).point(lambda v: 255 if v > 127 else 0)
    dx, dy = rng.randint(-w // 16, w // 16), rng.randint(-h // 16, h // 16)
    box = (w // 4 + dx, h // 4 + dy, w * 3 // 4 + dx, h * 3 // 4 + dy)
    region = Image.new("L", (w, h), 0)
    ImageDraw.Draw(region).ellipse(box, fill=255)
    return region


def _operate(
    img: Image.Image, words: list[str], region: Image.Image, instruction: str, rng: random.Random
) -> Image.Image:
    colour = next((COLOURS[w] for w in words if w in COLOURS), None)
    if any(w in _REMOVE for w in words):
        blurred = img.filter(ImageFilter.GaussianBlur(radius=max(4, min(img.size) // 12)))
        return Image.composite(blurred, img, region)
    if colour is not None:
        tint = Image.new("RGB", img.size, colour)
        return Image.composite(Image.blend(img, tint, 0.55), img, region)
    light = next((_LIGHT[w] for w in words if w in _LIGHT), None)
    if light is not None:
        return ImageEnhance.Brightness(img).enhance(light)
    if any(w in _STYLE for w in words):
        return ImageOps.posterize(img, 3).filter(ImageFilter.EDGE_ENHANCE_MORE)
    out = img.copy()
    bbox = region.getbbox() or (0, 0, *img.size)
    draw = ImageDraw.Draw(out)
    shade = tuple(rng.randint(170, 250) for _ in range(3))
    draw.rectangle(bbox, fill=shade, outline=(30, 30, 30))
    scale = max(8, (bbox[3] - bbox[1]) // 6)
    text = " ".join(instruction.split()[:4])[:40]
    draw.text(
        (bbox[0] + scale // 2, bbox[1] + scale // 2), text, fill=(0, 0, 0), font=_label_font(scale)
    )
    return out


@lru_cache(maxsize=16)
def _label_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _band(img: Image.Image) -> Image.Image:
    w, h = img.size
    scale = max(8, min(w, h) // 24)
    band = scale + scale // 2
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, h - band, w, h), fill=(0, 0, 0))
    head, _, tail = LABEL.partition(" — ")
    draw.text(
        (scale // 2, h - band + scale // 4),
        f"{head} - {tail}",
        fill=(255, 255, 0),
        font=_label_font(scale),
    )
    return img


def _open(source: bytes) -> Image.Image:
    opened = Image.open(io.BytesIO(source))
    opened.load()
    img = opened.convert("RGB")
    if max(img.size) > MAX_SIDE:
        img.thumbnail((MAX_SIDE, MAX_SIDE))
    return img


def _png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=1)
    return buf.getvalue()


def demo_edit(source: bytes, instruction: str, mask: bytes | None, seed: int, index: int) -> bytes:
    """``builtin/editor``: one keyword-driven operation on a region, then the label band."""
    img = _open(source)
    rng = _rng(source, instruction, seed, index)
    words = _WORDS.findall(instruction.lower())
    out = _operate(img, words, _region(img, mask, rng), instruction, rng)
    return _png(_band(out))


def no_edit(source: bytes, instruction: str, mask: bytes | None, seed: int, index: int) -> bytes:
    """``builtin/no-edit``: the source unchanged (re-encoded as PNG)."""
    return _png(_open(source))


EDITORS = Registry[Editor]("editor", group="t2i_judge.editors")
"""Editors that run in this process, by model string: the built-in ones (``builtin/…``), those
added with :func:`register_editor` and those plugins register in ``t2i_judge.editors``
(named ``<package>/<editor>``; docs/extending.md). Any other model goes to litellm."""
EDITORS.add("builtin/editor", demo_edit)
EDITORS.add("builtin/no-edit", no_edit)


def register_editor(model: str, editor: Editor) -> None:
    """Add an in-process editor (``model`` like ``builtin/<name>`` or ``<package>/<name>``)."""
    add_in_process(EDITORS, model, editor, "editor")
