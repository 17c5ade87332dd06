"""Ways to spoil an image for a validation task, varied so that no single pixel rule finds
them all.

A bot that knows one tell — a flat card, a noise level, a blur, a brighter or duller image —
must not pass validation: the kinds differ in exactly those statistics. ``scrambled`` and
``jumbled`` keep the image's colours, noise and sharpness (only its tiles move or turn),
``mosaic`` has hard edges but no detail, ``blur`` no edges at all, ``noise`` more fine detail
than any photograph, ``blank`` (a smooth card) no detail whatever. Validation then gives
every spoiled image the original's fine detail, brightness, contrast and colourfulness, each
moved a little either way (:func:`eval.campaigns.disguise.disguised`), so none of those
tells which side is spoiled. :data:`SPOILERS` is the
registry (name → function), :data:`WEIGHTS` how often each is drawn: the kinds that are
hardest to tell by pixels come most often (``benchmarks/validation_bots.py`` measures it).

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
    """Tiles shuffled and turned, blurred and sprinkled with coloured noise."""
    rng = random.Random(seed)
    rgb = img.convert("RGB")
    tiles, tw, th = _tiles(rgb, 6)
    rng.shuffle(tiles)
    out = Image.new("RGB", (tw * 6, th * 6))
    for n, tile in enumerate(tiles):
        out.paste(tile.rotate(90 * rng.randrange(4)), ((n % 6) * tw, (n // 6) * th))
    noise = Image.merge("RGB", [Image.effect_noise(out.size, 90) for _ in range(3)])
    spoiled = Image.blend(out.filter(ImageFilter.GaussianBlur(3)), noise, 0.45)
    return spoiled.resize(rgb.size)


def jumbled(img: Image.Image, seed: int) -> Image.Image:
    """The image cut into 3×3 to 5×5 tiles, shuffled, each turned or mirrored: detail and
    colours as in the original, the picture gone."""
    rng = random.Random(seed)
    rgb = img.convert("RGB")
    n = 3 + seed % 3
    tiles, tw, th = _tiles(rgb, n)
    rng.shuffle(tiles)
    out = rgb.copy()
    turns = [Image.Transpose.ROTATE_180, Image.Transpose.FLIP_LEFT_RIGHT,
             Image.Transpose.FLIP_TOP_BOTTOM]  # fmt: skip
    for k, tile in enumerate(tiles):
        out.paste(tile.transpose(rng.choice(turns)), ((k % n) * tw, (k // n) * th))
    return out


def blank(img: Image.Image, seed: int) -> Image.Image:
    """An empty card: a smooth blend of two colours, the image's size (its statistics are
    then matched like every spoiler's: it ends up grainy, not flat)."""
    rng = random.Random(seed)
    w, h = img.size
    one, two = (Image.new("RGB", (w, h), tuple(rng.randrange(40, 216) for _ in range(3)))
                for _ in range(2))  # fmt: skip
    ramp = Image.linear_gradient("L").resize((w, h))
    return Image.composite(one, two, ramp.rotate(rng.choice((0, 90, 180, 270))).resize((w, h)))


SPOILERS: dict[str, Spoiler] = {
    "scrambled": scrambled,
    "jumbled": jumbled,
    "mosaic": mosaic,
    "blur": blurred,
    "noise": noised,
    "blank": blank,
}
WEIGHTS: dict[str, float] = {
    "scrambled": 4,
    "jumbled": 3,
    "mosaic": 2,
    "blur": 1.5,
    "noise": 1.5,
    "blank": 1,
}


def drawn(rng: random.Random, n: int) -> list[str]:
    """``n`` spoilers' names in random order, each kind as often as :data:`WEIGHTS` says
    (largest remainders: a campaign's mix is the weights', not a lucky draw's).

    >>> sorted(drawn(random.Random(1), 13)).count("scrambled"), len(drawn(random.Random(1), 5))
    (4, 5)
    """
    names = sorted(WEIGHTS)
    total = sum(WEIGHTS.values())
    share = {k: n * WEIGHTS[k] / total for k in names}
    counts = {k: int(share[k]) for k in names}
    left = sorted(names, key=lambda k: (counts[k] - share[k], rng.random()))
    for k in left[: n - sum(counts.values())]:
        counts[k] += 1
    out = [k for k in names for _ in range(counts[k])]
    rng.shuffle(out)
    return out
