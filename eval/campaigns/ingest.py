"""From a ``POST /v1/campaigns`` body to what the service stores: the campaign record (items
with images replaced by keys, validation items added, the card's question) and the
image bytes, each image once.

The question comes from the criterion's card, so people answer what the judge answers:
pairwise and ranking campaigns take a compare card (``preference``, ``coherence``,
``alignment``: its question and whether the prompt is shown); rating campaigns take any card
with 1–5 dimensions (``instruction_following``, ``visual_quality``, a rubric card, or one
dimension of a card) and show its anchors.

Example::

    record, images = ingest(CampaignCreate.model_validate(body), settings)
    record.dumps()  # what the service stores (eval.campaigns.record)
"""

from __future__ import annotations

import hashlib
import hmac
import io
import math
import secrets
from typing import Any

from PIL import Image

from eval.campaigns.models import STORED_WHEN_GIVEN, CampaignCreate, JudgeAnswer
from eval.campaigns.record import CampaignRecord, Card, StoredItem, StoredOutput
from eval.campaigns.validation import admin_rule, auto_items
from judge.config import JudgeSettings
from judge.errors import InputError
from judge.io.images import bare, decode_image, read_image_bytes
from judge.io.pixel_budget import PixelBudget, pixel_ledger
from skills.registry import default_registry


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


STORED_MAX_SIDE = 2048
"""Stored campaign images are at most this many pixels on their longer side."""
STORED_QUALITY = 90


def stored_form(img: Image.Image) -> bytes:
    """The one encoding every stored campaign image goes through — the admin's items and the
    generated validation images alike, so neither format, size class nor metadata tells them
    apart: RGB, longer side at most :data:`STORED_MAX_SIDE`, baseline JPEG, no metadata."""
    rgb = bare(img.convert("RGB"))
    if max(rgb.size) > STORED_MAX_SIDE:
        rgb.thumbnail((STORED_MAX_SIDE, STORED_MAX_SIDE), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    rgb.save(buf, "JPEG", quality=STORED_QUALITY, optimize=True)
    return buf.getvalue()


class _Images:
    """Vetted images in their stored form, by key. Each image is decoded alone under the
    service's pixel limits (its own ledger on the process's decode budget, as
    ``/v1/memories`` does), re-encoded by :func:`stored_form` and dropped: memory holds one
    decoded image at a time, and the stored bytes are bounded. A key is an HMAC of the stored
    bytes under a secret drawn for this campaign and then forgotten, so nobody who sees an
    image can derive its key (or tell a generated validation image by its key)."""

    def __init__(self, settings: JudgeSettings, budget: PixelBudget | None = None):
        self.settings = settings
        self.budget = budget
        self.data: dict[str, tuple[bytes, str]] = {}
        self._by_raw: dict[str, str] = {}  # sha256 of the bytes sent -> key (each decoded once)
        self._secret = secrets.token_bytes(32)

    def _key(self, stored: bytes) -> str:
        return hmac.new(self._secret, stored, hashlib.sha256).hexdigest()[:24]

    def add_url(self, url: str, field: str) -> str:
        with pixel_ledger(self.settings.image_max_pixels, self.budget):
            raw = read_image_bytes(url, field=field, settings=self.settings)
            digest = hashlib.sha256(raw).hexdigest()
            if digest not in self._by_raw:
                img = decode_image(raw, field=field, settings=self.settings)
                self._by_raw[digest] = self.add_image(img)
                del img
        return self._by_raw[digest]

    def add_image(self, img: Image.Image) -> str:
        """Store ``img`` in its stored form; its key."""
        stored = stored_form(img)
        key = self._key(stored)
        self.data.setdefault(key, (stored, "image/jpeg"))
        return key

    def pil(self, key: str) -> Image.Image:
        """One stored image decoded again (bounded by :data:`STORED_MAX_SIDE`)."""
        with pixel_ledger(self.settings.image_max_pixels, self.budget):
            return decode_image(self.data[key][0], field="images", settings=self.settings)


def _stored_item(kind: str, item: Any, i: int, images: _Images) -> StoredItem:
    where = f"items[{i}]"
    out: dict[str, Any] = {"id": item.id, "prompt": item.prompt}
    if kind == "pairwise":
        for side in ("a", "b"):
            o = getattr(item, side)
            out[side] = StoredOutput(
                model=o.model, image=images.add_url(o.image, f"{where}.{side}.image")
            )
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
            StoredOutput(
                model=o.model, image=images.add_url(o.image, f"{where}.outputs[{j}].image")
            )
            for j, o in enumerate(item.outputs)
        ]
    out["validation"] = admin_rule(kind, item.expected) if item.expected is not None else None
    out["judge"] = (
        JudgeAnswer(**item.judge.model_dump(exclude_none=True)) if item.judge else None
    )
    return StoredItem(**out)


def ingest(
    body: CampaignCreate, settings: JudgeSettings, budget: PixelBudget | None = None
) -> tuple[CampaignRecord, dict[str, tuple[bytes, str]]]:
    """The campaign record and ``{key: (bytes, mime)}`` of its images (blocking: decodes,
    one image at a time, charging ``budget`` — the process's decode budget — while it
    does)."""
    card = criterion_card(body.kind, body.criterion)
    images = _Images(settings, budget)
    items = [_stored_item(body.kind, it, i, images) for i, it in enumerate(body.items)]
    if body.validation == "auto":
        real = [i for i in items if i.validation is None]
        count = min(len(real), max(2, math.ceil(2 * len(real) / body.validation_every)), 40)
        items += auto_items(
            body.kind,
            body.criterion,
            real,
            images.pil,
            images.add_image,
            count=count,
            seed=body.seed,
            encode=stored_form,
        )
    unset = STORED_WHEN_GIVEN - body.model_fields_set
    settings_of = body.model_dump(exclude={"items", *unset})
    ext = {k: mime.split("/")[-1].replace("jpeg", "jpg") for k, (_, mime) in images.data.items()}
    record = CampaignRecord(
        **settings_of, card=Card(**card), items=items, status="open", image_ext=ext
    )
    return record, images.data
