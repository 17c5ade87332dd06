"""Built-in renderers: deterministic PIL drawings for demos and tests. They are NOT models.

``builtin/renderer`` draws the prompt's words on a coloured card with a few shapes, under a
band that reads ``NOT A MODEL — built-in renderer``. The same prompt, seed, size and image
index give the same PNG bytes; each index gets its own colours and shapes, so a best-of-n
selection has different candidates. No network, no key, a few milliseconds per image.

Example:
    >>> a = render_card("a red cube", seed=1, index=0, size=(128, 128))
    >>> a == render_card("a red cube", seed=1, index=0, size=(128, 128))
    True
    >>> a != render_card("a red cube", seed=1, index=1, size=(128, 128))
    True
"""

from __future__ import annotations

import hashlib
import io
import random
import textwrap
from collections.abc import Callable
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from eval.kit.in_process import add_in_process
from registry import Registry

LABEL = "NOT A MODEL — built-in renderer"
"""The text every built-in image carries."""

DEFAULT_SIZE = (256, 256)

Renderer = Callable[[str, int, int, tuple[int, int]], bytes]


Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=16)
def _font(size: int) -> Font:
    return ImageFont.load_default(size=size)


def _rng(prompt: str, seed: int, index: int) -> random.Random:
    digest = hashlib.sha256(f"{seed}\x00{index}\x00{prompt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _colour(rng: random.Random, lo: int, hi: int) -> tuple[int, int, int]:
    return (rng.randint(lo, hi), rng.randint(lo, hi), rng.randint(lo, hi))


def _label(draw: ImageDraw.ImageDraw, at: tuple[int, int], font: Font, scale: int) -> None:
    """Write :data:`LABEL`; the dash is drawn as a line (the default font has no em dash)."""
    head, _, tail = LABEL.partition(" — ")
    x, y = at
    yellow = (255, 255, 0)
    draw.text((x, y), head, fill=yellow, font=font)
    x += int(draw.textlength(head + " ", font=font))
    mid = y + scale // 2 + 1
    draw.line((x, mid, x + scale, mid), fill=yellow, width=max(1, scale // 8))
    draw.text((x + scale + scale // 3, y), tail, fill=yellow, font=font)


@lru_cache(maxsize=32)
def _overlay(prompt: str, size: tuple[int, int]) -> tuple[Image.Image, int]:
    """The prompt's words and the label band, drawn once per prompt and size (transparent
    elsewhere); and the y where the index tag goes."""
    w, h = size
    layer = Image.new("RGBA", size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    scale = max(8, min(w, h) // 20)
    font = _font(scale)
    band = scale * 2
    draw.rectangle((0, h - band, w, h), fill=(0, 0, 0, 255))
    _label(draw, (scale // 2, h - band + scale // 2), font, scale)
    words = " ".join(prompt.split())[:400]
    lines = textwrap.wrap(words, width=max(8, int(w / (scale * 0.55)))) or ["(empty prompt)"]
    y = scale // 2
    for line in lines[: max(1, (h - band) // (scale + 2) - 1)]:
        right = scale // 2 + draw.textlength(line, font=font)
        box = (scale // 4, y - 1, right + scale // 4, y + scale + 1)
        draw.rectangle(box, fill=(255, 255, 255, 255))
        draw.text((scale // 2, y), line, fill=(0, 0, 0, 255), font=font)
        y += scale + 2
    return layer, y


def render_card(prompt: str, seed: int, index: int, size: tuple[int, int]) -> bytes:
    """One labelled card as PNG bytes (deterministic in all four arguments)."""
    w, h = size
    rng = _rng(prompt, seed, index)
    img = Image.new("RGB", size, _colour(rng, 150, 245))
    draw = ImageDraw.Draw(img)
    for _ in range(3 + index % 3):
        x0, y0 = rng.randrange(w), rng.randrange(h)
        x1, y1 = x0 + rng.randint(w // 10, w // 3), y0 + rng.randint(h // 10, h // 3)
        shape = draw.ellipse if rng.random() < 0.5 else draw.rectangle
        shape((x0, y0, x1, y1), fill=_colour(rng, 40, 200))
    layer, y = _overlay(prompt, size)
    img.paste(layer, (0, 0), layer)
    scale = max(8, min(w, h) // 20)
    draw.text((w - scale * 4, y), f"#{index} s{seed}", fill=(60, 60, 60), font=_font(scale))
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=1)
    return buf.getvalue()


RENDERERS = Registry[Renderer]("T2I backend", group="t2i_judge.t2i_backends")
"""Backends that draw in this process, by model string: the built-in renderer, those added
with :func:`register_renderer` and those plugins register in ``t2i_judge.t2i_backends``
(named ``<package>/<backend>``; docs/extending.md). Any other model goes to litellm."""
RENDERERS.add("builtin/renderer", render_card)


def register_renderer(model: str, renderer: Renderer) -> None:
    """Add an in-process backend (``model`` like ``builtin/<name>`` or ``<package>/<name>``)."""
    add_in_process(RENDERERS, model, renderer, "backend")


def parse_size(size: str | None, default: tuple[int, int] = DEFAULT_SIZE) -> tuple[int, int]:
    """``"512x256"`` → ``(512, 256)``; ``None`` → ``default``."""
    if not size:
        return default
    w, _, h = size.partition("x")
    return int(w), int(h)
