"""Simulation: honest annotators and three bots label one pairwise campaign through the real
serving code and a real redis-server (simulated clock). Each bot answers at random except
where it believes it found a validation task:

* the **pixel-sniffing** bot reads the two images it is shown and avoids a flat card, an image
  much noisier, or one much blurrier than the other;
* the **periodic-turn** bot answers carefully on the task positions where validation tasks
  used to come (a fixed offset per annotator), at random elsewhere;
* the **key-guessing** bot recomputes the keys a blank card or a served image would have if
  keys were content hashes, and avoids an image whose key matches.

Each bot sees exactly what a browser sees (the public task: image URLs, then the images'
bytes). All three must be flagged on validation, and no honest annotator."""

from __future__ import annotations

import asyncio
import hashlib
import io
import random
from collections.abc import Iterator

import numpy as np
import pytest
import redis.asyncio as aredis
from PIL import Image

from api.campaigns.serving import answer, next_task, public_task
from api.campaigns.store import CampaignStore
from api.core.redis_embedded import EmbeddedRedis
from eval.campaigns.ingest import ingest
from eval.campaigns.models import Answer, CampaignCreate
from eval.campaigns.planning import pair_plan
from eval.campaigns.record import StoredItem
from eval.campaigns.report import annotator_flags
from eval.campaigns.validation import by_source
from judge.config import JudgeSettings
from tests.campaigns.helpers import COLOURS, data_url, png

MODELS = [f"m{k}" for k in range(6)]
STRENGTH = {m: 2.0 ** (1.2 * (5 - k)) for k, m in enumerate(MODELS)}
PEOPLE = {**{f"h{n:02d}": "honest" for n in range(10)},
          "bot-pixels": "pixels", "bot-periodic": "periodic", "bot-keys": "keys"}  # fmt: skip
EVERY = 3


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with EmbeddedRedis(tmp_path_factory.mktemp("bots-redis")) as url:
        yield url


def campaign_body() -> dict:
    items = []
    for p in range(25):
        images = {m: data_url(png(COLOURS[(k + p) % 8], k + p, size=(64, 48)))
                  for k, m in enumerate(MODELS)}  # fmt: skip
        for a, b in pair_plan(MODELS, per_model=2, rotation=p)[:4]:
            items.append({"id": f"p{p:02d}-{a}-{b}", "prompt": f"prompt {p}",
                          "a": {"model": a, "image": images[a]},
                          "b": {"model": b, "image": images[b]}})  # fmt: skip
    return {"id": "bots", "kind": "pairwise", "criterion": "preference", "items": items,
            "votes_per_item": 4, "session_size": 5, "min_seconds": 1.0, "penalty_s": 2.0,
            "validation_every": EVERY, "seed": 4}  # fmt: skip


def grey(raw: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(raw)).convert("L"), dtype=float)


def detail(g: np.ndarray) -> float:
    """Mean absolute difference between neighbouring pixels."""
    return float(np.abs(np.diff(g, axis=0)).mean() + np.abs(np.diff(g, axis=1)).mean())


def sniff(left: bytes, right: bytes, rng: random.Random) -> str:
    """The pixel-sniffing bot: avoid a flat card, a much noisier or a much blurrier image."""
    gl, gr = grey(left), grey(right)
    if gl.std() < 6 or gr.std() < 6:
        return "b" if gl.std() < gr.std() else "a"
    dl, dr = detail(gl), detail(gr)
    if max(dl, dr) > 2.5 * min(dl, dr):
        noisy = max(dl, dr) > 25  # far more fine detail than a picture has: noise
        worse = "a" if (dl > dr) == noisy else "b"
        return "b" if worse == "a" else "a"
    return rng.choice("ab")


def guessed_keys(raw: bytes) -> set[str]:
    """Keys the key-guessing bot expects for a blank card of this size, and for the served
    bytes themselves, were keys content hashes."""
    size = Image.open(io.BytesIO(raw)).size
    buf = io.BytesIO()
    Image.new("RGB", size, (128, 128, 128)).save(buf, "PNG")
    return {hashlib.sha256(buf.getvalue()).hexdigest()[:24], hashlib.sha256(raw).hexdigest()[:24]}


def old_turn(who: str, served: int) -> bool:
    """Where validation tasks used to come: a fixed offset per annotator."""
    return served % EVERY == int(hashlib.sha256(who.encode()).hexdigest()[:8], 16) % EVERY


def careful(item: StoredItem, sides: list[str], rng: random.Random) -> str:
    """The shown side a careful person picks: the right one on validation tasks, else by the
    models' strengths."""
    rule = item.validation
    if rule:
        return "a" if sides[0] == rule.answer else "b"
    sa, sb = STRENGTH[item.a.model], STRENGTH[item.b.model]
    better = "a" if rng.random() < sa / (sa + sb) else "b"
    return "a" if sides[0] == better else "b"


async def simulate(url: str) -> tuple[dict, list[dict]]:
    redis = aredis.Redis.from_url(url)
    store = CampaignStore(redis)
    record, images = ingest(CampaignCreate.model_validate(campaign_body()), JudgeSettings())
    assert await store.create(record, images)
    record = await store.record("bots")
    by_id = {i.id: i for i in record.items}
    t = [1_000_000.0]
    rng, serving = random.Random(9), random.Random(13)
    served = dict.fromkeys(PEOPLE, 0)
    active = list(PEOPLE)
    while active:
        for who in list(active):
            task = await next_task(store, record, who, lambda: t[0], serving)
            if task is None:
                active.remove(who)
                continue
            shown = public_task(record, task, lambda key: key)  # what the browser gets
            left, right = shown["images"]["a"], shown["images"]["b"]
            item = by_id[task["item"]]
            sides = ["a", "b"] if task["order"] == [0, 1] else ["b", "a"]

            kind = PEOPLE[who]
            if kind == "honest":
                choice = careful(item, sides, rng)
            elif kind == "periodic":
                turn = old_turn(who, served[who])
                choice = careful(item, sides, rng) if turn else rng.choice("ab")
            elif kind == "pixels":
                raw = [(await store.image("bots", k))[0] for k in (left, right)]
                choice = sniff(raw[0], raw[1], rng)
            else:
                raw_l = (await store.image("bots", left))[0]
                raw_r = (await store.image("bots", right))[0]
                if left in guessed_keys(raw_l):
                    choice = "b"
                elif right in guessed_keys(raw_r):
                    choice = "a"
                else:
                    choice = rng.choice("ab")
            served[who] += 1
            t[0] += rng.uniform(2.0, 6.0)
            got = await answer(store, record, who, Answer(task=task["id"], choice=choice),
                               lambda: t[0])  # fmt: skip
            assert got["accepted"]
    attempts = await store.attempts("bots")
    await redis.aclose()
    return record, attempts


def test_bots_are_caught_and_honest_people_are_not(redis_url: str) -> None:
    record, attempts = asyncio.run(simulate(redis_url))
    people = annotator_flags(record, attempts)
    for who, kind in PEOPLE.items():
        p = people[who]
        assert p["flagged"] == (kind != "honest"), (who, p)
        if kind != "honest":
            assert p["validation_answers"] >= 8, p
            assert any(r.startswith("validation") for r in p["reasons"]), p
    # every task kind of the campaign was answered; validation tasks came at no fixed place
    val = [a for a in attempts if a["validation"] and a["annotator"].startswith("h")]
    assert len({a["item"] for a in val}) > 10


def test_the_report_shows_which_validation_kinds_catch_the_bots(redis_url: str) -> None:
    record, attempts = asyncio.run(_fresh(redis_url))
    flagged = {w for w, p in annotator_flags(record, attempts).items() if p["flagged"]}
    kinds = by_source(record, attempts, flagged)
    assert set(kinds) <= {"scrambled", "mosaic", "blur", "noise", "blank"} and len(kinds) >= 4
    assert all(k["kept"]["accuracy"] == 1.0 for k in kinds.values() if k["kept"]["answers"])
    scrambled = kinds["scrambled"]["flagged"]
    assert scrambled["answers"] >= 5 and scrambled["accuracy"] < 0.8  # no pixel tell


async def _fresh(url: str) -> tuple[dict, list[dict]]:
    """The simulation again on an empty database (the campaign id is fixed)."""
    redis = aredis.Redis.from_url(url)
    await redis.flushdb()
    await redis.aclose()
    return await simulate(url)
