"""Store and export 100k campaign votes through the serving code the service runs (the
``next`` and answer scripts, one round trip each) and the export (log read, vote rows,
JSONL/CSV). ``--items`` sets the campaign's size, so ``next`` latency can be compared
between a small and a large campaign.

Example::

    $ python -m benchmarks.campaign_store --votes 100000 --concurrency 50
    $ python -m benchmarks.campaign_store --votes 20000 --items 100000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import tempfile
import time
from pathlib import Path

import redis.asyncio as aredis

from api.campaigns.serving import answer, next_task
from api.campaigns.store import CampaignStore
from api.core.redis_embedded import EmbeddedRedis
from eval.campaigns.exports import VOTE_FIELDS, to_csv, to_jsonl, vote_rows
from eval.campaigns.models import Answer


def record(n_items: int, votes_per_item: int = 5) -> dict:
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
    return {
        "id": "bench",
        "kind": "pairwise",
        "criterion": "preference",
        "items": items,
        "votes_per_item": votes_per_item,
        "session_size": 5,
        "min_seconds": 0.0,
        "penalty_s": 0.0,
        "validation_every": 4,
        "status": "open",
        "image_ext": {"k1": "png", "k2": "png"},
    }


async def run(url: str, n_votes: int, concurrency: int, n_items: int | None = None) -> dict:
    redis = aredis.Redis.from_url(url, max_connections=concurrency + 4)
    store = CampaignStore(redis)
    n_items = n_items or max(1, n_votes // 5)
    await store.create(record(n_items, max(1, math.ceil(n_votes / n_items))), {})
    rec = await store.record("bench")
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

    t0 = time.perf_counter()
    await asyncio.gather(*(annotator(k) for k in range(concurrency)))
    store_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    attempts = await store.attempts("bench")
    read_s = time.perf_counter() - t1
    t2 = time.perf_counter()
    rows = vote_rows(await store.record("bench"), attempts, excluded=set())
    jsonl, csv = to_jsonl(rows), to_csv(rows, VOTE_FIELDS)
    export_s = time.perf_counter() - t2
    await redis.aclose()
    return {
        "votes": len(rows),
        "items": n_items,
        "concurrency": concurrency,
        "next_ms": {
            "p50": round(1000 * statistics.median(next_s), 2),
            "p95": round(1000 * statistics.quantiles(next_s, n=20)[-1], 2),
        },
        "store_s": round(store_s, 2),
        "store_votes_per_s": round(len(rows) / store_s),
        "read_log_s": round(read_s, 2),
        "rows_jsonl_csv_s": round(export_s, 2),
        "jsonl_mb": round(len(jsonl) / 1e6, 1),
        "csv_mb": round(len(csv) / 1e6, 1),
        "rows": len(rows),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.campaign_store")
    p.add_argument("--votes", type=int, default=100_000)
    p.add_argument("--concurrency", type=int, default=50)
    p.add_argument("--items", type=int, help="the campaign's items (default: votes / 5)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp)) as url:
        report = asyncio.run(run(url, args.votes, args.concurrency, args.items))
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
