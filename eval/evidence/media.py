"""The multimodal stages: image roles, filled templates, parsed chat screenshots.

Images are vetted on reading (:func:`eval.evidence.posts.open_image`) and saved once, as PNG
named by content hash, under ``DIR/images/``; suites refer to them by that relative path.
Screenshot boxes come from the model in the pixels of the image it saw; they are scaled to the
original, checked to lie inside it (a box that does not is reported and dropped) and cropped
by the project.

Example:
    >>> check_box([0, 0, 10, 10], (20, 20)), check_box([5, 5, 30, 10], (20, 20))[:22]
    (None, 'box [5, 5, 30, 10] doe')
"""

from __future__ import annotations

import asyncio
import hashlib
import io
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from eval.evidence.answers import ImageRole, ScreenshotParse, TemplateFill
from eval.evidence.calls import JournalledCalls, StageCard
from judge.config import JudgeSettings
from judge.errors import InputError
from judge.io.images import to_payload
from memory.io.atomic import write_atomic
from skills.rendering import data_block, image_part, messages, text_part


@dataclass
class SavedImage:
    """An image a task uses: its file (relative to the output folder) and origin."""

    path: str
    origin: str
    box: list[int] | None = None

    def as_dict(self) -> dict:
        return {"path": self.path, "from": self.origin, **({"box": self.box} if self.box else {})}


@dataclass
class ImageStore:
    """Reads attached images and writes the ones tasks use."""

    export_dir: Path
    out_dir: Path
    settings: JudgeSettings
    refs: dict[str, str] = field(default_factory=dict)  # image id -> reference in the export
    _digest: dict[str, str] = field(default_factory=dict)  # image id -> sha256 of its bytes
    _cache: dict[str, Image.Image] = field(default_factory=dict)  # sha256 -> decoded image

    def _open(self, image_id: str) -> Image.Image:
        from eval.evidence.posts import image_bytes, open_image

        if image_id not in self._digest:
            if image_id not in self.refs:
                raise InputError("image_ids", f"no attached image {image_id!r} in this thread")
            raw = image_bytes(self.refs[image_id], self.export_dir, self.settings)
            digest = hashlib.sha256(raw).hexdigest()
            if digest not in self._cache:
                self._cache[digest] = open_image(raw, self.settings)
            self._digest[image_id] = digest
        return self._cache[self._digest[image_id]]

    async def open(self, image_id: str) -> Image.Image:
        """The vetted image: decoded once per content (sha256), however many posts or
        references carry the same file."""
        return await asyncio.to_thread(self._open, image_id)

    def _save(self, img: Image.Image) -> str:
        buf = io.BytesIO()
        img.save(buf, "PNG")
        raw = buf.getvalue()
        name = f"images/{hashlib.sha256(raw).hexdigest()[:24]}.png"
        path = self.out_dir / name
        if not path.exists():
            write_atomic(path, raw)
        return name

    async def save(self, img: Image.Image, origin: str, box: list[int] | None = None) -> SavedImage:
        """Write ``img`` (PNG) and name where it came from."""
        return SavedImage(await asyncio.to_thread(self._save, img), origin, box)


def check_box(box: list[int], size: tuple[int, int]) -> str | None:
    """``None`` when ``box`` lies inside an image of ``size`` and is not empty, else why."""
    left, top, right, bottom = box
    w, h = size
    if not (0 <= left < right <= w and 0 <= top < bottom <= h):
        return f"box {box} does not lie inside the {w}x{h} image"
    return None


def _request_block(prompt: str) -> dict:
    return text_part(data_block("REQUEST", prompt or "(none written)"))


async def image_role(
    calls: JournalledCalls, stage: StageCard, key: str, prompt: str, image_id: str,
    img: Image.Image, settings: JudgeSettings,
) -> ImageRole | None:
    """Whether an attached image is the request's input, its output or neither."""
    payload = to_payload(img, settings.image_max_side)
    parts = [_request_block(prompt), text_part(data_block("IMAGE ID", image_id)),
             image_part(payload), text_part("Which role does this image play?")]
    return await calls.ask(stage, key, messages(stage.system(), parts), ImageRole)


async def fill_template(
    calls: JournalledCalls, stage: StageCard, key: str, template: str, image_id: str,
    img: Image.Image, settings: JudgeSettings,
) -> TemplateFill | None:
    """The template completed from a completion's image."""
    payload = to_payload(img, settings.image_max_side)
    parts = [text_part(data_block("TEMPLATE", template)),
             text_part(data_block("IMAGE ID", image_id)), image_part(payload),
             text_part("Write the completed prompt.")]
    return await calls.ask(stage, key, messages(stage.system(), parts), TemplateFill)


async def parse_screenshot(
    calls: JournalledCalls, stage: StageCard, key: str, image_id: str, img: Image.Image,
    settings: JudgeSettings,
) -> tuple[ScreenshotParse | None, list[tuple[str, list[int]]], list[str]]:
    """The screenshot's prompt and its sub-images' (role, box in original pixels), with the
    problems of boxes that were dropped."""
    payload = to_payload(img, settings.image_max_side)
    parts = [text_part(data_block("IMAGE ID", image_id)), image_part(payload),
             text_part(f"The image is {payload.width}x{payload.height} pixels.")]
    answer = await calls.ask(stage, key, messages(stage.system(), parts), ScreenshotParse)
    if answer is None:
        return None, [], []
    sx, sy = img.width / payload.width, img.height / payload.height
    boxes: list[tuple[str, list[int]]] = []
    problems: list[str] = []
    for region in answer.regions:
        problem = check_box(region.box, (payload.width, payload.height))
        if problem:
            problems.append(f"{image_id}: {problem}; region dropped")
            continue
        left, top, right, bottom = region.box
        scaled = [round(left * sx), round(top * sy), round(right * sx), round(bottom * sy)]
        boxes.append((region.role, scaled))
    return answer, boxes, problems
