"""Simulation: 40 annotators — honest, random clickers, always-left, too fast — label 200
pairs of 8 models with known Bradley–Terry strengths, through the real serving code and a
real redis-server (on a simulated clock, so time floors need no waiting).

Checks: the bad annotators (and only they) are flagged, with the right reasons; the
leaderboard from the kept votes recovers the true order; Krippendorff's α and the pairwise
agreement rate with its bootstrap CI equal an independent recomputation written here from
the textbook definitions."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import redis.asyncio as aredis

from api.campaigns.serving import answer, next_task
from api.campaigns.store import CampaignStore
from api.core.redis_embedded import EmbeddedRedis
from eval.campaigns.exports import vote_rows, vote_units
from eval.campaigns.ingest import ingest
from eval.campaigns.models import Answer, CampaignCreate
from eval.campaigns.planning import pair_plan
from eval.campaigns.record import StoredItem
from eval.campaigns.report import build_report
from judge.config import JudgeSettings
from tests.campaigns.helpers import COLOURS, data_url, png

pytestmark = pytest.mark.slow  # simulated rounds: every test reads one whole simulated campaign

MODELS = [f"model-{k}" for k in range(8)]
STRENGTH = {m: 2.0 ** (1.1 * (7 - k)) for k, m in enumerate(MODELS)}  # model-0 strongest
KINDS = ["honest"] * 24 + ["random"] * 6 + ["left"] * 5 + ["fast"] * 5


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with EmbeddedRedis(tmp_path_factory.mktemp("sim-redis")) as url:
        yield url


def campaign_body() -> dict:
    images = {m: data_url(png(COLOURS[k], k)) for k, m in enumerate(MODELS)}
    items = []
    for p in range(25):
        for a, b in pair_plan(MODELS, per_model=2, rotation=p):
            items.append({"id": f"p{p:02d}-{a}-{b}", "prompt": f"prompt {p}",
                          "a": {"model": a, "image": images[a]},
                          "b": {"model": b, "image": images[b]}})  # fmt: skip
    assert len(items) == 200
    return {"id": "sim", "kind": "pairwise", "criterion": "preference", "items": items,
            "votes_per_item": 5, "session_size": 5, "min_seconds": 2.0, "penalty_s": 5.0,
            "validation_every": 2, "seed": 3}  # fmt: skip


class Clock:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


def decide(kind: str, item: StoredItem, left: str, rng: random.Random) -> str:
    """The side (item's a/b) a simulated annotator picks."""
    if kind == "left":
        return left
    if kind == "random":
        return rng.choice("ab")
    rule = item.validation
    if rule:
        right = rule.answer
        return right if rng.random() < 0.98 else {"a": "b", "b": "a"}[right]
    sa, sb = STRENGTH[item.a.model], STRENGTH[item.b.model]
    return "a" if rng.random() < sa / (sa + sb) else "b"


async def simulate(url: str) -> tuple[dict, list[dict]]:
    redis = aredis.Redis.from_url(url)
    store = CampaignStore(redis)
    record, images = ingest(CampaignCreate.model_validate(campaign_body()), JudgeSettings())
    assert await store.create(record, images)
    record = await store.record("sim")
    by_id = {i.id: i for i in record.items}
    clock = Clock()
    rng = random.Random(7)
    serving_rng = random.Random(11)
    people = [(f"s{n:02d}", kind) for n, kind in enumerate(KINDS)]
    active = list(people)
    while active:  # round robin: everyone answers one task per round
        for who, kind in list(active):
            task = await next_task(store, record, who, clock, serving_rng)
            if task is None:
                active.remove((who, kind))
                continue
            item = by_id[task["item"]]
            left = ["a", "b"][task["order"][0]]
            side = decide(kind, item, left, rng)
            shown_choice = "a" if side == left else "b"
            while True:
                fast = kind == "fast" and rng.random() < 0.7
                clock.t += 0.4 if fast else rng.uniform(2.5, 9.0)
                got = await answer(store, record, who, Answer(task=task["id"], choice=shown_choice),
                                   clock)  # fmt: skip
                if got["accepted"]:
                    break
                clock.t += got["penalty_s"]
    attempts = await store.attempts("sim")
    await redis.aclose()
    return record, attempts


@pytest.fixture(scope="module")
def simulated(redis_url: str) -> tuple[dict, list[dict], dict]:
    record, attempts = asyncio.run(simulate(redis_url))
    return record, attempts, build_report(record, attempts, n_boot=400, seed=5)


def test_bad_annotators_are_flagged_and_only_they(simulated: tuple) -> None:
    record, attempts, report = simulated
    kind_of = {f"s{n:02d}": kind for n, kind in enumerate(KINDS)}
    people = {a["id"]: a for a in report["annotators"]}
    assert len(people) == 40
    for who, a in people.items():
        assert a["flagged"] == (kind_of[who] != "honest"), (who, kind_of[who], a)
    for who, a in people.items():
        rules = {r.split(":")[0] for r in a["reasons"]}
        if kind_of[who] == "fast":
            assert "too_fast" in rules, a
        if kind_of[who] == "left":
            assert "position" in rules, a
        if kind_of[who] == "random":
            assert rules & {"validation", "position"}, a
    assert report["progress"]["share"] == 1.0
    assert report["progress"]["labels"] == 200 * 5
    # nothing is deleted: every vote is in the export, the flagged ones marked
    rows = vote_rows(record, attempts, {w for w, a in people.items() if a["flagged"]})
    assert len(rows) == 1000
    assert {r["annotator"] for r in rows if r["excluded"]} == {
        w for w, k in kind_of.items() if k != "honest" and any(r["annotator"] == w for r in rows)
    }


def test_kept_votes_recover_the_true_order(simulated: tuple) -> None:
    _, _, report = simulated
    board = report["leaderboard"]
    assert [m["model"] for m in board["models"]] == MODELS
    assert board["n_votes"] < 1000  # the flagged annotators' votes are out


def textbook_alpha_nominal(units: dict[str, dict[str, str]]) -> float:
    """α = 1 - D_o / D_e from pairable values (Krippendorff's definition, written directly)."""
    pairable = {u: list(v.values()) for u, v in units.items() if len(v) >= 2}
    n = sum(len(v) for v in pairable.values())
    d_o = 0.0
    for vals in pairable.values():
        m = len(vals)
        d_o += sum(1 for i, j in itertools.permutations(range(m), 2) if vals[i] != vals[j]) / (
            m - 1
        )
    d_o /= n
    all_vals = [x for v in pairable.values() for x in v]
    counts = {c: all_vals.count(c) for c in set(all_vals)}
    d_e = sum(counts[c] * counts[k] for c in counts for k in counts if c != k) / (n * (n - 1))
    return 1 - d_o / d_e


def test_alpha_and_cis_match_an_independent_recomputation(simulated: tuple) -> None:
    record, attempts, report = simulated
    flagged = {a["id"] for a in report["annotators"] if a["flagged"]}
    units = vote_units(vote_rows(record, attempts, flagged))
    assert report["alpha"]["value"] == pytest.approx(textbook_alpha_nominal(units), abs=1e-4)
    assert report["alpha"]["units"] == len(units)
    # pairwise agreement: agreeing pairs / pairs, CI by resampling units (same draws: a
    # generator seeded like the report's, one row of unit indices per resample)
    per = [list(v.values()) for v in units.values() if len(v) >= 2]
    hits = np.array([sum(a == b for a, b in itertools.combinations(v, 2)) for v in per], float)
    tots = np.array([len(v) * (len(v) - 1) / 2 for v in per])
    assert report["agreement"]["rate"] == pytest.approx(hits.sum() / tots.sum(), abs=1e-4)
    draws = np.random.default_rng(5).integers(0, len(per), size=(400, len(per)))
    rates = [hits[d].sum() / tots[d].sum() for d in draws]
    lo, hi = np.percentile(rates, [2.5, 97.5])
    assert report["agreement"]["ci95"] == pytest.approx([lo, hi], abs=1e-4)
    assert 0.5 < report["agreement"]["rate"] < 1.0 and report["alpha"]["value"] > 0


def test_the_simulated_record_holds_every_attempt(simulated: tuple, tmp_path: Path) -> None:
    _, attempts, _ = simulated
    fast = [a for a in attempts if a["fast"]]
    assert fast and all(not a["accepted"] for a in fast)
    assert all(a["annotator"].startswith("s") for a in attempts)
    assert sum(1 for a in attempts if a["accepted"] and not a["validation"]) == 1000
