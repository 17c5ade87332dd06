"""Store and export 100k campaign votes: the answer path's Redis writes (the atomic
close-task script, as the service runs it) and the export (log read, vote rows, JSONL/CSV).

Example::

    $ python -m benchmarks.campaign_store --votes 100000 --concurrency 50
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

import redis.asyncio as aredis

from api.campaigns.store import CampaignStore
from api.core.redis_embedded import EmbeddedRedis
from eval.campaigns.exports import VOTE_FIELDS, to_csv, to_jsonl, vote_rows


def record(n_items: int) -> dict:
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
        "votes_per_item": 5,
        "status": "open",
        "image_ext": {"k1": "png", "k2": "png"},
    }


async def run(url: str, n_votes: int, concurrency: int) -> dict:
    redis = aredis.Redis.from_url(url, max_connections=concurrency + 4)
    store = CampaignStore(redis)
    rec = record(max(1, n_votes // 5))
    await store.create(rec, {})
    queue = list(range(n_votes))

    async def annotator(k: int) -> None:
        who = f"a{k:03d}"
        while queue:
            n = queue.pop()
            task = {
                "id": f"t{n:016x}",
                "item": f"p{n % len(rec['items'])}",
                "validation": False,
                "order": [0, 1],
                "served_at": 0.0,
            }
            await store.serve("bench", who, task, counted=True)
            entry = {
                "task": task["id"],
                "item": task["item"],
                "annotator": who,
                "at": "2026-01-01T00:00:00Z",
                "seconds": 3.0,
                "validation": False,
                "choice": "ab"[n % 2],
                "shown_left": "a",
                "accepted": True,
                "fast": False,
            }
            assert await store.close_task("bench", who, task, entry)

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
        "votes": n_votes,
        "concurrency": concurrency,
        "store_s": round(store_s, 2),
        "store_votes_per_s": round(n_votes / store_s),
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
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp)) as url:
        print(json.dumps(asyncio.run(run(url, args.votes, args.concurrency)), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
