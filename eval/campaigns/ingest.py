"""From a ``POST /v1/campaigns`` body to what the service stores: the campaign record (items
with images replaced by content keys, validation items added, the card's question) and the
image bytes, each image once.

The question comes from the criterion's card, so people answer what the judge answers:
pairwise and ranking campaigns take a compare card (``preference``, ``coherence``,
``alignment``: its question and whether the prompt is shown); rating campaigns take any card
with 1–5 dimensions (``instruction_following``, ``visual_quality``, a rubric card, or one
dimension of a card) and show its anchors.

Example::

    record, images = ingest(CampaignCreate.model_validate(body), settings)
"""

from __future__ import annotations

import hashlib
import io
import math
from typing import Any

from PIL import Image

from eval.campaigns.models import CampaignCreate
from eval.campaigns.validation import admin_rule, auto_items
from judge.config import JudgeSettings
from judge.errors import InputError
from judge.io.images import decode_image, read_image_bytes
from judge.io.pixel_budget import pixel_ledger
from skills.registry import default_registry

MIME = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "WEBP": "image/webp",
    "GIF": "image/gif",
    "BMP": "image/bmp",
}


def criterion_card(kind: str, criterion: str) -> dict[str, Any]:
    """``{"question", "show_prompt", "title", "anchors"}`` for a campaign's criterion, or an
    :class:`InputError` naming ``criterion`` with the cards that fit."""
    reg = default_registry()
    cards = reg.cards(enabled_only=False)
    if kind in ("pairwise", "ranking"):
        fit = {c.name: c for c in cards if c.kind == "pairwise-preference"}
        card = fit.get(criterion)
        if card is None:
            raise InputError("criterion", f"{kind} campaigns take a compare card: {sorted(fit)}")
        question = card.question
        if kind == "ranking":
            question = f"Order the images from best to worst. {question}"
        return {
            "question": question,
            "show_prompt": card.show_prompt,
            "title": criterion,
            "anchors": {},
        }
    dims = {d.name: (c, d) for c in cards if c.kind.endswith("rubric") for d in c.dimensions}
    if criterion not in dims:
        raise InputError("criterion", f"rating campaigns take a 1–5 dimension: {sorted(dims)}")
    card, dim = dims[criterion]
    return {
        "question": dim.definition.strip(),
        "show_prompt": True,
        "title": dim.title,
        "anchors": {str(k): v for k, v in sorted(dim.anchors.items())},
    }


class _Images:
    """Decoded, vetted images by content key (sha256 of the bytes, 24 hex digits)."""

    def __init__(self, settings: JudgeSettings):
        self.settings = settings
        self.data: dict[str, tuple[bytes, str]] = {}
        self._pil: dict[str, Image.Image] = {}

    def add_url(self, url: str, field: str) -> str:
        with pixel_ledger(self.settings.image_max_pixels, None):
            raw = read_image_bytes(url, field=field, settings=self.settings)
            key = hashlib.sha256(raw).hexdigest()[:24]
            if key not in self.data:
                img = decode_image(raw, field=field, settings=self.settings)
                with Image.open(io.BytesIO(raw)) as probe:
                    mime = MIME.get(probe.format or "", "application/octet-stream")
                self.data[key] = (raw, mime)
                self._pil[key] = img
        return key

    def add_bytes(self, raw: bytes, mime: str) -> str:
        key = hashlib.sha256(raw).hexdigest()[:24]
        self.data.setdefault(key, (raw, mime))
        return key

    def pil(self, key: str) -> Image.Image:
        return self._pil[key]


def _stored_item(kind: str, item: Any, i: int, images: _Images) -> dict[str, Any]:
    where = f"items[{i}]"
    out: dict[str, Any] = {"id": item.id, "prompt": item.prompt}
    if kind == "pairwise":
        for side in ("a", "b"):
            o = getattr(item, side)
            out[side] = {
                "model": o.model,
                "image": images.add_url(o.image, f"{where}.{side}.image"),
            }
    elif kind == "rating":
        out["image"] = images.add_url(item.image, f"{where}.image")
        out["source_image"] = (
            images.add_url(item.source_image, f"{where}.source_image")
            if item.source_image
            else None
        )
        out["instruction"] = item.instruction
        out["model"] = item.model or "unknown"
    else:
        out["outputs"] = [
            {"model": o.model, "image": images.add_url(o.image, f"{where}.outputs[{j}].image")}
            for j, o in enumerate(item.outputs)
        ]
    out["validation"] = admin_rule(kind, item.expected) if item.expected is not None else None
    out["judge"] = item.judge.model_dump(exclude_none=True) if item.judge else None
    return out


def ingest(
    body: CampaignCreate, settings: JudgeSettings
) -> tuple[dict[str, Any], dict[str, tuple[bytes, str]]]:
    """The campaign record and ``{key: (bytes, mime)}`` of its images (blocking: decodes)."""
    card = criterion_card(body.kind, body.criterion)
    images = _Images(settings)
    items = [_stored_item(body.kind, it, i, images) for i, it in enumerate(body.items)]
    if body.validation == "auto":
        real = [i for i in items if not i["validation"]]
        count = min(len(real), max(2, math.ceil(2 * len(real) / body.validation_every)), 40)
        items += auto_items(
            body.kind,
            body.criterion,
            real,
            images.pil,
            images.add_bytes,
            count=count,
            seed=body.seed,
        )
    record = body.model_dump(exclude={"items"})
    ext = {k: mime.split("/")[-1].replace("jpeg", "jpg") for k, (_, mime) in images.data.items()}
    record.update(card=card, items=items, status="open", image_ext=ext)
    return record, images.data
