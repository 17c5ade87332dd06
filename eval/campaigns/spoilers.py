"""Ways to spoil an image for a validation task, varied so that no single pixel rule finds
them all.

A bot that knows one tell — a flat card, a noise level, a blur — must not pass validation:
the kinds differ in exactly those statistics. ``scrambled`` keeps the image's colours, noise
and sharpness (only its tiles move), ``mosaic`` has hard edges but no detail, ``blur`` no
edges at all, ``noise`` more fine detail than any photograph, ``blank`` no detail whatever.
:data:`SPOILERS` is the registry (name → function), :data:`WEIGHTS` how often each is drawn:
the kinds that are hardest to tell by pixels come most often.

Example:
    >>> from PIL import Image
    >>> img = Image.new("RGB", (64, 48), "#48c")
    >>> sorted(SPOILERS) == sorted(WEIGHTS)
    True
    >>> SPOILERS["mosaic"](img, 3).size
    (64, 48)
"""

from __future__ import annotations

import random
from collections.abc import Callable

from PIL import Image, ImageFilter

Spoiler = Callable[[Image.Image, int], Image.Image]  # (image, seed) -> spoiled image


def _tiles(img: Image.Image, n: int) -> tuple[list[Image.Image], int, int]:
    w, h = img.size
    tw, th = max(1, w // n), max(1, h // n)
    tiles = [
        img.crop((x * tw, y * th, (x + 1) * tw, (y + 1) * th)) for y in range(n) for x in range(n)
    ]
    return tiles, tw, th


def scrambled(img: Image.Image, seed: int) -> Image.Image:
    """The image cut into 4×4 tiles, shuffled (each tile intact: colours, noise and sharpness
    as in the original)."""
    rng = random.Random(seed)
    rgb = img.convert("RGB")
    tiles, tw, th = _tiles(rgb, 4)
    order = list(range(len(tiles)))
    while order == sorted(order):  # never the original arrangement
        rng.shuffle(order)
    out = rgb.copy()
    for n, k in enumerate(order):
        out.paste(tiles[k], ((n % 4) * tw, (n // 4) * th))
    return out


def mosaic(img: Image.Image, seed: int) -> Image.Image:
    """Blocks of about a tenth of the shorter side: the layout stays, every detail goes."""
    rgb = img.convert("RGB")
    w, h = rgb.size
    cells = 8 + seed % 5
    small = rgb.resize((max(1, w * cells // min(w, h)), max(1, h * cells // min(w, h))),
                       Image.Resampling.BOX)  # fmt: skip
    return small.resize((w, h), Image.Resampling.NEAREST)


def blurred(img: Image.Image, seed: int) -> Image.Image:
    """A Gaussian blur of a twelfth of the longer side: shapes dissolve."""
    rgb = img.convert("RGB")
    return rgb.filter(ImageFilter.GaussianBlur(max(rgb.size) / (12 + seed % 4)))


def noised(img: Image.Image, seed: int) -> Image.Image:
    """Tiles shuffled and turned, blurred and sprinkled with noise."""
    rng = random.Random(seed)
    rgb = img.convert("RGB")
    tiles, tw, th = _tiles(rgb, 6)
    rng.shuffle(tiles)
    out = Image.new("RGB", (tw * 6, th * 6))
    for n, tile in enumerate(tiles):
        out.paste(tile.rotate(90 * rng.randrange(4)), ((n % 6) * tw, (n // 6) * th))
    noise = Image.effect_noise(out.size, 90).convert("RGB")
    spoiled = Image.blend(out.filter(ImageFilter.GaussianBlur(3)), noise, 0.45)
    return spoiled.resize(rgb.size)


def blank(img: Image.Image, seed: int) -> Image.Image:
    """A flat card of a muted colour, the image's size."""
    rng = random.Random(seed)
    return Image.new("RGB", img.size, tuple(rng.randrange(90, 170) for _ in range(3)))


SPOILERS: dict[str, Spoiler] = {
    "scrambled": scrambled,
    "mosaic": mosaic,
    "blur": blurred,
    "noise": noised,
    "blank": blank,
}
WEIGHTS: dict[str, float] = {"scrambled": 4, "mosaic": 2, "blur": 1.5, "noise": 1.5, "blank": 1}


def draw(rng: random.Random) -> str:
    """A spoiler's name, drawn by :data:`WEIGHTS`."""
    names = sorted(WEIGHTS)
    return rng.choices(names, weights=[WEIGHTS[n] for n in names])[0]
