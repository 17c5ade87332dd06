"""From one thread's extracted requests to samples with their images resolved.

A ``prompt`` request asks a model for each image's role (input / output / neither; a chat
screenshot is parsed instead); a ``template`` becomes one sample per completion image, its
prompt filled in from that image; a ``screenshot`` request takes its prompt and sub-images
from the parsed screenshot. Every sample records which stage produced its prompt and images.

Example:
    >>> sample_id("p1", 0, 2)
    'ev-082632ad9dce'
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from eval.evidence.answers import ExtractedSample
from eval.evidence.calls import EvidenceCard, JournalledCalls
from eval.evidence.media import (
    ImageStore,
    SavedImage,
    fill_template,
    image_role,
    parse_screenshot,
)
from eval.evidence.trees import Tree
from judge.errors import InputError


def sample_id(root: str, index: int, sub: int) -> str:
    """A stable task id from the thread, the request's position and the completion's."""
    return "ev-" + hashlib.sha256(f"{root}\x00{index}\x00{sub}".encode()).hexdigest()[:12]


@dataclass
class Sample:
    """A self-contained sample: prompt, images, feedback, quality and provenance."""

    id: str
    kind: str
    prompt: str
    quality: str
    root: str
    posts: list[str]
    feedback: list[str]
    index: int
    inputs: list[SavedImage] = field(default_factory=list)
    outputs: list[SavedImage] = field(default_factory=list)
    stages: dict[str, str] = field(default_factory=dict)
    labels: list[dict[str, Any]] = field(default_factory=list)

    @property
    def split(self) -> str:
        """``i2i`` when the request had an input image, else ``t2i``."""
        return "i2i" if self.inputs else "t2i"


@dataclass
class Context:
    """What resolving a thread's samples needs."""

    calls: JournalledCalls
    card: EvidenceCard
    store: ImageStore
    problems: list[str]


def _post_of(image_id: str) -> str:
    return image_id.rsplit("#", 1)[0]


def _known(tree: Tree, ex: ExtractedSample, ctx: Context) -> tuple[list[str], list[str]]:
    posts = set(tree.post_ids)
    images = [i for i in ex.image_ids if i in ctx.store.refs and _post_of(i) in posts]
    for bad in sorted(set(ex.image_ids) - set(images)):
        ctx.problems.append(f"thread {tree.root}: the answer names unknown image {bad!r}")
    used = [p for p in ex.post_ids if p in posts] or [tree.root]
    return list(dict.fromkeys(used + [_post_of(i) for i in images])), images


async def _open(ctx: Context, iid: str) -> Image.Image | None:
    """The vetted image, or ``None`` with the problem noted."""
    try:
        return await ctx.store.open(iid)
    except InputError as exc:
        ctx.problems.append(f"{iid}: {exc}")
        return None


async def _templates(tree: Tree, k: int, ex: ExtractedSample, ctx: Context) -> list[Sample]:
    stage = ctx.card.stage("template_fill")
    posts, images = _known(tree, ex, ctx)
    out: list[Sample] = []
    for sub, iid in enumerate(images):
        img = await _open(ctx, iid)
        if img is None:
            continue
        key = f"{tree.root}|{k}|{iid}"
        fill = await fill_template(ctx.calls, stage, key, ex.prompt, iid, img, ctx.store.settings)
        if fill is None:
            ctx.problems.append(f"{iid}: no usable template completion")
            continue
        others = {_post_of(i) for i in images} - {_post_of(iid)}  # the other completions
        s = Sample(sample_id(tree.root, k, sub), "template", fill.prompt.strip(), ex.quality,
                   tree.root, [p for p in posts if p not in others], list(ex.feedback), k)
        s.outputs.append(await ctx.store.save(img, iid))
        s.stages = {"template": ctx.card.stage("extract").tag, "prompt": stage.tag,
                    "images": stage.tag}
        out.append(s)
    return out


async def resolve(tree: Tree, k: int, ex: ExtractedSample, ctx: Context) -> list[Sample]:
    """The samples of one extracted request (several for a template)."""
    if ex.kind == "template":
        return await _templates(tree, k, ex, ctx)
    posts, images = _known(tree, ex, ctx)
    extract_tag = ctx.card.stage("extract").tag
    s = Sample(sample_id(tree.root, k, 0), ex.kind, ex.prompt.strip(), ex.quality, tree.root,
               posts, list(ex.feedback), k, stages={"prompt": extract_tag})
    role_stage, shot_stage = ctx.card.stage("image_role"), ctx.card.stage("screenshot")
    settings = ctx.store.settings
    for iid in images:
        img = await _open(ctx, iid)
        if img is None:
            continue
        key = f"{tree.root}|{k}|{iid}"
        shot = ex.kind == "screenshot"
        role = None
        if not shot:
            role = await image_role(ctx.calls, role_stage, key, s.prompt, iid, img, settings)
            if role is None:
                ctx.problems.append(f"{iid}: no usable image role")
                continue
            shot = role.chat_screenshot
            s.stages["images"] = role_stage.tag
        if shot:
            parsed, boxes, bad = await parse_screenshot(ctx.calls, shot_stage, key, iid, img,
                                                        settings)
            ctx.problems.extend(bad)
            if parsed is None:
                ctx.problems.append(f"{iid}: no usable screenshot reading")
                continue
            if parsed.prompt.strip():
                s.prompt = parsed.prompt.strip()
                s.stages["prompt"] = shot_stage.tag
            s.stages["images"] = shot_stage.tag
            for part, box in boxes:
                left, top, right, bottom = box
                saved = await ctx.store.save(img.crop((left, top, right, bottom)), iid, box)
                (s.inputs if part == "input" else s.outputs).append(saved)
        elif role is not None and role.role != "neither":
            saved = await ctx.store.save(img, iid)
            (s.inputs if role.role == "input" else s.outputs).append(saved)
    if not s.prompt and s.quality != "discard":
        ctx.problems.append(f"{s.id}: no prompt text; kept as discard")
        s.quality = "discard"
    return [s]
