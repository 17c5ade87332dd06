"""Store and export campaign votes through the code the service runs: the ``next`` and
answer scripts (one round trip each) and the streamed export (:mod:`api.campaigns.streams`:
QC flags, then vote rows as JSONL and CSV, a chunk of the log at a time). ``--items`` sets
the campaign's size, so ``next`` latency can be compared between a small and a large
campaign.

``--fill`` writes the votes straight into the answer log (entries shaped as the answer
script writes them, the item queue's counts to match: a million votes in about a minute
instead of ten through the scripts), then times ``--probe`` ``next`` + answer calls on that
campaign and the export, with the process's peak memory while exporting (sampled).

Example::

    $ python -m benchmarks.campaign_store --votes 100000 --concurrency 50
    $ python -m benchmarks.campaign_store --votes 20000 --items 100000
    $ python -m benchmarks.campaign_store --fill --votes 1000000 --items 100000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import statistics
import tempfile
import time
from pathlib import Path

import psutil
import redis.asyncio as aredis
from tqdm import trange

from api.campaigns.serving import answer, next_task
from api.campaigns.store import CampaignStore
from api.campaigns.streams import excluded_annotators, table_parts
from api.core.redis_embedded import EmbeddedRedis
from eval.campaigns.models import Answer
from eval.campaigns.record import CampaignRecord


def record(n_items: int, votes_per_item: int = 5) -> CampaignRecord:
    items = [
        {
            "id": f"p{i}",
            "prompt": f"prompt {i}",
            "a": {"model": f"m{i % 7}", "image": "k1"},
            "b": {"model": f"m{(i + 1) % 7}", "image": "k2"},
            "validation": None,
        }
        for i in range(n_items)
    ]
    return CampaignRecord.model_validate(
        {
            "id": "bench",
            "kind": "pairwise",
            "criterion": "preference",
            "card": {"question": "Which do you prefer?"},
            "items": items,
            "votes_per_item": votes_per_item,
            "session_size": 5,
            "min_seconds": 0.0,
            "penalty_s": 0.0,
            "validation_every": 4,
            "status": "open",
            "image_ext": {"k1": "png", "k2": "png"},
        }
    )


async def _serve(
    store: CampaignStore, rec: CampaignRecord, n_votes: int, concurrency: int
) -> list[float]:
    """``n_votes`` next + answer calls by ``concurrency`` annotators; ``next`` latencies."""
    left = [n_votes]
    next_s: list[float] = []

    async def annotator(k: int) -> None:
        who = f"a{k:03d}"
        while left[0] > 0:
            left[0] -= 1
            t = time.perf_counter()
            task = await next_task(store, rec, who)
            next_s.append(time.perf_counter() - t)
            if task is None:
                return
            await answer(store, rec, who, Answer(task=task["id"], choice="ab"[k % 2]))

    await asyncio.gather(*(annotator(k) for k in range(concurrency)))
    return next_s


def _latency(xs: list[float]) -> dict[str, float]:
    return {
        "p50": round(1000 * statistics.median(xs), 2),
        "p95": round(1000 * statistics.quantiles(xs, n=20)[-1], 2),
        "n": len(xs),
    }


async def fill(
    redis: aredis.Redis, rec: CampaignRecord, n_votes: int, annotators: int = 2000
) -> None:
    """Write ``n_votes`` accepted votes into the log as the answer script would, spread
    evenly over the items and ``annotators``, and the item queue's counts to match."""
    cid, items = rec.id, [i.id for i in rec.items]
    step = 20_000
    for start in trange(0, n_votes, step, desc="filling the log", unit_scale=step):
        entries = []
        for n in range(start, min(start + step, n_votes)):
            choice = "ab"[(n * 7919) % 3 % 2]
            entries.append(json.dumps({
                "task": f"t{n:016x}", "item": items[n % len(items)],
                "annotator": f"f{n % annotators:05d}", "at": "2026-11-27T00:00:00.000000Z",
                "validation": False, "reason": None, "lang": None, "prompt_language": None,
                "choice": choice, "shown_left": "ab"[n % 2], "seconds": 2.5 + n % 7,
                "accepted": True, "fast": False,
            }))  # fmt: skip
        await redis.rpush(f"judge:campaign:{cid}:log", *entries)
    counts: dict[str, int] = {}
    for n in range(n_votes):
        counts[items[n % len(items)]] = counts.get(items[n % len(items)], 0) + 1
    await redis.zadd(f"judge:campaign:{cid}:queue", counts)


async def export(store: CampaignStore, rec: CampaignRecord) -> dict:
    """Time the streamed export (JSONL and CSV) and sample the process's memory meanwhile."""
    proc = psutil.Process()
    base = proc.memory_info().rss
    peak = [base]
    sampling = True

    async def sample() -> None:
        while sampling:
            peak[0] = max(peak[0], proc.memory_info().rss)
            await asyncio.sleep(0.05)

    sampler = asyncio.create_task(sample())
    out: dict = {}
    for fmt in ("jsonl", "csv"):
        t = time.perf_counter()
        checked = await excluded_annotators(store, rec)
        size, lines = 0, 0
        async for part in table_parts(store, rec, checked, fmt):
            size += len(part)
            lines += part.count(b"\n")
            peak[0] = max(peak[0], proc.memory_info().rss)
        out[f"export_{fmt}_s"] = round(time.perf_counter() - t, 2)
        out[f"{fmt}_mb"] = round(size / 1e6, 1)
        out[f"{fmt}_lines"] = lines
    sampling = False
    await sampler
    out["rss_before_export_mb"] = round(base / 2**20)
    out["peak_rss_during_export_mb"] = round(peak[0] / 2**20)
    return out


async def run(
    url: str,
    n_votes: int,
    concurrency: int,
    n_items: int | None = None,
    filled: bool = False,
    probe: int = 2000,
) -> dict:
    redis = aredis.Redis.from_url(url, max_connections=concurrency + 4)
    store = CampaignStore(redis)
    n_items = n_items or max(1, n_votes // 5)
    # filled: each item needs one vote more than it holds, so next still finds work
    per_item = math.ceil(n_votes / n_items) + (1 if filled else 0)
    await store.create(record(n_items, max(1, per_item)), {})
    rec = await store.record("bench")
    t0 = time.perf_counter()
    if filled:
        await fill(redis, rec, n_votes)
        next_s = await _serve(store, rec, probe, concurrency)
    else:
        next_s = await _serve(store, rec, n_votes, concurrency)
    store_s = time.perf_counter() - t0
    stored = await store.log_length("bench")
    report = {
        "votes": stored,
        "items": n_items,
        "concurrency": concurrency,
        "filled": filled,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "next_ms": _latency(next_s),
        "store_s": round(store_s, 2),
        "store_votes_per_s": round(stored / store_s),
        **await export(store, rec),
    }
    await redis.aclose()
    return report


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.campaign_store")
    p.add_argument("--votes", type=int, default=100_000)
    p.add_argument("--concurrency", type=int, default=50)
    p.add_argument("--items", type=int, help="the campaign's items (default: votes / 5)")
    p.add_argument(
        "--fill",
        action="store_true",
        help="write the votes straight into the log, then time --probe next + answer calls",
    )
    p.add_argument("--probe", type=int, default=2000, help="with --fill: next calls to time")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp)) as url:
        report = asyncio.run(
            run(url, args.votes, args.concurrency, args.items, args.fill, args.probe)
        )
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
