"""Can a bot tell a campaign's validation tasks from real ones? A pairwise campaign is
labelled through the code the service runs (the serving scripts on a real redis-server, the
public task with its per-task image URLs, the stored image bytes) by honest annotators and
by bots. Every bot answers at random except where its one rule speaks:

* ``url`` / ``bytes``: remembers every image URL (or the SHA-256 of every image's bytes)
  the bots were shown, shared between all bots, and picks the side seen before — the
  attack that scored 93–100% when validation tasks reused real items' image keys;
* ``size-bytes+`` / ``size-bytes-`` / ``size-pixels+`` / ``size-pixels-``: picks the
  larger (or smaller) file, or image;
* ``<statistic>+`` / ``<statistic>-`` for each of :data:`STATISTICS` (mean brightness,
  contrast, fine detail, colourfulness, grey-level entropy): picks the side where the
  statistic is higher (lower);
* ``sniffer``: avoids a flat card, a much noisier or a much blurrier image;
* ``periodic``: answers carefully at the task positions where validation tasks came before
  they were drawn at random (a fixed offset per annotator), at random elsewhere.

Honest annotators pick the intact image on validation tasks (98%) and vote by the models'
strengths elsewhere. The result: each annotator's validation accuracy and whether QC
flagged them (the campaign's bar: 80% of validation tasks right).

Example::

    $ python -m benchmarks.validation_bots            # a table of every annotator
    $ python -m benchmarks.validation_bots --json
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import io
import json
import random
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import redis.asyncio as aredis
from PIL import Image, ImageDraw

from api.campaigns.routes import image_url
from api.campaigns.serving import answer, next_task, public_task
from api.campaigns.store import CampaignStore
from api.core.redis_embedded import EmbeddedRedis
from eval.campaigns.ingest import ingest
from eval.campaigns.models import Answer, CampaignCreate
from eval.campaigns.planning import pair_plan
from eval.campaigns.record import CampaignRecord
from eval.campaigns.report import annotator_flags
from judge.config import JudgeSettings

MODELS = [f"m{k}" for k in range(6)]
STRENGTH = {m: 2.0 ** (1.2 * (5 - k)) for k, m in enumerate(MODELS)}
HONEST = 10


def _grey(img: Image.Image) -> np.ndarray:
    return np.asarray(img.convert("L"), dtype=float)


def _detail(img: Image.Image) -> float:
    g = _grey(img)
    return float(np.abs(np.diff(g, axis=0)).mean() + np.abs(np.diff(g, axis=1)).mean())


def _colour(img: Image.Image) -> float:
    return float(np.asarray(img.convert("HSV"), dtype=float)[..., 1].mean())


def _entropy(img: Image.Image) -> float:
    counts = np.bincount(_grey(img).astype(int).ravel(), minlength=256)
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log2(p)).sum())


STATISTICS: dict[str, Callable[[Image.Image], float]] = {
    "mean": lambda img: float(_grey(img).mean()),
    "contrast": lambda img: float(_grey(img).std()),
    "detail": _detail,
    "colour": _colour,
    "entropy": _entropy,
}
"""The single pixel statistics a bot may pick by (each both ways)."""


def bots() -> list[str]:
    """Every bot's name."""
    names = ["url", "bytes", "sniffer", "periodic"]
    names += [f"size-{what}{way}" for what in ("bytes", "pixels") for way in "+-"]
    return names + [f"{s}{way}" for s in STATISTICS for way in "+-"]


def _picture(colour: tuple[int, int, int], mark: int, size: tuple[int, int]) -> bytes:
    """A small photo-like picture, as PNG: a lit gradient, a few soft shapes (distinct per
    ``mark``), sensor grain — smooth areas and textures, as generated images have."""
    rng = np.random.default_rng(mark)
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w] / max(w, h)
    light = 0.6 + 0.5 * (rng.uniform(-1, 1) * xx + rng.uniform(-1, 1) * yy)
    img = np.asarray(colour, dtype=float) * light[..., None]
    for _ in range(3 + mark % 4):
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(5, 0.35 * w)
        blob = np.exp(-(((xx * max(w, h) - cx) ** 2 + (yy * max(w, h) - cy) ** 2) / r**2))
        img = img * (1 - blob[..., None]) + rng.uniform(0, 255, 3) * blob[..., None]
    img += rng.normal(0, 4, img.shape)
    pic = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8), "RGB")
    ImageDraw.Draw(pic).rectangle((4, h - 12, 10 + mark % 40, h - 4), fill="black")
    buf = io.BytesIO()
    pic.save(buf, "PNG")
    return buf.getvalue()


def campaign_body(n_prompts: int = 60, votes: int = 8, seed: int = 4) -> dict[str, Any]:
    """A pairwise preference campaign: ``n_prompts`` prompts, four model pairs each, images
    of two sizes, one validation task in three."""
    import base64

    rng = random.Random(seed)
    items = []
    for p in range(n_prompts):
        size = (96, 64) if p % 2 else (64, 64)
        images = {}
        for k, m in enumerate(MODELS):
            colour = tuple(rng.randrange(40, 220) for _ in range(3))
            raw = _picture(colour, 7 * p + k, size)  # type: ignore[arg-type]
            images[m] = "data:image/png;base64," + base64.b64encode(raw).decode()
        for a, b in pair_plan(MODELS, per_model=2, rotation=p)[:4]:
            items.append({"id": f"p{p:02d}-{a}-{b}", "prompt": f"prompt {p}",
                          "a": {"model": a, "image": images[a]},
                          "b": {"model": b, "image": images[b]}})  # fmt: skip
    return {"id": "bots", "kind": "pairwise", "criterion": "preference", "items": items,
            "votes_per_item": votes, "session_size": 5, "min_seconds": 1.0,
            "penalty_s": 2.0, "validation_every": 3, "seed": seed}  # fmt: skip


class Farm:
    """What the bots remember together: URLs and byte digests they were shown."""

    def __init__(self) -> None:
        self.urls: set[str] = set()
        self.digests: set[str] = set()

    def pick(self, kind: str, urls: list[str], raw: list[bytes], rng: random.Random) -> str:
        """The shown side (``a`` = left) bot ``kind`` picks."""
        if kind in ("url", "bytes"):
            seen = self.urls if kind == "url" else self.digests
            marks = urls if kind == "url" else [hashlib.sha256(r).hexdigest() for r in raw]
            known = [m in seen for m in marks]
            seen.update(marks)
            if known[0] != known[1]:
                return "a" if known[0] else "b"
            return rng.choice("ab")
        imgs = [Image.open(io.BytesIO(r)).convert("RGB") for r in raw]
        if kind == "sniffer":
            return _sniff(imgs, rng)
        if kind.startswith("size-"):
            what, way = kind[5:-1], kind[-1]
            x = [len(r) for r in raw] if what == "bytes" else [i.size[0] * i.size[1] for i in imgs]
        else:
            way = kind[-1]
            x = [STATISTICS[kind[:-1]](i) for i in imgs]
        if x[0] == x[1]:
            return rng.choice("ab")
        return "a" if (x[0] > x[1]) == (way == "+") else "b"


def _sniff(imgs: list[Image.Image], rng: random.Random) -> str:
    gl, gr = _grey(imgs[0]), _grey(imgs[1])
    if gl.std() < 6 or gr.std() < 6:
        return "b" if gl.std() < gr.std() else "a"
    dl, dr = _detail(imgs[0]), _detail(imgs[1])
    if max(dl, dr) > 2.5 * min(dl, dr):
        noisy = max(dl, dr) > 25
        worse = "a" if (dl > dr) == noisy else "b"
        return "b" if worse == "a" else "a"
    return rng.choice("ab")


def _old_turn(who: str, served: int, every: int = 3) -> bool:
    """Where validation tasks used to come: a fixed offset per annotator."""
    return served % every == int(hashlib.sha256(who.encode()).hexdigest()[:8], 16) % every


async def simulate(redis_url: str, body: dict[str, Any], seed: int = 9) -> tuple[
    CampaignRecord, list[dict[str, Any]]
]:
    """Run the campaign to its end with :data:`HONEST` honest annotators and every bot of
    :func:`bots`, round robin on a simulated clock; the record and every attempt."""
    redis = aredis.Redis.from_url(redis_url)
    store = CampaignStore(redis)
    record, images = ingest(CampaignCreate.model_validate(body), JudgeSettings())
    assert await store.create(record, images)
    cid = record.id
    aliases = await store.aliases(cid)
    assert aliases is not None
    people = {**{f"h{n:02d}": "honest" for n in range(HONEST)}, **{f"bot-{b}": b for b in bots()}}
    farm, t, served = Farm(), [1_000_000.0], {}
    rng, serving = random.Random(seed), random.Random(seed + 4)
    active = list(people)
    while active:
        for who in list(active):
            task = await next_task(store, record, who, lambda: t[0], serving)
            if task is None:
                active.remove(who)
                continue
            tid = task["id"]
            shown = public_task(
                record, task, lambda key, tid=tid: image_url(cid, aliases.alias(tid, key))
            )
            urls = [shown["images"]["a"], shown["images"]["b"]]
            item = record.item(task["item"])
            sides = ["a", "b"] if task["order"] == [0, 1] else ["b", "a"]
            served[who] = served.get(who, 0) + 1
            careful = people[who] == "honest" or (
                people[who] == "periodic" and _old_turn(who, served[who] - 1)
            )
            if careful:
                if item.validation is not None:
                    right = item.validation.answer
                    pick = right if rng.random() < 0.98 else {"a": "b", "b": "a"}[right or "a"]
                else:
                    sa, sb = STRENGTH[item.a.model], STRENGTH[item.b.model]  # type: ignore[union-attr]
                    pick = "a" if rng.random() < sa / (sa + sb) else "b"
                choice = "a" if sides[0] == pick else "b"
            elif people[who] == "periodic":
                choice = rng.choice("ab")
            else:
                raw = []
                for url in urls:
                    got = await store.image(cid, aliases.key_of(url.rsplit("/", 1)[1]) or "")
                    assert got is not None
                    raw.append(got[0])
                choice = farm.pick(people[who], urls, raw, rng)
            t[0] += rng.uniform(2.0, 6.0)
            got = await answer(store, record, who, Answer(task=task["id"], choice=choice),
                               lambda: t[0])  # fmt: skip
            assert got["accepted"]
    attempts = await store.attempts(cid)
    await redis.aclose()
    return record, attempts


def rates(record: CampaignRecord, attempts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per annotator: kind, validation answers, accuracy, flagged."""
    people = annotator_flags(record, attempts)
    out = []
    for who, p in sorted(people.items()):
        out.append({"annotator": who, "kind": "honest" if who.startswith("h") else who[4:],
                    "validation_answers": p["validation_answers"],
                    "validation_accuracy": p["validation_accuracy"],
                    "flagged": p["flagged"]})  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.validation_bots",
                                 description=__doc__.split("\n\n")[0])  # fmt: skip
    ap.add_argument("--prompts", type=int, default=60, help="prompts (four pairs each)")
    ap.add_argument("--votes", type=int, default=8, help="votes per item")
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    body = campaign_body(args.prompts, args.votes, args.seed)
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp)) as url:
        record, attempts = asyncio.run(simulate(url, body, args.seed + 5))
    rows = rates(record, attempts)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'annotator':<22} {'validation':>10} {'accuracy':>9}  flagged")
    for r in rows:
        acc = r["validation_accuracy"]
        print(f"{r['annotator']:<22} {r['validation_answers']:>10} "
              f"{'—' if acc is None else f'{acc:.0%}':>9}  {r['flagged']}")  # fmt: skip
    honest = [r for r in rows if r["kind"] == "honest"]
    bots_ = [r for r in rows if r["kind"] != "honest"]
    print(f"honest flagged: {sum(r['flagged'] for r in honest)} of {len(honest)}; "
          f"bots flagged: {sum(r['flagged'] for r in bots_)} of {len(bots_)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
