"""Each image of a request prepared once: read, checked, decoded, sized for the judge models'
provider and encoded as a data URL, then shared by every call and every mode that shows it.

Every mode's :meth:`~judge.modes.base.Mode.load_views` goes through :func:`prepare_views`:
one decode per image (checked against the byte, pixel and per-request limits), one resize to
the provider's effective size (:mod:`judge.io.provider_size`; ``image_max_side`` still caps
it) and one encode. The calls of the request reuse the same payload object, so its data URL is
built once and its digest for the response cache (:func:`judge.llm.cache.url_digest`) is taken
once.

Example:
    >>> import base64, io
    >>> from PIL import Image
    >>> from judge.config import JudgeSettings
    >>> buf = io.BytesIO(); Image.new("RGB", (2048, 1024), "red").save(buf, "PNG")
    >>> url = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
    >>> views = prepare_views({"images[0]": url}, JudgeSettings(model="openai/gpt-4o"))
    >>> views.pil["images[0]"].size, views.payloads["images[0]"].width
    ((2048, 1024), 1536)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from judge.config import JudgeSettings
from judge.io import images
from judge.io.provider_size import send_size
from skills.types import ImagePayload


@dataclass
class Prepared:
    """A request's images by view name: payloads for models, decoded images for local checks."""

    payloads: dict[str, ImagePayload]
    pil: dict[str, Any]


def payload_for_models(img: Image.Image, settings: JudgeSettings) -> ImagePayload:
    """``img`` at the size the judge models' provider keeps (capped by ``image_max_side``),
    encoded once."""
    size = send_size(img.size, settings)
    # one resample: the provider's size only where it is below the image_max_side cap
    if max(size) < min(max(img.size), settings.image_max_side):
        img = img.resize(size, Image.Resampling.LANCZOS)
    return images.to_payload(img, settings.image_max_side)


def prepare_views(
    refs: Mapping[str, str],
    settings: JudgeSettings,
    base_dir: Path | None = None,
    *,
    keep_pil: frozenset[str] | None = None,
) -> Prepared:
    """Prepare every image reference (view name -> path, data URL or URL) once.

    ``keep_pil`` names the views whose decoded image local checks need (default: all).
    """
    payloads: dict[str, ImagePayload] = {}
    pil: dict[str, Any] = {}
    for name, ref in refs.items():
        img = images.load_pil(ref, field=name, settings=settings, base_dir=base_dir)
        payloads[name] = payload_for_models(img, settings)
        if keep_pil is None or name in keep_pil:
            pil[name] = img
    return Prepared(payloads=payloads, pil=pil)
