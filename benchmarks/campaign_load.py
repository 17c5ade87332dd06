"""50 concurrent annotators against a real service (``judge serve`` on loopback, its own
redis-server): each opens the page, then fetches tasks, loads the two images and answers
until the campaign is done. Reports p50/p95 latency of the page, ``next``, image and answer
requests.

Example::

    $ python -m benchmarks.campaign_load --annotators 50 --pairs 500 --votes-per-item 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from benchmarks.load import _start_service
from tests.fakes.provider import stop_process


def _png(n: int) -> str:
    import base64
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (256, 256), ((n * 37) % 256, (n * 91) % 256, (n * 53) % 256)).save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def body(pairs: int, votes: int) -> dict:
    images = [_png(n) for n in range(40)]
    items = [
        {
            "id": f"p{i}",
            "prompt": f"prompt {i}",
            "a": {"model": f"m{i % 8}", "image": images[i % 40]},
            "b": {"model": f"m{(i + 1) % 8}", "image": images[(i + 7) % 40]},
        }
        for i in range(pairs)
    ]
    return {
        "id": "load",
        "kind": "pairwise",
        "criterion": "preference",
        "items": items,
        "votes_per_item": votes,
        "min_seconds": 0.0,
        "session_size": 5,
    }


async def annotator(client: httpx.AsyncClient, token: str, lat: dict[str, list[float]]) -> int:
    async def timed(kind: str, method: str, url: str, **kw: object) -> httpx.Response:
        t = time.perf_counter()
        r = await client.request(method, url, **kw)  # type: ignore[arg-type]
        lat[kind].append(time.perf_counter() - t)
        r.raise_for_status()
        return r

    await timed("page", "GET", f"/ui/label/{token}")
    done = 0
    while True:
        r = await timed("next", "GET", f"/v1/label/{token}/next")
        if r.status_code == 204:
            return done
        task = r.json()["task"]
        for url in task["images"].values():
            await timed("image", "GET", url)
        await timed(
            "answer", "POST", f"/v1/label/{token}/answers", json={"task": task["id"], "choice": "a"}
        )
        done += 1


def pct(xs: list[float], q: float) -> float:
    return round(1000 * statistics.quantiles(xs, n=100)[q - 1], 1) if len(xs) > 1 else 0.0


async def drive(url: str, annotators: int, pairs: int, votes: int) -> dict:
    admin = {"Authorization": "Bearer admin"}
    async with httpx.AsyncClient(base_url=url, timeout=120, headers=admin) as c:
        (await c.post("/v1/campaigns", json=body(pairs, votes))).raise_for_status()
        inv = (await c.post("/v1/campaigns/load/invitations", json={"count": annotators})).json()
    lat: dict[str, list[float]] = {"page": [], "next": [], "image": [], "answer": []}
    limits = httpx.Limits(max_connections=annotators + 10)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as c:
        t0 = time.perf_counter()
        answered = await asyncio.gather(
            *(annotator(c, i["token"], lat) for i in inv["invitations"])
        )
        wall = time.perf_counter() - t0
    return {
        "annotators": annotators,
        "answers": sum(answered),
        "wall_s": round(wall, 1),
        "answers_per_s": round(sum(answered) / wall, 1),
        **{f"{k}_ms": {"p50": pct(v, 50), "p95": pct(v, 95), "n": len(v)} for k, v in lat.items()},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.campaign_load")
    p.add_argument("--annotators", type=int, default=50)
    p.add_argument("--pairs", type=int, default=500)
    p.add_argument("--votes-per-item", type=int, default=5)
    args = p.parse_args(argv)
    os.environ["JUDGE_ADMIN_KEYS"] = "admin"
    os.environ["JUDGE_AUTH_FAILURES_PER_MINUTE"] = "0"
    os.environ["JUDGE_RATE_LIMIT_PER_MINUTE"] = "0"
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = _start_service(1, "http://127.0.0.1:9/v1", Path(tmp))
        try:
            report = asyncio.run(drive(url, args.annotators, args.pairs, args.votes_per_item))
        finally:
            stop_process(proc)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
