"""Real photographs for the benchmarks: the sample photos scikit-image ships, at 1024² as PNG.

A synthetic gradient decodes about twice as fast as a photograph of the same size, so a
benchmark fed one flatters every step that touches pixels. These are photographs a user could
send; each is cropped to its centre square and resized (Lanczos) to ``side``², then saved as an
8-bit RGB PNG with Pillow's default settings (or as a JPEG of quality 90). They come from the
installed ``scikit-image`` (a pinned dependency), so nothing is downloaded and nothing is
stored in this repository.

Sources and licences (from scikit-image's ``skimage.data`` documentation):

| name | what | licence |
|---|---|---|
| ``astronaut`` | Eileen Collins, NASA portrait | public domain (NASA) |
| ``coffee`` | a cup of coffee, Rachel Michetti | CC0 |
| ``chelsea`` | a cat, Stefan van der Walt | CC0 |
| ``hubble_deep_field`` | Hubble eXtreme Deep Field | public domain (NASA) |
| ``retina`` | a human retina, Mikael Häggström | CC0 |
| ``rocket`` | a Falcon 9 launch, SpaceX | public domain (SpaceX) |

Example:
    >>> photos = sample_photos(side=64)
    >>> len(photos), photos[0][:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    (6, True)
"""

from __future__ import annotations

import io
from functools import lru_cache

PHOTOS = ("astronaut", "coffee", "chelsea", "hubble_deep_field", "retina", "rocket")
"""The photographs, in the order a benchmark takes them."""


@lru_cache(maxsize=4)
def sample_photos(side: int = 1024, fmt: str = "PNG") -> tuple[bytes, ...]:
    """Every photo of :data:`PHOTOS` as the bytes of a ``side``² RGB PNG, or with
    ``fmt="JPEG"`` a baseline JPEG of quality 90 as a camera or generator writes it (built
    once)."""
    from PIL import Image
    from skimage import data

    out = []
    for name in PHOTOS:
        img = Image.fromarray(getattr(data, name)()).convert("RGB")
        w, h = img.size
        s = min(w, h)
        box = ((w - s) // 2, (h - s) // 2, (w - s) // 2 + s, (h - s) // 2 + s)
        img = img.crop(box).resize((side, side), Image.Resampling.LANCZOS)
        buf = io.BytesIO()
        img.save(buf, fmt, **({"quality": 90} if fmt == "JPEG" else {}))
        out.append(buf.getvalue())
    return tuple(out)
